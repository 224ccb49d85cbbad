/**
 * Rows picked after a filter, from dictionary pages whose column has NULLs on rows of its own, are
 * found by rank (parquet-ranked-pick.ts): the page's NULL flags folded into a present bit per row and
 * a rank per 8 rows. Answers must equal DuckDB's over the same file and Quire's without the pushdown
 * for every kind of value the pickers write (int, double, dictionary text as codes, bigint, date), with
 * NULL patterns that put a NULL first and last in a page, on every lane of an 8-row block, and none in
 * long stretches; filters keeping from an eighth to nearly all rows in no pattern; row groups whose
 * rows are not a multiple of 8; version 2 pages. The indexes are read in the packed bits where a page
 * has only bit-packed runs; where most are RLE runs (text in runs of 40 equal values, int and double
 * in runs of 1 to 40) each wanted row takes its run's value (parquet-page-runs.ts), and a page of
 * short runs is unpacked. The levels go straight to present bits. An index past the dictionary at a wanted row is refused on
 * either path (a file written here by hand).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { duckdbParquetFixture } from './duckdb-parquet-fixture.js';
import { writeInt32File } from './int32-parquet-file.js';

// 50,015 rows: DuckDB's row groups of 10,240 leave a last one of 9,055, whose last block of 8 rows
// is short, and its last 4 rows are NULL in every column (a NULL after the last present row).
const N = 50_015;
// h: a hash of the row, so that kept rows and NULLs follow no period the blocks of 8 could line up with.
const H = `hash(i) % 1000`;
const select = `SELECT i::INTEGER AS id,
    (${H})::INTEGER AS f,
    CASE WHEN i % 11 = 3 OR i >= ${N - 4} THEN NULL ELSE (i % 1000)::INTEGER END AS k,
    CASE WHEN hash(i * 3) % 5 = 0 OR i >= ${N - 4} THEN NULL ELSE ((i * 7919) % 1009) / 1009.0 END AS v,
    CASE WHEN i % 13 = 0 OR i % 13 = 12 OR i >= ${N - 4} THEN NULL ELSE 'cat' || (i % 17) END AS s,
    CASE WHEN hash(i * 7) % 3 = 0 OR i >= ${N - 4} THEN NULL ELSE 'name' || (i % 503) END AS name,
    CASE WHEN i % 8 = (i // 8) % 8 OR i >= ${N - 4} THEN NULL ELSE (i % 977)::BIGINT * 1000000007 END AS big,
    CASE WHEN ((i // 4000) % 3 = 1 AND i % 9 = 0) OR i >= ${N - 4} THEN NULL ELSE DATE '2020-01-01' + (i % 700)::INTEGER END AS d,
    CASE WHEN hash(i * 5) % 4 = 0 OR i >= ${N - 4} THEN NULL ELSE ((i * 7919) % 6007)::INTEGER END AS wide,
    CASE WHEN hash(i * 11) % 6 = 0 OR i >= ${N - 4} THEN NULL ELSE (i % 2)::INTEGER END AS b1,
    CASE WHEN i % 11 = 5 OR i >= ${N - 4} THEN NULL ELSE 'run' || (i // 40 % 200) END AS rl,
    CASE WHEN hash(i * 13) % 6 = 0 OR i >= ${N - 4} THEN NULL ELSE ((i // (1 + (i // 997) % 25)) % 300)::INTEGER END AS ri,
    CASE WHEN hash(i * 17) % 4 = 0 OR i >= ${N - 4} THEN NULL ELSE ((i // (1 + (i // 1231) % 40)) % 700) / 7.0 END AS rv
  FROM range(${N}) t(i)`;
const fx = duckdbParquetFixture('parquet-ranked-pick', select, 'ROW_GROUP_SIZE 10007');

const QUERIES = [
  // The bench's shape: grouped by dictionary codes read without their NULL flags (-1 is NULL).
  `SELECT s, count(*), count(name), sum(v) FROM read_parquet('$F') WHERE f < 500 GROUP BY s ORDER BY s`,
  `SELECT count(*), count(k), count(v), count(s), count(name), count(big), count(d) FROM read_parquet('$F') WHERE id >= ${N - 400} AND f >= 100`,
  `SELECT s, count(*), count(name), sum(v), sum(k), min(big), CAST(max(d) AS VARCHAR) FROM read_parquet('$F') WHERE f < 500 GROUP BY s ORDER BY s`,
  `SELECT count(*), count(k), count(v), count(s), count(big), count(d), sum(k), min(v), max(name) FROM read_parquet('$F') WHERE f < 125`,
  `SELECT count(*), count(v), sum(k), sum(big) FROM read_parquet('$F') WHERE f >= 20`,
  `SELECT id, k, v, s, name, big, CAST(d AS VARCHAR) FROM read_parquet('$F') WHERE f < 300 AND id % 97 = 5 ORDER BY id`,
  `SELECT name, count(*), sum(v) FROM read_parquet('$F') WHERE f BETWEEN 100 AND 700 GROUP BY name ORDER BY name LIMIT 40`,
  `SELECT CAST(d AS VARCHAR), count(*) FROM read_parquet('$F') WHERE f % 3 = 1 AND d IS NOT NULL GROUP BY d ORDER BY d LIMIT 30`,
  // 13-bit (in one row group of the whole file) and 1-bit indexes; text in runs of 40 equal values (RLE runs among the indexes).
  `SELECT count(wide), sum(wide), min(wide), max(wide), count(b1), sum(b1), count(rl), min(rl), max(rl) FROM read_parquet('$F') WHERE f < 600`,
  `SELECT rl, count(*), count(wide), sum(b1) FROM read_parquet('$F') WHERE f >= 250 GROUP BY rl ORDER BY rl LIMIT 50`,
  // Int and double in runs of 1 to 25 and 1 to 40 equal values (pages of RLE runs picked a run at a
  // time, pages of short runs left to the pickers by rank), text in runs grouped.
  `SELECT count(ri), sum(ri), min(ri), max(ri), count(rv), sum(rv), min(rv), max(rv), count(rl) FROM read_parquet('$F') WHERE f < 600`,
  `SELECT rl, count(*), count(ri), sum(ri), count(rv), sum(rv) FROM read_parquet('$F') WHERE f % 4 <> 1 GROUP BY rl ORDER BY rl LIMIT 60`,
  `SELECT id, ri, rv, rl FROM read_parquet('$F') WHERE f < 900 AND id % 53 = 7 ORDER BY id`,
];

const castSums = (sql: string): string => sql.replace(/sum\((k|big|wide|b1|ri)\)/g, 'CAST(sum($1) AS BIGINT)');
// Sums of doubles in another order differ in their last bits: compared to 12 digits.
const digits = (rows: unknown[][]): unknown[][] => rows.map((r) => r.map((x) => (typeof x === 'number' && !Number.isInteger(x) ? Number(x.toPrecision(12)) : x)));

async function check(q: string, file: string): Promise<void> {
  const sql = castSums(q.replaceAll('$F', file));
  const got = digits(await fx.quire(sql));
  expect(got.length).toBeGreaterThan(0);
  expect(got, 'against DuckDB').toEqual(digits(await fx.duckdb(sql)));
  expect(digits(await fx.unpushed(() => fx.quire(sql))), 'without the pushdown').toEqual(got);
}

describe('read_parquet picks filtered rows of columns with NULLs of their own by rank', () => {
  for (const q of QUERIES) {
    it(q.replace(`'$F'`, '…'), async () => {
      await check(q, fx.file);
    });
  }

  it('version 2 pages and row groups of another length answer the same', async () => {
    for (const options of ['ROW_GROUP_SIZE 10007, PARQUET_VERSION V2', 'ROW_GROUP_SIZE 4093', 'ROW_GROUP_SIZE 60000']) {
      const f = join(fx.dir, `${options.replace(/\W+/g, '_')}.parquet`);
      await fx.duck.run(`COPY (${select}) TO '${f}' (FORMAT parquet, ${options})`);
      for (const q of QUERIES) await check(q, f);
    }
  });
});

/**
 * One row group of 64 rows: f (REQUIRED INT32, PLAIN), a permutation of 0..63, and k (OPTIONAL INT32,
 * dictionary [10, 20, 30]), NULL on rows i % 5 = 2, whose 51 present rows' indexes (bit width 2) are
 * the RLE / bit-packed hybrid `hybrid`.
 */
