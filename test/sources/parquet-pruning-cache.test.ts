/**
 * read_parquet keeps the row ranges its row-group pruning leaves, by footer, filter and columns, so a
 * query repeated over an unchanged file skips pruning. Every query below runs three times (the first
 * prunes, the others take the kept ranges) and must give DuckDB's answer and Quire's own without the
 * pushdown each time: bounds on and next to row-group boundaries, NULLs in the statistics, a row group
 * all NULL, constants of another width, and filters differing only in a constant (kept apart).
 * A file rewritten in place, or a glob whose files prune differently, must not reuse another
 * footer's ranges.
 */
import { copyFileSync, mkdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { parquetWriteFile } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { duckdbParquetFixture } from './duckdb-parquet-fixture.js';

const G = 2048;
const N = 10 * G;
// Row groups of 2048 rows in id order. n is NULL in the whole of row group 3 (ids 6144-8191), in every
// fifth row of groups 0-1, and equal to id elsewhere; t is text rising with id.
const fx = duckdbParquetFixture(
  'parquet-pruning-cache',
  `SELECT i::INTEGER AS id,
     CASE WHEN i BETWEEN ${3 * G} AND ${4 * G - 1} THEN NULL WHEN i < ${2 * G} AND i % 5 = 0 THEN NULL ELSE i END::INTEGER AS n,
     (i % 97)::DOUBLE / 7 AS v, 't' || lpad(i::VARCHAR, 6, '0') AS t
   FROM range(${N}) t(i)`,
  `ROW_GROUP_SIZE ${G}`,
);

const QUERIES = [
  // The boundary between row groups 1 and 2 (ids 4095 | 4096), from either side.
  `SELECT count(*), sum(v), min(t), max(t) FROM read_parquet('$F') WHERE id BETWEEN ${2 * G - 1} AND ${2 * G}`,
  `SELECT count(*), sum(v) FROM read_parquet('$F') WHERE id = ${2 * G}`,
  `SELECT count(*), sum(v) FROM read_parquet('$F') WHERE id = ${2 * G - 1}`,
  `SELECT count(*), sum(v) FROM read_parquet('$F') WHERE id < ${G}`,
  `SELECT count(*), sum(v) FROM read_parquet('$F') WHERE id <= ${G}`,
  `SELECT count(*), sum(v) FROM read_parquet('$F') WHERE id >= ${N - 1}`,
  `SELECT count(*), sum(v) FROM read_parquet('$F') WHERE id > ${N - 1}`,
  `SELECT count(*), sum(v) FROM read_parquet('$F') WHERE id >= ${2 * G}::BIGINT AND id < ${3 * G}::BIGINT`,
  // The same filter with other constants: each its own ranges.
  `SELECT count(*), sum(v) FROM read_parquet('$F') WHERE id >= 100`,
  `SELECT count(*), sum(v) FROM read_parquet('$F') WHERE id >= 10000`,
  `SELECT count(*), sum(v) FROM read_parquet('$F') WHERE id >= 20000`,
  // NULLs: a row group all NULL has no bounds; groups with some NULLs keep theirs.
  `SELECT count(*), sum(v) FROM read_parquet('$F') WHERE n = 7000`,
  `SELECT count(*), sum(v) FROM read_parquet('$F') WHERE n >= ${3 * G} AND n < ${4 * G + 10}`,
  `SELECT count(*), count(n), sum(v) FROM read_parquet('$F') WHERE n IS NULL`,
  `SELECT count(*), sum(v) FROM read_parquet('$F') WHERE n IS NOT NULL AND id < ${G + 5}`,
  `SELECT count(*), sum(v) FROM read_parquet('$F') WHERE n IN (5, 10, 7000, 9000, 20479)`,
  `SELECT count(*), sum(v) FROM read_parquet('$F') WHERE n < 20`,
  // Text statistics, and the same filter over other columns.
  `SELECT count(*), min(id), max(id) FROM read_parquet('$F') WHERE t BETWEEN 't004090' AND 't004100'`,
  `SELECT count(*), min(n), max(n) FROM read_parquet('$F') WHERE t BETWEEN 't004090' AND 't004100'`,
];

describe('read_parquet reuses pruned ranges of an unchanged file', () => {
  for (const q of QUERIES) {
    it(q.replace(`'$F'`, '…'), async () => {
      const first = await fx.sameAsDuckDbAndUnpushed(q);
      for (let i = 0; i < 2; i++) expect(await fx.sameAsDuckDbAndUnpushed(q)).toEqual(first);
    });
  }

  it('a file rewritten in place is pruned afresh', async () => {
    const a = join(fx.dir, 'low.parquet');
    const b = join(fx.dir, 'high.parquet');
    const f = join(fx.dir, 'moving.parquet');
    // The same shape and size, the ids shifted: the first file's ranges would read the wrong groups.
    const write = (file: string, from: number): Promise<unknown> =>
      fx.duck.run(`COPY (SELECT (i + ${from})::INTEGER AS id, (i % 13)::INTEGER AS k FROM range(${N}) t(i)) TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE ${G})`);
    await write(a, 0);
    await write(b, 5 * G);
    const sql = `SELECT count(*), sum(k), min(id) FROM read_parquet('${f}') WHERE id BETWEEN ${6 * G - 3} AND ${6 * G + 2}`;
    copyFileSync(a, f);
    const before = await fx.duckdb(sql);
    for (let i = 0; i < 2; i++) expect(await fx.quire(sql)).toEqual(before);
    copyFileSync(b, f);
    // Within the clock's resolution of the first copy the time would not tell: moved on to be sure.
    const later = new Date(Date.now() + 5000);
    utimesSync(f, later, later);
    const after = await fx.duckdb(sql);
    expect(after).not.toEqual(before);
    for (let i = 0; i < 2; i++) expect(await fx.quire(sql)).toEqual(after);
  });

  it('a file with page indexes, and a column only the general path reads', async () => {
    // hyparquet-writer: column and offset indexes, pages of ~2 KB, row groups of 8,000 rows; b is BOOLEAN,
    // which the flat decoder leaves to hyparquet's scan: with the ranges kept, the scan is opened only
    // when such a column is read.
    const f = join(fx.dir, 'indexed.parquet');
    const ids = Array.from({ length: 24_000 }, (_, i) => i);
    parquetWriteFile({
      filename: f,
      rowGroupSize: 8000,
      pageSize: 2048,
      columnData: [
        { name: 'id', data: Int32Array.from(ids), type: 'INT32', columnIndex: true, offsetIndex: true },
        { name: 'b', data: ids.map((i) => i % 3 === 0), type: 'BOOLEAN', columnIndex: true, offsetIndex: true },
        { name: 'v', data: Float64Array.from(ids, (i) => (i % 97) / 4), type: 'DOUBLE', columnIndex: true, offsetIndex: true },
      ],
    });
    for (const where of ['id BETWEEN 5000 AND 5100', 'id BETWEEN 7990 AND 8010', 'id >= 23990', 'id < 3', 'id = 16000', 'id BETWEEN 5000 AND 5100']) {
      for (const cols of ['count(*), sum(v), min(id), max(id)', 'count(*), count(*) FILTER (WHERE b), sum(v)']) {
        const sql = `SELECT ${cols} FROM read_parquet('${f}') WHERE ${where}`;
        const want = await fx.duckdb(sql);
        for (let i = 0; i < 3; i++) expect(await fx.quire(sql), sql).toEqual(want);
      }
    }
  });

  it('a glob: each file pruned by its own statistics, repeated', async () => {
    const dir = join(fx.dir, 'glob');
    mkdirSync(dir, { recursive: true });
    for (const [name, from] of [['a', 0], ['b', 3 * G], ['c', 7 * G]] as const) {
      await fx.duck.run(
        `COPY (SELECT (i + ${from})::INTEGER AS id, (i % 11)::INTEGER AS k FROM range(${2 * G}) t(i)) TO '${join(dir, `${name}.parquet`)}' (FORMAT parquet, ROW_GROUP_SIZE ${G / 2})`,
      );
    }
    for (const where of [`id BETWEEN ${4 * G - 1} AND ${4 * G}`, `id >= ${8 * G}`, `id < ${G / 2} OR id > ${9 * G - 2}`, `id IN (0, ${3 * G}, ${9 * G - 1})`]) {
      const sql = `SELECT count(*), sum(k), min(id), max(id) FROM read_parquet('${join(dir, '*.parquet')}') WHERE ${where}`;
      const want = await fx.duckdb(sql);
      for (let i = 0; i < 3; i++) expect(await fx.quire(sql), where).toEqual(want);
    }
  });
});
