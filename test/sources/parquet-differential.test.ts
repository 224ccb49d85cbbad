/**
 * read_parquet against DuckDB reading the same DuckDB-written files: every type Quire maps (int, bigint,
 * double, decimal, text, multibyte text, date, timestamp, boolean), NULLs, dictionary and plain
 * encodings, several row groups; row-group pruning gives the answers of no pruning; malformed and
 * truncated files fail with an error naming the file; COPY FROM a Parquet or NDJSON file loads what
 * DuckDB reads from it, under the session's file grant.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { QuireError } from '../../src/common/errors.js';

const N = 12_000;
let dir: string;
let db: Database;
let duck: DuckDBConnection;

/** Both engines' rows as plain JS values: bigint → number where safe. */
const norm = (rows: unknown[][]): unknown[][] =>
  rows.map((r) => r.map((x) => (typeof x === 'bigint' && x <= BigInt(Number.MAX_SAFE_INTEGER) && x >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(x) : x)));
const quire = async (sql: string): Promise<unknown[][]> => norm((await db.query(sql)).rows);
const duckdb = async (sql: string): Promise<unknown[][]> => norm((await duck.runAndReadAll(sql)).getRows() as unknown[][]);

// Columns as text where the engines' JS values differ (decimal, date, timestamp); the rest as values.
const PROJECTION = `id, i8, f, CAST(dec AS VARCHAR) AS dec, s, u, mb, CAST(dt AS VARCHAR) AS dt, CAST(ts AS VARCHAR) AS ts, b`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-parquet-diff-'));
  db = await Database.create();
  const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
  duck = await inst.connect();
  // NULLs at different strides per column; s repeats (dictionary), u is unique (plain once the
  // dictionary grows too big), mb holds 2-, 3- and 4-byte UTF-8; 4 row groups.
  await duck.run(`COPY (SELECT i::INTEGER AS id,
                   CASE WHEN i % 9 = 1 THEN NULL ELSE (i - 6000) * 1000000007 END::BIGINT AS i8,
                   CASE WHEN i % 5 = 2 THEN NULL ELSE (i * 7919 % 10007) / 97.0 END::DOUBLE AS f,
                   CASE WHEN i % 6 = 3 THEN NULL ELSE ((i * 31) % 200000 - 100000) / 1000.0 END::DECIMAL(12,3) AS dec,
                   CASE WHEN i % 4 = 0 THEN NULL ELSE 'cat' || (i % 23) END AS s,
                   'unique-' || i || repeat('x', i % 40) AS u,
                   CASE WHEN i % 8 = 5 THEN NULL ELSE 'héllo ' || (i % 50) || ' 日本語 🎉' END AS mb,
                   CASE WHEN i % 10 = 7 THEN NULL ELSE DATE '1999-12-30' + (i % 9000)::INTEGER END AS dt,
                   CASE WHEN i % 11 = 4 THEN NULL ELSE TIMESTAMP '2001-02-03 04:05:06.789' + to_microseconds(i::BIGINT * 86400000123) END AS ts,
                   CASE WHEN i % 3 = 0 THEN NULL ELSE i % 2 = 0 END AS b
                 FROM range(${N}) r(i)) TO '${join(dir, 'types.parquet')}' (FORMAT parquet, ROW_GROUP_SIZE 3000)`);
  // Same rows without a single NULL: columns whose pages skip their definition levels.
  await duck.run(`COPY (SELECT i::INTEGER AS id, (i * 3)::BIGINT AS i8, i / 4.0 AS f, 'g' || (i % 5) AS s, 'word' || i AS u,
                   TIMESTAMP '2020-01-01' + to_seconds(i) AS ts
                 FROM range(${N}) r(i)) TO '${join(dir, 'dense.parquet')}' (FORMAT parquet, ROW_GROUP_SIZE 5000)`);
});
afterAll(() => {
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

describe('read_parquet matches DuckDB', () => {
  it('every type, with NULLs, over several row groups', async () => {
    const f = join(dir, 'types.parquet');
    const r = await db.query(`SELECT * FROM read_parquet('${f}') LIMIT 1`);
    expect(r.columns.map((c) => `${c.name}:${c.type.name}`)).toEqual([
      'id:int4', 'i8:int8', 'f:float8', 'dec:numeric', 's:text', 'u:text', 'mb:text', 'dt:date', 'ts:timestamp', 'b:bool',
    ]);
    const sql = `SELECT ${PROJECTION} FROM read_parquet('${f}') ORDER BY id`;
    const got = await quire(sql);
    expect(got.length).toBe(N);
    expect(got).toEqual(await duckdb(sql));
  });

  it('columns without NULLs (definition levels skipped), whole and projected', async () => {
    const f = join(dir, 'dense.parquet');
    for (const cols of ['id, i8, f, s, u, CAST(ts AS VARCHAR)', 'u, id', 's']) {
      const sql = `SELECT ${cols} FROM read_parquet('${f}') ORDER BY ${cols.split(',')[0]}, 1`;
      expect(await quire(sql)).toEqual(await duckdb(sql));
    }
  });

  it('aggregates over text, timestamps and decimals agree', async () => {
    const f = join(dir, 'types.parquet');
    const sql = `SELECT s, count(*), count(mb), min(u), max(mb), CAST(sum(dec) AS VARCHAR), CAST(max(ts) AS VARCHAR), count(b) FILTER (WHERE b)
                 FROM read_parquet('${f}') GROUP BY s ORDER BY s NULLS FIRST`;
    expect(await quire(sql)).toEqual(await duckdb(sql));
  });

  it('row-group pruning gives the answers of no pruning', async () => {
    const f = join(dir, 'types.parquet');
    const filters = [
      'id >= 9100',
      'id < 2500 AND f > 40',
      'id BETWEEN 2990 AND 3010',
      'i8 = 1000000007',
      "s IN ('cat3', 'cat7') AND id > 6000",
      "u = 'unique-7000'",
      "ts >= TIMESTAMP '2020-01-01' AND id < 9000",
      "dt < DATE '2000-01-05'",
      'id > 99999',
    ];
    for (const w of filters) {
      const sql = `SELECT ${PROJECTION} FROM read_parquet('${f}') WHERE ${w} ORDER BY id`;
      const pruned = await quire(sql);
      await db.query(`SET quire.disabled_rules = 'push-into-table-function'`);
      let full: unknown[][];
      try {
        full = await quire(sql);
      } finally {
        await db.query('RESET quire.disabled_rules');
      }
      expect(pruned, w).toEqual(full);
      expect(pruned, w).toEqual(await duckdb(sql));
    }
    expect((await db.query(`EXPLAIN (FORMAT QUIRE) SELECT id FROM read_parquet('${f}') WHERE id >= 9100`)).rows.map((r) => r[0]).join('\n')).toMatch(/row group filter: id >= 9100/);
  });
});

describe('malformed Parquet files', () => {
  const failure = async (sql: string): Promise<QuireError> => {
    try {
      await db.query(sql);
    } catch (e) {
      expect(e).toBeInstanceOf(QuireError);
      return e as QuireError;
    }
    throw new Error(`expected ${sql} to fail`);
  };

  it('a file cut short loses its footer: not a Parquet file, named', async () => {
    const src = readFileSync(join(dir, 'types.parquet'));
    const f = join(dir, 'cut.parquet');
    writeFileSync(f, src.subarray(0, Math.floor(src.length / 2)));
    const e = await failure(`SELECT count(*) FROM read_parquet('${f}')`);
    expect(e.message).toContain(f);
    expect(e.code).toBe('22P04');
  });

  it('data pages cut out or overwritten under an intact footer: an error naming the file', async () => {
    const src = readFileSync(join(dir, 'types.parquet'));
    const footer = src.readUInt32LE(src.length - 8) + 8;
    // The first half of the data, then the footer: offsets point past the end.
    const holed = join(dir, 'holed.parquet');
    writeFileSync(holed, Buffer.concat([src.subarray(0, Math.floor((src.length - footer) / 2)), src.subarray(src.length - footer)]));
    const e1 = await failure(`SELECT sum(id), count(u), max(ts) FROM read_parquet('${holed}')`);
    expect(e1.message).toContain(holed);
    // Page bytes overwritten with garbage.
    const garbled = join(dir, 'garbled.parquet');
    const bad = Buffer.from(src);
    for (let i = 4; i < bad.length - footer; i += 3) bad[i] = (i * 131) & 0xff;
    writeFileSync(garbled, bad);
    const e2 = await failure(`SELECT sum(id), count(u), max(ts) FROM read_parquet('${garbled}')`);
    expect(e2.message).toContain(garbled);
  });

  it('not Parquet at all, and a missing file', async () => {
    const f = join(dir, 'text.parquet');
    writeFileSync(f, 'id,name\n1,a\n');
    expect((await failure(`SELECT * FROM read_parquet('${f}')`)).message).toBe(`file "${f}" is not a Parquet file`);
    expect((await failure(`SELECT * FROM read_parquet('${join(dir, 'absent.parquet')}')`)).code).toBe('58P01');
  });
});

describe('COPY FROM a Parquet or JSON file', () => {
  it('Parquet: every type, the values DuckDB reads', async () => {
    const f = join(dir, 'types.parquet');
    await db.query(`CREATE TABLE pt (id int4, i8 int8, f float8, dec numeric(12,3), s text, u text, mb text, dt date, ts timestamp, b bool)`);
    const r = await db.query(`COPY pt FROM '${f}' (FORMAT parquet)`);
    expect(r.command).toBe('COPY');
    expect(r.rowCount).toBe(N);
    expect(await quire(`SELECT ${PROJECTION} FROM pt ORDER BY id`)).toEqual(await duckdb(`SELECT ${PROJECTION} FROM read_parquet('${f}') ORDER BY id`));
  });

  it('Parquet: a column list, columns matched by name, a missing column named', async () => {
    const f = join(dir, 'dense.parquet');
    await db.query(`CREATE TABLE pc (u text, id int8, extra text DEFAULT 'x')`);
    await db.query(`COPY pc (id, u) FROM '${f}' (FORMAT parquet)`);
    // Omitted columns take their defaults, as in COPY of text.
    expect(await quire(`SELECT count(*), CAST(sum(id) AS BIGINT), max(u), count(extra) FROM pc`)).toEqual(await duckdb(`SELECT count(*), CAST(sum(id) AS BIGINT), max(u), count(*) FROM read_parquet('${f}')`));
    await expect(db.query(`COPY pc FROM '${f}' (FORMAT parquet)`)).rejects.toThrow(/column "extra" of relation "pc" is not in Parquet file/);
  });

  it('NDJSON: numbers, text, and text converted to dates and timestamps', async () => {
    const f = join(dir, 'rows.ndjson');
    await duck.run(`COPY (SELECT i AS id, i / 8.0 AS v, 'name ' || i || ' ü' AS name, CAST(DATE '2020-02-28' + (i % 5)::INTEGER AS VARCHAR) AS day,
                     CASE WHEN i % 4 = 0 THEN NULL ELSE CAST(TIMESTAMP '2021-06-01 12:00:00' + to_seconds(i) AS VARCHAR) END AS seen
                   FROM range(3000) r(i)) TO '${f}' (FORMAT json)`);
    await db.query(`CREATE TABLE jt (id int8, v float8, name text, day date, seen timestamp, missing int4)`);
    expect((await db.query(`COPY jt FROM '${f}' (FORMAT 'json')`)).rowCount).toBe(3000);
    const sql = (src: string): string => `SELECT id, v, name, CAST(day AS VARCHAR), CAST(seen AS VARCHAR) FROM ${src} ORDER BY id`;
    expect(await quire(sql('jt'))).toEqual(
      await duckdb(`SELECT id, v, name, CAST(CAST(day AS DATE) AS VARCHAR), CAST(CAST(seen AS TIMESTAMP) AS VARCHAR) FROM read_json('${f}') ORDER BY id`),
    );
    expect(await quire(`SELECT count(missing) FROM jt`)).toEqual([[0]]);
    // A value the column's type cannot take is a clear error.
    await db.query(`CREATE TABLE jbad (name int4)`);
    await expect(db.query(`COPY jbad FROM '${f}' (FORMAT ndjson)`)).rejects.toThrow(/invalid input syntax for type integer/);
  });

  it('refuses files outside the session grant, like read_parquet and read_json', async () => {
    const allowed = mkdtempSync(join(tmpdir(), 'quire-parquet-allowed-'));
    try {
      copyFileSync(join(dir, 'dense.parquet'), join(allowed, 'in.parquet'));
      const confined = await Database.create({ access: { allowFiles: [allowed] } });
      try {
        await confined.query(`CREATE TABLE t (id int4, s text)`);
        await confined.query(`COPY t (id, s) FROM '${join(allowed, 'in.parquet')}' (FORMAT parquet)`);
        expect((await confined.query(`SELECT count(*) FROM t`)).rows).toEqual([[N]]);
        for (const stmt of [`COPY t (id, s) FROM '${join(dir, 'dense.parquet')}' (FORMAT parquet)`, `COPY t FROM '${join(dir, 'rows.ndjson')}' (FORMAT 'json')`]) {
          await expect(confined.query(stmt)).rejects.toMatchObject({ code: '42501' });
        }
        await expect(confined.query(`SELECT count(*) FROM read_parquet('${join(dir, 'dense.parquet')}')`)).rejects.toMatchObject({ code: '42501' });
      } finally {
        await confined.close();
      }
    } finally {
      rmSync(allowed, { recursive: true, force: true });
    }
  });
});
