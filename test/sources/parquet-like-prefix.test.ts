/**
 * LIKE 'prefix%' over read_parquet prunes row groups by the column's statistics as the range
 * [prefix, prefix with its last character incremented). Answers must equal DuckDB's and Quire's own
 * without the pushdown, for prefixes that keep some, all or no row groups, escapes, wildcards, NOT
 * LIKE and ILIKE (not pruned), non-ASCII prefixes (not pruned) and non-ASCII values beside ASCII ones.
 */
import { describe, expect, it } from 'vitest';
import { likePrefixRange } from '../../src/storage/table-functions/read-parquet.js';
import { duckdbParquetFixture } from './duckdb-parquet-fixture.js';

// Sorted text in 1,000-row groups, so statistics separate the prefixes; NULLs and non-ASCII values.
const fx = duckdbParquetFixture(
  'like-prefix',
  `SELECT i AS id, CASE WHEN i % 11 = 5 THEN NULL
                        WHEN i % 97 = 3 THEN 'é' || i
                        WHEN i % 89 = 4 THEN 'user~' || i
                        ELSE 'user-' || lpad(CAST(i AS VARCHAR), 5, '0') || CASE WHEN i % 7 = 0 THEN '_x' ELSE '' END END AS u
     FROM range(8000) t(i) ORDER BY u NULLS LAST`,
  'ROW_GROUP_SIZE 1000',
);

describe('LIKE prefix pruning in read_parquet', () => {
  it('keeps the rows LIKE keeps', async () => {
    for (const p of ['user-0%', 'user-01%', 'user-0799%', 'user-07%x', 'user-0_1%', 'user-%', 'user%', 'u%', 'user-99%', 'zzz%', 'user~%', 'é%', 'user-00007\\_x', 'user-0000%\\_x', '%x', 'user-00014_x', 'user-00014']) {
      const q = `SELECT count(*), min(u), max(u), count(DISTINCT id) FROM read_parquet('$F') WHERE u LIKE '${p}'`;
      if (p.includes('\\')) {
        // DuckDB's LIKE has no escape character unless given one; PostgreSQL's is the backslash.
        const sql = q.replaceAll('$F', fx.file);
        const got = await fx.quire(sql);
        expect(got[0]![0], p).toBeGreaterThan(0);
        expect(await fx.unpushed(() => fx.quire(sql)), p).toEqual(got);
        continue;
      }
      expect((await fx.sameAsDuckDbAndUnpushed(q)).length).toBe(1);
      await fx.sameAsDuckDbAndUnpushed(`SELECT count(*) FROM read_parquet('$F') WHERE u NOT LIKE '${p}'`);
      await fx.sameAsDuckDbAndUnpushed(`SELECT count(*) FROM read_parquet('$F') WHERE u ILIKE '${p.toUpperCase()}'`);
    }
  });

  it('prunes: EXPLAIN shows the range; a prefix no group holds reads none', async () => {
    const plan = (await fx.db.query(`EXPLAIN SELECT count(*) FROM read_parquet('${fx.file}') WHERE u LIKE 'user-07%'`)).rows.map((r) => String(r[0])).join('\n');
    expect(plan).toContain(`u >= 'user-07' AND u < 'user-08'`);
    const none = (await fx.db.query(`EXPLAIN SELECT count(*) FROM read_parquet('${fx.file}') WHERE u LIKE 'é%'`)).rows.map((r) => String(r[0])).join('\n');
    expect(none).not.toContain('row group filter');
  });

  it('computes the range of a pattern', () => {
    expect(likePrefixRange('abc%')).toEqual({ lo: 'abc', hi: 'abd' });
    expect(likePrefixRange('ab_c%')).toEqual({ lo: 'ab', hi: 'ac' });
    expect(likePrefixRange('a\\%b%')).toEqual({ lo: 'a%b', hi: 'a%c' });
    expect(likePrefixRange('a~~%')).toEqual({ lo: 'a~~', hi: 'b' });
    expect(likePrefixRange('~%')).toEqual({ lo: '~', hi: null });
    expect(likePrefixRange('%abc')).toBeNull();
    expect(likePrefixRange('é%')).toBeNull();
    expect(likePrefixRange('ab\\')).toBeNull();
    expect(likePrefixRange('exact')).toEqual({ lo: 'exact', hi: 'exacu' });
  });
});
