/** Sequences in the catalog clients read over the PostgreSQL protocol: pg_class relkind 'S', information_schema.sequences. */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type Fixture } from './helpers.js';

let fx: Fixture;

beforeAll(async () => {
  fx = await startFixture({});
  await fx.db.query('create sequence seq_a increment 5 start 10');
  await fx.db.query('create table owned (id smallserial, v text)');
});
afterAll(async () => {
  await fx.server.close();
});

describe('sequences in the catalog', () => {
  it('lists sequences in pg_class and information_schema.sequences, TEMP ones for their session only', async () => {
    const c = new pg.Client({ host: '127.0.0.1', port: fx.server.port, user: 'node', database: 'quire' });
    const other = new pg.Client({ host: '127.0.0.1', port: fx.server.port, user: 'node', database: 'quire' });
    await c.connect();
    await other.connect();
    try {
      await c.query('create temp sequence mine');
      const rel = "select relname, relkind, relpersistence from pg_class where relkind = 'S' order by relname";
      expect((await c.query(rel)).rows).toEqual([
        { relname: 'mine', relkind: 'S', relpersistence: 't' },
        { relname: 'owned_id_seq', relkind: 'S', relpersistence: 'p' },
        { relname: 'seq_a', relkind: 'S', relpersistence: 'p' },
      ]);
      expect((await other.query(rel)).rows.map((r) => r.relname)).toEqual(['owned_id_seq', 'seq_a']);
      expect((await other.query("select nextval('mine')").catch((e: { code: string }) => e.code))).toBe('42P01');
      const info = await c.query("select sequence_name, data_type, start_value, minimum_value, maximum_value, increment, cycle_option from information_schema.sequences where sequence_name <> 'mine' order by 1");
      expect(info.rows).toEqual([
        { sequence_name: 'owned_id_seq', data_type: 'smallint', start_value: '1', minimum_value: '1', maximum_value: '32767', increment: '1', cycle_option: 'NO' },
        { sequence_name: 'seq_a', data_type: 'bigint', start_value: '10', minimum_value: '1', maximum_value: '9223372036854775807', increment: '5', cycle_option: 'NO' },
      ]);
      // Both sessions draw from one counter; currval is each session's own.
      expect((await c.query("select nextval('seq_a') as v")).rows).toEqual([{ v: '10' }]);
      expect((await other.query("select nextval('seq_a') as v")).rows).toEqual([{ v: '15' }]);
      expect((await c.query("select currval('seq_a') as v")).rows).toEqual([{ v: '10' }]);
    } finally {
      await c.end();
      await other.end();
    }
  });
});
