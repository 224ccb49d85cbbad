/**
 * oid, bytea, bit and bit varying over the PostgreSQL protocol (OIDs 26, 17, 1560, 1562): text output as
 * PostgreSQL prints it, binary layouts (uint32; raw bytes; int32 bit count then packed bits), parameters
 * in both formats, and the REST JSON forms.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawClient, names, rawFields, serialize, startFixture, type Fixture } from './helpers.js';
import { decodeParam, encoderFor } from '../../src/server/pgwire/types.js';
import { jsonValue } from '../../src/server/rest/formats.js';
import { T } from '../../src/common/types.js';

let fx: Fixture;

beforeAll(async () => {
  fx = await startFixture({});
  await fx.db.query('create table obb (id int, o oid, b bytea, x bit(4), y varbit)');
  await fx.db.query(`insert into obb values (1, 4294967295, '\\x00ff41', B'0101', B'1'), (2, null, null, null, null), (3, 7, '', '1111', '')`);
});
afterAll(async () => {
  await fx.server.close();
});

function client(): pg.Client {
  return new pg.Client({ host: '127.0.0.1', port: fx.server.port, user: 'node', database: 'quire', types: { getTypeParser: () => (v: unknown) => v } as never });
}

describe('oid, bytea and bit strings on the PostgreSQL protocol', () => {
  it('reports OIDs and prints values in text format', async () => {
    const c = client();
    await c.connect();
    try {
      const r = await c.query({ text: 'select o, b, x, y, array[b] as ba from obb order by id', rowMode: 'array' });
      expect(r.fields.map((f) => f.dataTypeID)).toEqual([26, 17, 1560, 1562, 1001]);
      expect(r.fields[2]!.dataTypeModifier).toBe(4);
      expect(r.rows).toEqual([
        ['4294967295', '\\x00ff41', '0101', '1', '{"\\\\x00ff41"}'],
        [null, null, null, null, '{NULL}'],
        ['7', '\\x', '1111', '', '{"\\\\x"}'],
      ]);
    } finally {
      await c.end();
    }
  });

  it('sends the binary layouts', async () => {
    const c = await RawClient.ready(fx.server.port);
    const ms = await c.roundTrip([
      serialize.parse({ text: 'select o, b, x, y from obb where id = 1', types: [] }),
      serialize.bind({ values: [], binary: true }),
      serialize.execute({}),
      serialize.sync(),
    ]);
    expect(names(ms)).toContain('dataRow');
    const [o, b, x, y] = rawFields(c.rawRows.at(-1)!) as Buffer[];
    expect(o!.readUInt32BE(0)).toBe(4294967295);
    expect([...b!]).toEqual([0, 255, 0x41]);
    // bit_send: the bit count, then the bits from the high end of each byte.
    expect([...x!]).toEqual([0, 0, 0, 4, 0x50]);
    expect([...y!]).toEqual([0, 0, 0, 1, 0x80]);
    c.end();
  });

  it('takes parameters as text and as binary', async () => {
    const c = client();
    await c.connect();
    try {
      const r = await c.query({ text: 'select id from obb where o = $1 or b = $2 or x = $3 order by id', values: ['7', '\\x00ff41', '1111'], rowMode: 'array' });
      expect(r.rows).toEqual([['1'], ['3']]);
      // node-postgres sends a Buffer as a binary parameter.
      const s = await c.query({ text: 'select $1::bytea, length($1::bytea)', values: [Buffer.from([1, 2, 0x5c])], rowMode: 'array' });
      expect(s.rows).toEqual([['\\x01025c', '3']]);
    } finally {
      await c.end();
    }
  });

  it('encodes and decodes binary values directly', () => {
    expect(decodeParam(encoderFor(T.oid, 1, {})(4294967295), 1, T.oid)).toBe('4294967295');
    expect(decodeParam(encoderFor(T.bytea, 1, {})('\u0000\u00ff'), 1, T.bytea)).toBe('\\x00ff');
    expect(decodeParam(encoderFor(T.varbit, 1, {})('101010101'), 1, T.varbit)).toBe('101010101');
    expect(() => decodeParam(Buffer.from([0, 0, 0, 9, 0]), 1, T.varbit)).toThrow(/invalid length in external bit string/);
    expect(() => decodeParam(Buffer.from([0, 0]), 1, T.oid)).toThrow(/incorrect binary data format/);
  });

  it('writes REST JSON as PostgreSQL text, oids as numbers', () => {
    expect(jsonValue(4294967295, T.oid, 'UTC')).toBe(4294967295);
    expect(jsonValue('\u0000A', T.bytea, 'UTC')).toBe('\\x0041');
    expect(jsonValue('0101', T.bit, 'UTC')).toBe('0101');
    expect(jsonValue(['\u0001', null], T._bytea, 'UTC')).toEqual(['\\x01', null]);
  });
});
