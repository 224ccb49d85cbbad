/**
 * A dictionary-encoded filter column the query does not output, on pages without NULLs, is selected as
 * its indexes are unpacked (selectIndexes): each row is appended to the selection by its entry's pass
 * flag, with no array of flags in between. Answers must equal DuckDB's over the same file and Quire's
 * own without the pushdown: long RLE runs, one-bit and wide (16-bit) dictionaries, row groups and pages
 * whose rows are not a multiple of 8, several filters over one column, and a column that is also output.
 * An index past the dictionary (a corrupt page) is refused, in an RLE run and in a bit-packed run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { duckdbParquetFixture } from './duckdb-parquet-fixture.js';
import { writeInt32File } from './int32-parquet-file.js';

const N = 100_003;
// blk: runs of 1,000 equal values (RLE runs); bit: two values; wide: 40,000 distinct values (16 bits);
// mid: 300 values in a scattered order; none of them NULL.
const select = `SELECT i::INTEGER AS id,
    (i // 1000 % 37)::INTEGER AS blk,
    (i % 2)::INTEGER AS bit,
    ((i * 7919) % 40000)::INTEGER AS wide,
    ((i * 31) % 300)::INTEGER AS mid,
    'x' || (i % 13) AS s
  FROM range(${N}) t(i)`;
const fx = duckdbParquetFixture('parquet-filter-select', select, 'ROW_GROUP_SIZE 10007');

const QUERIES = [
  `SELECT count(*), sum(id), min(s) FROM read_parquet('$F') WHERE blk < 10`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE blk = 36`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE blk > 100`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE bit = 1`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE bit <> 1 AND mid < 150`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE wide >= 39000`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE wide > 100 AND wide <= 20000`,
  `SELECT s, count(*), sum(id) FROM read_parquet('$F') WHERE mid BETWEEN 17 AND 29 GROUP BY s ORDER BY s`,
  `SELECT count(*), sum(id) FROM read_parquet('$F') WHERE mid < 0`,
  // Also output: decoded and stored whole, then filtered.
  `SELECT mid, count(*) FROM read_parquet('$F') WHERE mid < 3 GROUP BY mid ORDER BY mid`,
];

const castSums = (sql: string): string => sql.replace(/sum\((\w+)\)/g, 'CAST(sum($1) AS BIGINT)');

describe('read_parquet selects the rows of a dictionary filter column as it unpacks them', () => {
  for (const q of QUERIES) {
    it(q.replace(`'$F'`, '…'), async () => {
      await fx.sameAsDuckDbAndUnpushed(q, castSums);
    });
  }

  it('version 2 and uncompressed pages answer the same', async () => {
    for (const options of ['ROW_GROUP_SIZE 10007, PARQUET_VERSION V2', 'ROW_GROUP_SIZE 3001, COMPRESSION uncompressed']) {
      const f = join(fx.dir, `${options.replace(/\W+/g, '_')}.parquet`);
      await fx.duck.run(`COPY (${select}) TO '${f}' (FORMAT parquet, ${options})`);
      for (const q of QUERIES) await fx.sameAsDuckDbAndUnpushed(q.replaceAll('$F', f), castSums);
    }
  });
});

/**
 * One row group: a required INT32 column `k` whose dictionary has 3 entries and whose only data page
 * holds `indexes` (bit width 3) as the given hybrid body, and `id` PLAIN.
 */
function writeCorrupt(path: string, hybrid: number[], rows: number): void {
  writeInt32File(path, rows, [
    { name: 'k', dictionary: { entries: [10, 20, 30], width: 3, hybrid } },
    { name: 'id', values: Array.from({ length: rows }, (_, i) => i) },
  ]);
}

describe('read_parquet refuses a filter column index past its dictionary', () => {
  // 16 rows of 3-bit indexes in one bit-packed run of two groups (the first unpacked by the compiled
  // selector, the second, near the page's end, by the byte loop).
  const valid = [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 1];
  const packed = (values: number[]): number[] => {
    const bytes = new Array<number>(6).fill(0);
    values.forEach((v, k) => {
      for (let bit = 0; bit < 3; bit++) if ((v >> bit) & 1) bytes[(k * 3 + bit) >> 3]! |= 1 << ((k * 3 + bit) & 7);
    });
    return [2 * 2 + 1, ...bytes];
  };
  const cases: [string, number[], number][] = [
    ['a valid page', packed(valid), 16],
    ['a bit-packed run, first group', packed(valid.map((v, i) => (i === 2 ? 5 : v))), 16],
    ['a bit-packed run, last group', packed(valid.map((v, i) => (i === 15 ? 7 : v))), 16],
    ['an RLE run', [8 * 2, 1, 5 * 2, 6], 13],
  ];
  for (const [what, hybrid, rows] of cases) {
    it(what, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'quire-parquet-corrupt-'));
      try {
        const file = join(dir, 'k.parquet');
        writeCorrupt(file, hybrid, rows);
        const db = await Database.create();
        const q = db.query(`SELECT count(*), sum(id) FROM read_parquet('${file}') WHERE k < 25`);
        if (what === 'a valid page') {
          // Rows whose index is 0 or 1 (entries 10 and 20) pass.
          const passing = valid.map((v, i) => (v < 2 ? i : -1)).filter((i) => i >= 0);
          expect((await q).rows.map((r) => r.map(Number))).toEqual([[passing.length, passing.reduce((a, b) => a + b, 0)]]);
        } else await expect(q).rejects.toMatchObject({ code: 'XX001', message: expect.stringContaining('dictionary index out of range') });
        await db.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe('read_parquet refuses an index past its dictionary in a column picked by stretches', () => {
  // 64 rows of 3-bit indexes in one bit-packed run of 8 groups; k is read at rows [2, 60) (one stretch,
  // decoded from the encoding straight into place: a head before the first whole group, whole groups,
  // and a tail), or at an RLE run's rows.
  const valid = Array.from({ length: 64 }, (_, i) => (i * 5) % 3);
  const packed = (values: number[]): number[] => {
    const bytes = new Array<number>(24).fill(0);
    values.forEach((v, k) => {
      for (let bit = 0; bit < 3; bit++) if ((v >> bit) & 1) bytes[(k * 3 + bit) >> 3]! |= 1 << ((k * 3 + bit) & 7);
    });
    return [8 * 2 + 1, ...bytes];
  };
  const cases: [string, number[]][] = [
    ['a valid page', packed(valid)],
    ['in the head of the stretch', packed(valid.map((v, i) => (i === 5 ? 6 : v)))],
    ['in a whole group', packed(valid.map((v, i) => (i === 30 ? 7 : v)))],
    ['in the tail of the stretch', packed(valid.map((v, i) => (i === 57 ? 3 : v)))],
    ['in an RLE run', [10 * 2, 1, 54 * 2, 4]],
  ];
  for (const [what, hybrid] of cases) {
    it(what, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'quire-parquet-corrupt-'));
      try {
        const file = join(dir, 'k.parquet');
        writeCorrupt(file, hybrid, 64);
        const db = await Database.create();
        const q = db.query(`SELECT count(*), sum(k), min(k) FROM read_parquet('${file}') WHERE id >= 2 AND id < 60`);
        if (what === 'a valid page') {
          const ks = valid.slice(2, 60).map((v) => [10, 20, 30][v]!);
          expect((await q).rows.map((r) => r.map(Number))).toEqual([[58, ks.reduce((a, b) => a + b, 0), Math.min(...ks)]]);
        } else await expect(q).rejects.toMatchObject({ code: 'XX001', message: expect.stringContaining('dictionary index out of range') });
        await db.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
