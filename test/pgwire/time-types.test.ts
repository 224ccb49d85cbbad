/**
 * time and timetz over the PostgreSQL protocol: type OIDs 1083 / 1266 (and their arrays), text output as
 * PostgreSQL prints it, the binary layouts (int64 microseconds; timetz adds int32 seconds west of UTC),
 * and parameters of both types.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type Fixture } from './helpers.js';
import { decodeParam, encoderFor } from '../../src/server/pgwire/types.js';
import { TimeTz } from '../../src/common/time-of-day.js';
import { T } from '../../src/common/types.js';

let fx: Fixture;

beforeAll(async () => {
  fx = await startFixture({});
  await fx.db.query('create table tm (id int, t time, tz timetz, t3 time(3))');
  await fx.db.query(`insert into tm values (1, '10:00:00.5', '10:00+05:30', '01:02:03.45678'), (2, null, null, null), (3, '24:00', '23:59:59.999999-08', '00:00')`);
});
afterAll(async () => {
  await fx.server.close();
});

function client(): pg.Client {
  // Raw text for every type: the values are compared as PostgreSQL prints them.
  return new pg.Client({ host: '127.0.0.1', port: fx.server.port, user: 'node', database: 'quire', types: { getTypeParser: () => (v: string) => v } as never });
}

describe('time and timetz on the PostgreSQL protocol', () => {
  it('reports OIDs and prints values in text format', async () => {
    const c = client();
    await c.connect();
    try {
      const r = await c.query({ text: 'select t, tz, t3, array[t] as ta, array[tz] as tza from tm order by id', rowMode: 'array' });
      expect(r.fields.map((f) => f.dataTypeID)).toEqual([1083, 1266, 1083, 1183, 1270]);
      expect(r.rows).toEqual([
        ['10:00:00.5', '10:00:00+05:30', '01:02:03.457', '{10:00:00.5}', '{10:00:00+05:30}'],
        [null, null, null, '{NULL}', '{NULL}'],
        ['24:00:00', '23:59:59.999999-08', '00:00:00', '{24:00:00}', '{23:59:59.999999-08}'],
      ]);
      // time(3)'s modifier reaches the row description.
      expect(r.fields[2]!.dataTypeModifier).toBe(3);
    } finally {
      await c.end();
    }
  });

  it('encodes and decodes the binary layouts', () => {
    const t = encoderFor(T.time, 1, {})(36_000_500_000);
    expect(t.length).toBe(8);
    expect(t.readBigInt64BE(0)).toBe(36_000_500_000n);
    const tz = encoderFor(T.timetz, 1, {})(new TimeTz(36_000_000_000, 19800));
    expect(tz.length).toBe(12);
    expect(tz.readBigInt64BE(0)).toBe(36_000_000_000n);
    // PostgreSQL's zone field counts seconds west of UTC.
    expect(tz.readInt32BE(8)).toBe(-19800);
    expect(decodeParam(t, 1, T.time)).toBe('10:00:00.5');
    expect(decodeParam(tz, 1, T.timetz)).toBe('10:00:00+05:30');
    expect(() => decodeParam(Buffer.alloc(4), 1, T.timetz)).toThrow(/incorrect binary data format/);
  });

  it('takes time and timetz parameters', async () => {
    const c = client();
    await c.connect();
    try {
      const r = await c.query({ text: 'select id from tm where t = $1::time or tz = $2::timetz order by id', values: ['24:00:00', '10:00:00+05:30'], rowMode: 'array' });
      expect(r.rows).toEqual([['1'], ['3']]);
      const s = await c.query({ text: 'select $1::time + interval \'1 hour\', $2::timetz - interval \'30 min\'', values: ['23:30', '00:10-02'], rowMode: 'array' });
      expect(s.rows).toEqual([['00:30:00', '23:40:00-02']]);
    } finally {
      await c.end();
    }
  });
});
