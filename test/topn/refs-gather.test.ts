/**
 * The row-reference Top-N gathers its kept rows from the retained input batches in reference order and
 * scatters them to their output positions (topn-ranking-refs.ts, gatherRefs); indexed by key value, it
 * writes the key column from the partition order instead of reading it. Covered: rows spread over many
 * batches, text columns (with and without dictionary codes) and NULLs present in some batches only,
 * int keys in range, negative, large and NULL (the value index given up mid-stream), k larger than the
 * partitions, and ties broken by a second key. Results are checked against PGlite.
 */
import { describe, expect, it } from 'vitest';
import { agreementSuite } from '../harness/agree.js';

const ROWS = 50_000;

function setup(): string[] {
  return [
    'CREATE TABLE rg (id int, p int, q int, r int, big int, v float8, w int, s text, t text)',
    // p: 20,000 small keys (~2.5 rows each); q: negatives from row 30,001; r: NULL keys from row 25,001;
    // big: values past the value index's limit from row 40,001; v: halves with ties; s: NULL only in the
    // last batches; t: few distinct strings.
    `INSERT INTO rg SELECT i,
       (i * 7919) % 20000,
       CASE WHEN i > 30000 THEN -((i * 31) % 9001) ELSE (i * 31) % 9001 END,
       CASE WHEN i > 25000 AND i % 5 = 0 THEN NULL ELSE (i * 13) % 15013 END,
       CASE WHEN i > 40000 THEN 2000000000 - (i % 7001) ELSE (i * 17) % 14009 END,
       ((CAST(i AS bigint) * 104729) % 1999) / 2.0,
       (i * 37) % 4,
       CASE WHEN i > 45000 AND i % 3 = 0 THEN NULL ELSE 's' || ((i * 11) % 50000) END,
       't' || (i % 7)
     FROM generate_series(1, ${ROWS}) AS g(i)`,
  ];
}

describe('per-partition Top-N: kept rows gathered from the retained batches', () => {
  const { agree, quire } = agreementSuite(setup);
  const topn = (key: string, order: string, k: number): string =>
    `SELECT ${key} AS key, id, v, s, t, rn FROM (SELECT ${key}, id, v, s, t, row_number() OVER (PARTITION BY ${key} ORDER BY ${order}) AS rn FROM rg) x WHERE rn <= ${k} ORDER BY 1 NULLS LAST, rn`;

  it('agrees with PostgreSQL for keys in range, negative, NULL and large keys, ties and k past the partition size', async () => {
    const queries: string[] = [];
    for (const key of ['p', 'q', 'r', 'big']) {
      for (const k of [1, 3, 12]) queries.push(topn(key, 'v, id', k));
      queries.push(topn(key, 'w DESC, v, id DESC', 2));
    }
    // Row numbers among ties are PostgreSQL's choice: with ties on w alone only the kept count per key is determined.
    queries.push('SELECT p, count(*) FROM (SELECT p, row_number() OVER (PARTITION BY p ORDER BY w) AS rn FROM rg) x WHERE rn <= 2 GROUP BY p ORDER BY p');
    // Without an outer ORDER BY the rows come in the Window's order: key ascending, then row number.
    queries.push('SELECT p, id, rn FROM (SELECT p, id, row_number() OVER (PARTITION BY p ORDER BY v, id) AS rn FROM rg) x WHERE rn <= 2');
    await agree(queries);
  }, 600_000);

  it('takes the row-reference store, indexed by key value for keys in range only', async () => {
    const analyze = async (sql: string): Promise<string> => (await quire().query(`EXPLAIN (FORMAT QUIRE, ANALYZE) ${sql}`)).rows.map((r) => r[0]).join('\n');
    expect(await analyze(topn('p', 'v, id', 3))).toMatch(/TopNRanking[^\n]*partitions=20000 [^\n]*store=row refs \(\d+ compactions, indexed by key value\)/);
    for (const key of ['q', 'r', 'big']) {
      const out = await analyze(topn(key, 'v, id', 3));
      expect(out).toMatch(/store=row refs \(\d+ compactions\)/);
      expect(out).not.toMatch(/indexed by key value/);
    }
  }, 300_000);
});
