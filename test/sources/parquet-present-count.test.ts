/**
 * Columns with NULLs read at the rows a filter kept: between two kept rows the picker counts the
 * present rows it passes over (four NULL flags to a 32-bit word, a byte at a time at the ends), so a
 * row's value is found at the right place in its page's encoded values. Every density of NULLs (none,
 * every 2nd, 3rd, 7th, 50th and 1000th row, runs of 300, whole row groups) against gaps between kept
 * rows of every length: 1 to 20 rows (shorter than the word path, and across word boundaries at every
 * alignment), hundreds (more than 63 words summed at once) and thousands, and kept rows that are
 * themselves NULL; and NULLs in no pattern, so definition levels take every byte value. Dictionary and PLAIN integers, doubles and text, and the NULL flags alone; answers
 * equal to DuckDB's over the same file and to Quire's own without the pushdown.
 */
import { describe, expect, it } from 'vitest';
import { duckdbParquetFixture } from './duckdb-parquet-fixture.js';

const N = 50_000;
/** NULL densities as conditions on the row number i. */
const DENSITIES: Record<string, string> = {
  d0: 'false',
  d2: 'i % 2 = 1',
  d3: 'i % 3 = 0',
  d7: 'i % 7 = 3',
  d50: 'i % 50 = 17',
  d1000: 'i % 1000 = 999',
  runs: '(i // 300) % 2 = 1',
  group: 'i >= 20000 AND i < 30000',
  // Pseudo-random: every pattern of 8 rows' definition levels (all 256 bytes) occurs.
  mixed: 'hash(i) % 2 = 1',
};
const names = Object.keys(DENSITIES);

const fx = duckdbParquetFixture(
  'parquet-present-count',
  `SELECT i::INTEGER AS id, (i % 997)::INTEGER AS m,
     ${names
       .map((p) => {
         const c = DENSITIES[p]!;
         return [
           `CASE WHEN ${c} THEN NULL ELSE ((i * 13) % 1000)::INTEGER END AS k_${p}`,
           `CASE WHEN ${c} THEN NULL ELSE ((i * 7919) % 10007) / 64.0 END::DOUBLE AS v_${p}`,
           `CASE WHEN ${c} THEN NULL ELSE i * 3 END::BIGINT AS p_${p}`,
           `CASE WHEN ${c} THEN NULL ELSE 'cat' || (i % 17) END AS s_${p}`,
           `CASE WHEN ${c} THEN NULL ELSE 'u' || i END AS u_${p}`,
         ].join(', ');
       })
       .join(', ')}
   FROM range(${N}) t(i)`,
  'ROW_GROUP_SIZE 12000',
);

/** Kept rows with gaps of every length: short ones at every alignment, and long ones. */
const FILTERS = [
  // Gaps of 1 to 20 rows between single kept rows, cycling through every offset within a word.
  'id % 21 = 5',
  'id % 17 IN (0, 3)',
  // Gaps of 990 and more rows (hundreds of words each), one kept row at a time.
  'm = 500',
  // Stretches of 3 kept rows with gaps of 994.
  'm < 3',
  // Gaps of 4,000 rows, and kept rows on both sides of a row group's edge.
  'id % 4001 = 7 OR id BETWEEN 11990 AND 12010',
];

describe('read_parquet counts the present rows between the rows it picks', () => {
  for (const w of FILTERS) {
    it(`rows where ${w}, every density`, async () => {
      const cols = names.map((p) => `k_${p}, v_${p}, p_${p}, s_${p}, u_${p}`).join(', ');
      const got = await fx.sameAsDuckDbAndUnpushed(`SELECT id, ${cols} FROM read_parquet('$F') WHERE ${w} ORDER BY id`);
      expect(got.length).toBeGreaterThan(5);
    });
    it(`counts and sums where ${w}, every density`, async () => {
      const cols = names.map((p) => `count(k_${p}), count(s_${p}), count(u_${p}), sum(v_${p}), sum(p_${p})`).join(', ');
      await fx.sameAsDuckDbAndUnpushed(`SELECT count(*), ${cols} FROM read_parquet('$F') WHERE ${w}`, (sql) => sql.replace(/sum\(p_(\w+)\)/g, 'CAST(sum(p_$1) AS BIGINT)'));
    });
  }

  it.each(names)('density %s: a filter over the column itself, with gaps of every length between kept rows', async (p) => {
    for (const w of [`k_${p} % 19 = 4`, `k_${p} < 3`, `k_${p} >= 990 OR k_${p} IS NULL`, `v_${p} > 150 AND m < 400`]) {
      await fx.sameAsDuckDbAndUnpushed(`SELECT id, k_${p}, v_${p}, p_${p}, s_${p}, u_${p} FROM read_parquet('$F') WHERE ${w} ORDER BY id`);
    }
  });

  it('NULL flags of picked rows kept by a join and a sort while later row groups are decoded', async () => {
    // Each column's flags are made in a scratch shared by every chunk: what a batch holds must be its own copy.
    await fx.sameAsDuckDbAndUnpushed(
      `SELECT a.id, a.v_d7, a.s_d3, b.k_d2, b.u_d50 FROM read_parquet('$F') a JOIN read_parquet('$F') b ON a.id = b.id + 1
       WHERE a.id % 21 = 5 AND b.m < 600 ORDER BY a.id`,
    );
    await fx.sameAsDuckDbAndUnpushed(`SELECT id, v_d2, s_d7, k_runs FROM read_parquet('$F') WHERE id % 17 IN (0, 3) ORDER BY s_d7 NULLS FIRST, v_d2 NULLS LAST, id`);
  });

  it('a column whose NULLs take every pattern of 8 rows, read whole', async () => {
    const sql = `SELECT id, k_mixed, v_mixed, s_mixed, u_mixed FROM read_parquet('$F') ORDER BY id`;
    const got = await fx.sameAsDuckDbAndUnpushed(sql);
    const bytes = new Set<number>();
    for (let i = 0; i + 8 <= got.length; i += 8) {
      let b = 0;
      for (let k = 0; k < 8; k++) if (got[i + k]![1] !== null) b |= 1 << k;
      bytes.add(b);
    }
    expect(bytes.size).toBe(256);
  });

  it('the file has the encodings the cases are about', async () => {
    const enc = async (col: string): Promise<string> =>
      ((await fx.duckdb(`SELECT string_agg(DISTINCT encodings, ',') FROM parquet_metadata('${fx.file}') WHERE path_in_schema = '${col}'`))[0]![0] as string) ?? '';
    expect(await enc('k_d7')).toContain('DICTIONARY');
    expect(await enc('s_d7')).toContain('DICTIONARY');
    expect(await enc('u_d7')).toMatch(/PLAIN/);
    expect(await enc('p_d7')).toMatch(/PLAIN/);
  });
});