const ROWS = 64;
const fOf = (i: number): number => (i * 37) % ROWS;
const kNull = (i: number): boolean => i % 5 === 2;
function writeK(path: string, hybrid: number[]): void {
  writeInt32File(path, ROWS, [
    { name: 'f', values: Array.from({ length: ROWS }, (_, i) => fOf(i)) },
    { name: 'k', nulls: Array.from({ length: ROWS }, (_, i) => kNull(i)), dictionary: { entries: [10, 20, 30], width: 2, hybrid } },
  ]);
}

describe('read_parquet refuses an index past its dictionary in a column picked by rank', () => {
  const present = Array.from({ length: ROWS }, (_, i) => i).filter((i) => !kNull(i));
  const valid = present.map((i) => (i * 7) % 3);
  // One bit-packed run of 7 groups (the last one padded): the indexes read at their ranks in the packed bits.
  const packed = (values: number[]): number[] => {
    const bytes = new Array<number>(14).fill(0);
    values.forEach((v, r) => {
      for (let bit = 0; bit < 2; bit++) if ((v >> bit) & 1) bytes[(r * 2 + bit) >> 3]! |= 1 << ((r * 2 + bit) & 7);
    });
    return [7 * 2 + 1, ...bytes];
  };
  // The rank of the last present row the filter keeps.
  const wantedRank = present.findLastIndex((i) => fOf(i) < 40);
  const cases: [string, number[]][] = [
    ['a valid page', packed(valid)],
    ['bit-packed, at a wanted row', packed(valid.map((v, r) => (r === wantedRank ? 3 : v)))],
    ['an RLE run', [present.length * 2, 3]],
  ];
  for (const [what, hybrid] of cases) {
    it(what, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'quire-parquet-corrupt-'));
      try {
        const file = join(dir, 'k.parquet');
        writeK(file, hybrid);
        const db = await Database.create();
        const q = db.query(`SELECT count(*), count(k), sum(k) FROM read_parquet('${file}') WHERE f < 40`);
        if (what === 'a valid page') {
          const kept = present.map((i, r) => (fOf(i) < 40 ? [10, 20, 30][valid[r]!]! : -1)).filter((x) => x >= 0);
          const rows = Array.from({ length: ROWS }, (_, i) => i).filter((i) => fOf(i) < 40).length;
          expect((await q).rows.map((r) => r.map(Number))).toEqual([[rows, kept.length, kept.reduce((a, b) => a + b, 0)]]);
        } else await expect(q).rejects.toMatchObject({ code: 'XX001', message: expect.stringContaining('dictionary index out of range') });
        await db.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
