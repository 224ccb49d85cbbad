/**
 * Timestamps far from 1970 (beyond 2^53 µs, where a double loses microseconds) keep every microsecond
 * through each way in and out: COPY TO / read_* for Parquet, CSV and JSON, database directories, paging
 * cursors, and the wire protocol in text and binary.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, formatValue } from '../../src/index.js';
import { T, type Value } from '../../src/common/types.js';
import { decodeParam, encoderFor } from '../../src/server/pgwire/types.js';
import { startPgServer } from '../../src/server/pgwire/index.js';

const VALUES = [
  '4714-11-24 00:00:00 BC',
  '4714-11-24 00:00:00.000001 BC',
  '0001-01-01 00:00:00.000001',
  '1500-06-30 23:59:59.999999',
  '2024-01-01 10:00:00',
  '2300-01-01 00:00:00.000001',
  '2300-01-01 00:00:00.000002',
  // Parquet's int64 from 1970 ends in 294247; PostgreSQL's range goes to 294276.
  '294246-12-31 23:59:59.999999',
  'infinity',
  '-infinity',
];

const tmp = mkdtempSync(join(tmpdir(), 'quire-ts-io-'));
let db: Database;

async function texts(d: Database, sql: string): Promise<string[]> {
  const r = await d.query(sql);
  return r.rows.map((row) => row.map((v, i) => formatValue(v, r.columns[i]!.type, { timezone: 'UTC' }) ?? 'NULL').join(' | '));
}

beforeAll(async () => {
  db = await Database.create({ path: join(tmp, 'db') });
  await db.query("set timezone = 'UTC'");
  await db.query('create table t (id int, ts timestamp, tz timestamptz)');
  for (const [i, v] of VALUES.entries()) await db.query(`insert into t values (${i}, '${v}', '${v}+00')`.replace(/'(-?infinity)\+00'/, "'$1'"));
  await db.query('insert into t values (100, null, null)');
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('timestamps beyond 2^53 microseconds', () => {
  it('print exactly as entered', async () => {
    const rows = await texts(db, 'select ts from t where id < 100 order by id');
    expect(rows).toEqual(VALUES);
  });

  for (const format of ['parquet', 'csv', 'json'] as const) {
    it(`round-trip through COPY TO ${format} and read_${format}`, async () => {
      const file = join(tmp, `out.${format}`);
      const opts = format === 'json' ? "(format 'json')" : format === 'csv' ? '(format csv, header true)' : '(format parquet)';
      await db.query(`copy (select id, ts, tz from t order by id) to '${file}' ${opts}`);
      const expected = await texts(db, 'select id, ts, tz from t order by id');
      expect(await texts(db, `select id, ts::timestamp, tz::timestamptz from read_${format}('${file}') order by id`)).toEqual(expected);
    });
  }

  it('are refused by COPY TO parquet beyond what its int64 from 1970 holds', async () => {
    await expect(db.query(`copy (select '294276-12-31 23:59:59.999999'::timestamp) to '${join(tmp, 'x.parquet')}' (format parquet)`)).rejects.toMatchObject({
      code: '22008',
    });
  });

  it('survive a database directory being reopened', async () => {
    const before = await texts(db, 'select id, ts, tz from t order by id');
    // A second, read-only open: the writer still holds the directory's lock.
    const again = await Database.create({ path: join(tmp, 'db'), readOnly: true });
    expect(await texts(again, 'select id, ts, tz from t order by id')).toEqual(before);
  });

  it('page at fetch size 1 without repeating or skipping neighbours a microsecond apart', async () => {
    const all = await texts(db, 'select ts from t where ts is not null order by ts desc');
    for (const fetchSize of [1, 2, 3]) {
      let page = await db.paginate('select ts from t where ts is not null order by ts desc', { fetchSize });
      const got: string[] = [];
      for (;;) {
        got.push(...page.rows.map((r) => formatValue(r[0]!, T.timestamp)!));
        if (page.cursor === null) break;
        page = await db.resume(page.cursor);
      }
      expect(got).toEqual(all);
    }
  });

  it('encode and decode in the binary wire format (int64 µs from 2000, infinities at the int64 ends)', () => {
    const enc = encoderFor(T.timestamp, 1, {});
    const cases: [Value, bigint][] = [
      [10413792000000001n, 10413792000000001n - 946684800000000n],
      [-210866803200000000n, -210866803200000000n - 946684800000000n],
      [1_000_000, 1_000_000n - 946684800000000n],
      [Infinity, 9223372036854775807n],
      [-Infinity, -9223372036854775808n],
    ];
    for (const [value, wire] of cases) {
      const b = enc(value);
      expect(b.readBigInt64BE(0)).toBe(wire);
      const back = decodeParam(b, 1, T.timestamp);
      expect(back).toBe(formatValue(value, T.timestamp));
    }
  });

  it('reach node-postgres exactly in text form', async () => {
    const server = await startPgServer(db, { port: 0, log: () => undefined });
    const c = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'u', database: 'quire' });
    try {
      await c.connect();
      // Raw text, so that no client-side Date parsing (milliseconds) is involved.
      const r = await c.query({ text: 'select ts::text as a, ts from t where id < 100 order by id', rowMode: 'array', types: { getTypeParser: () => (s: string) => s } });
      expect(r.rows.map((row) => row[1])).toEqual(VALUES);
      const p = await c.query({ text: 'select id from t where ts = $1', values: ['2300-01-01 00:00:00.000002'], types: { getTypeParser: () => (s: string) => s } });
      expect(p.rows).toEqual([{ id: '6' }]);
    } finally {
      await c.end();
      await server.close();
    }
  });
});
