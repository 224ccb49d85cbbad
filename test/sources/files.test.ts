/**
 * File sources: read_parquet, read_arrow, read_csv, read_json over files generated here, projection
 * and row-group pushdown (EXPLAIN and bytes actually decoded), globs, and COPY … TO parquet / json.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DateDay, Int64, Table, TimestampMicrosecond, TimestampNanosecond, makeData, makeVector, tableFromArrays, tableToIPC, vectorFromArray } from 'apache-arrow';
import { parquetWriteFile } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { setProgressListener } from '../../src/storage/progress.js';

let dir: string;
let db: Database;

const rows = async (sql: string): Promise<unknown[][]> => (await db.query(sql)).rows;
const plan = async (sql: string): Promise<string> => (await db.query(`EXPLAIN (FORMAT QUIRE) ${sql}`)).rows.map((r) => r[0]).join('\n');

/** Units (Parquet: compressed bytes of the column chunks) the file readers decoded while running `sql`, from their progress reports. */
async function decoded(sql: string): Promise<number> {
  const seen = new Map<object, number>();
  setProgressListener((tasks) => {
    for (const t of tasks) seen.set(t, t.done);
  });
  try {
    await db.query(sql);
  } finally {
    setProgressListener(null);
  }
  return [...seen.values()].reduce((a, b) => a + b, 0);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-sources-'));
  db = await Database.create();
  // 10 row groups of 1000 rows, id ascending: min/max statistics separate the groups.
  const n = 10_000;
  parquetWriteFile({
    filename: join(dir, 'groups.parquet'),
    columnData: [
      { name: 'id', data: Int32Array.from({ length: n }, (_, i) => i), type: 'INT32' },
      { name: 'grp', data: Array.from({ length: n }, (_, i) => `g${Math.floor(i / 1000)}`), type: 'STRING' },
      { name: 'v', data: Float64Array.from({ length: n }, (_, i) => i / 4), type: 'DOUBLE' },
      { name: 'big', data: BigInt64Array.from({ length: n }, (_, i) => BigInt(i) * 1_000_000_000_000n), type: 'INT64' },
    ],
    rowGroupSize: 1000,
  });
  for (let k = 0; k < 3; k++) {
    parquetWriteFile({
      filename: join(dir, `part-${k}.parquet`),
      columnData: [
        { name: 'k', data: Int32Array.from({ length: 100 }, () => k), type: 'INT32' },
        { name: 'x', data: Int32Array.from({ length: 100 }, (_, i) => i), type: 'INT32' },
      ],
    });
  }
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('read_parquet', () => {
  it('reads values and types', async () => {
    const f = join(dir, 'groups.parquet');
    expect(await rows(`SELECT count(*), sum(id), min(grp), max(v), max(big) FROM read_parquet('${f}')`)).toEqual([[10000, 49995000, 'g0', 2499.75, 9999000000000000n]]);
    const r = await db.query(`SELECT * FROM read_parquet('${f}') LIMIT 1`);
    expect(r.columns.map((c) => `${c.name}:${c.type.name}`)).toEqual(['id:int4', 'grp:text', 'v:float8', 'big:int8']);
  });

  it('decodes only the projected columns and prunes row groups by statistics', async () => {
    const f = join(dir, 'groups.parquet');
    const q = `SELECT sum(v) FROM read_parquet('${f}') WHERE id >= 8500`;
    const p = await plan(q);
    // id >= 8500 is checked exactly in the scan, so no Filter is left to need id.
    expect(p).toMatch(/columns: \[v\]/);
    expect(p).not.toMatch(/Filter \(/);
    expect(p).toMatch(/row group filter: id >= 8500/);
    expect(await rows(q)).toEqual([[(Array.from({ length: 1500 }, (_, i) => (8500 + i) / 4).reduce((a, b) => a + b, 0))]]);
    // Groups 0..7 are skipped: only groups 8 and 9 of the same columns are decoded (a filter on an
    // expression cannot prune, so that query reads all ten).
    const all = await decoded(`SELECT sum(v) FROM read_parquet('${f}') WHERE id + 0 >= 8500`);
    const pruned = await decoded(q);
    expect(pruned / all).toBeGreaterThan(0.15);
    expect(pruned / all).toBeLessThan(0.25);
    // Same answer with the rule off, which decodes every column of every group.
    await db.query(`SET quire.disabled_rules = 'push-into-table-function'`);
    try {
      expect(await decoded(q)).toBeGreaterThan(all);
      expect(await rows(q)).toEqual([[(Array.from({ length: 1500 }, (_, i) => (8500 + i) / 4).reduce((a, b) => a + b, 0))]]);
    } finally {
      await db.query(`RESET quire.disabled_rules`);
    }
  });

  it('prunes with equality, IN lists and flipped comparisons; keeps exact results', async () => {
    const f = join(dir, 'groups.parquet');
    expect(await rows(`SELECT count(*) FROM read_parquet('${f}') WHERE 1500 > id AND id > 999`)).toEqual([[500]]);
    const idBytes = await decoded(`SELECT count(*) FROM read_parquet('${f}') WHERE id + 0 > 999`);
    const oneGroup = await decoded(`SELECT count(*) FROM read_parquet('${f}') WHERE 1500 > id AND id > 999`);
    expect(oneGroup / idBytes).toBeGreaterThan(0.05);
    expect(oneGroup / idBytes).toBeLessThan(0.15);
    expect(await rows(`SELECT grp, count(*) FROM read_parquet('${f}') WHERE grp IN ('g3', 'g7') GROUP BY grp ORDER BY grp`)).toEqual([
      ['g3', 1000],
      ['g7', 1000],
    ]);
    expect(await rows(`SELECT id FROM read_parquet('${f}') WHERE id = 4242`)).toEqual([[4242]]);
    expect((await decoded(`SELECT id FROM read_parquet('${f}') WHERE id = 4242`)) / idBytes).toBeLessThan(0.15);
  });

  it('reads a glob of files in name order', async () => {
    expect(await rows(`SELECT k, count(*), sum(x) FROM read_parquet('${dir}/part-*.parquet') GROUP BY k ORDER BY k`)).toEqual([
      [0, 100, 4950],
      [1, 100, 4950],
      [2, 100, 4950],
    ]);
    expect(await plan(`SELECT * FROM read_parquet('${dir}/part-*.parquet')`)).toMatch(/files: 3/);
  });

  it('reports a missing file and a non-Parquet file', async () => {
    await expect(db.query(`SELECT * FROM read_parquet('${dir}/nope.parquet')`)).rejects.toMatchObject({ code: '58P01' });
    writeFileSync(join(dir, 'bad.parquet'), 'not parquet at all');
    await expect(db.query(`SELECT * FROM read_parquet('${dir}/bad.parquet')`)).rejects.toMatchObject({ code: '22P04' });
  });
});

describe('COPY TO parquet / json', () => {
  it('round-trips every basic type through Parquet', async () => {
    await db.query(`CREATE TABLE rt (b bool, i2 int2, i4 int4, i8 int8, f4 real, f8 float8, n numeric(12,3), t text, d date, ts timestamp, tz timestamptz)`);
    await db.query(`INSERT INTO rt VALUES
      (true, 1, 2, 9007199254740993, 1.5, 2.25, 123456.789, 'it''s "quoted"', '2024-02-29', '2024-01-01 12:34:56.123456', '2024-01-01 00:00:00.000001+00'),
      (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (false, -32768, -2147483648, -5, -0.5, 1e300, -0.001, '', '1970-01-01', '1999-12-31 23:59:59', '2000-01-01 00:00:00+00')`);
    const f = join(dir, 'rt.parquet');
    expect((await db.query(`COPY rt TO '${f}' (FORMAT parquet)`)).commandTag).toBe('COPY 3');
    const back = await db.query(`SELECT b, i2, i4, i8, f4, f8, n::numeric(12,3), t, d, ts, tz FROM read_parquet('${f}')`);
    const orig = await db.query(`SELECT * FROM rt`);
    const text = (r: typeof orig): unknown[][] => r.rows.map((row) => row.map((v, i) => db.formatValue(v as never, r.columns[i]!.type)));
    expect(text(back)).toEqual(text(orig));
    expect(back.columns.map((c) => c.type.name)).toEqual(['bool', 'int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'text', 'date', 'timestamp', 'timestamptz']);
  });

  it('writes a query result as NDJSON, readable by read_json', async () => {
    const f = join(dir, 'q.json');
    await db.query(`COPY (SELECT i AS id, 'n' || i AS name, i * 0.5 AS half FROM generate_series(1, 3) i) TO '${f}' (FORMAT 'json')`);
    expect(readFileSync(f, 'utf8')).toBe('{"id":1,"name":"n1","half":0.5}\n{"id":2,"name":"n2","half":1.0}\n{"id":3,"name":"n3","half":1.5}\n');
    expect(await rows(`SELECT sum(id)::int, max(name) FROM read_json('${f}')`)).toEqual([[3 * 2, 'n3']]);
    expect((await db.query(`COPY (SELECT 1 AS a) TO STDOUT (FORMAT 'json')`)).copyOut).toBe('{"a":1}\n');
    await expect(db.query(`COPY (SELECT 1) TO STDOUT (FORMAT parquet)`)).rejects.toMatchObject({ code: '0A000' });
  });
});

describe('read_arrow', () => {
  it('reads IPC files and streams, with projection', async () => {
    const t = tableFromArrays({ a: Int32Array.from([1, 2, 3]), s: ['x', 'y', 'z'], f: Float64Array.from([0.5, 1.5, 2.5]) });
    writeFileSync(join(dir, 't.arrow'), tableToIPC(t, 'file'));
    writeFileSync(join(dir, 't.arrows'), tableToIPC(t, 'stream'));
    for (const name of ['t.arrow', 't.arrows']) {
      const f = join(dir, name);
      expect(await rows(`SELECT a, s, f FROM read_arrow('${f}') ORDER BY a`)).toEqual([
        [1, 'x', 0.5],
        [2, 'y', 1.5],
        [3, 'z', 2.5],
      ]);
      expect(await plan(`SELECT sum(f) FROM read_arrow('${f}')`)).toMatch(/columns: \[f\]/);
    }
    expect(await rows(`SELECT count(*) FROM read_arrow('${dir}/t.arrow*')`)).toEqual([[6]]);
  });

  it('keeps microseconds, nulls, dates and big int64 values exact', async () => {
    const ts = makeVector(makeData({ type: new TimestampMicrosecond(), data: BigInt64Array.from([1704067200123456n, 5n]), nullBitmap: Uint8Array.from([1]), length: 2, nullCount: 1 }));
    const tz = makeVector(makeData({ type: new TimestampNanosecond('UTC'), data: BigInt64Array.from([1704067200000001000n, 0n]), length: 2 }));
    const d = vectorFromArray([new Date(Date.UTC(2024, 0, 2)), null], new DateDay());
    const big = vectorFromArray([9007199254740993n, -1n], new Int64());
    const f = join(dir, 'types.arrow');
    writeFileSync(f, tableToIPC(new Table({ ts, tz, d, big }), 'file'));
    const r = await db.query(`SELECT * FROM read_arrow('${f}')`);
    expect(r.columns.map((c) => c.type.name)).toEqual(['timestamp', 'timestamptz', 'date', 'int8']);
    expect(r.rows.map((row) => row.map((v, i) => db.formatValue(v as never, r.columns[i]!.type)))).toEqual([
      ['2024-01-01 00:00:00.123456', '2024-01-01 00:00:00.000001+00', '2024-01-02', '9007199254740993'],
      [null, '1970-01-01 00:00:00+00', null, '-1'],
    ]);
  });
});

describe('read_csv and read_json', () => {
  it('infers CSV types and honours header, delimiter and quote options', async () => {
    const f = join(dir, 'semi.csv');
    writeFileSync(f, "id;name;price;day\n1;'a;b';1.5;2024-01-01\n2;'c';2;2024-01-02\n");
    const r = await db.query(`SELECT * FROM read_csv('${f}', delim => ';', quote => '''')`);
    expect(r.columns.map((c) => `${c.name}:${c.type.name}`)).toEqual(['id:int4', 'name:text', 'price:float8', 'day:date']);
    expect(r.rows.map((x) => x.slice(0, 3))).toEqual([
      [1, 'a;b', 1.5],
      [2, 'c', 2],
    ]);
    const g = join(dir, 'nohdr.csv');
    writeFileSync(g, '5,x\n6,y\n');
    expect(await rows(`SELECT column1, column2 FROM read_csv('${g}', header => false)`)).toEqual([
      [5, 'x'],
      [6, 'y'],
    ]);
  });

  it('reads NDJSON and JSON arrays', async () => {
    writeFileSync(join(dir, 'a.ndjson'), '{"a":1,"b":"x"}\n{"a":2,"b":null}\n');
    writeFileSync(join(dir, 'b.json'), '[{"a":3,"b":"z"},{"a":4}]');
    expect(await rows(`SELECT a, b FROM read_json('${dir}/a.ndjson')`)).toEqual([
      [1, 'x'],
      [2, null],
    ]);
    expect(await rows(`SELECT a, b FROM read_json('${dir}/b.json')`)).toEqual([
      [3, 'z'],
      [4, null],
    ]);
  });
});
