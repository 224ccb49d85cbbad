/**
 * The row-reference Top-N indexing partitions by the int key's own value (topn-ranking-value-index.ts):
 * small non-negative keys throughout, and keys that leave that range mid-stream (a negative, a NULL, a
 * value past the limit), where the partitions seen so far are renumbered to dense ids and the run goes
 * on; int2 keys, sparse keys, ties broken by arrival, k larger than a partition, and a memory limit
 * that the value-indexed tables would not fit. Results are checked against PGlite.
 */
import { describe, expect, it } from 'vitest';
import { agreementSuite } from '../harness/agree.js';

const ROWS = 80_000;

function setup(): string[] {
  return [
    'CREATE TABLE vi (id int, a int, b int, c int, d int, e smallint, s int, v float8, w int)',
    `INSERT INTO vi SELECT i,
       (i * 7919) % 20011,
       CASE WHEN i > 40000 THEN (i * 31) % 5003 - 2500 ELSE (i * 31) % 5003 END,
       CASE WHEN i > 50000 AND i % 13 = 0 THEN NULL ELSE (i * 17) % 3001 END,
       CASE WHEN i > 60000 AND i % 7 = 0 THEN 2000000000 - (i % 11) ELSE (i * 13) % 4001 END,
       CAST((i * 3) % 3000 AS smallint),
       ((i * 7919) % 20000) * 3,
       ((CAST(i AS bigint) * 104729) % 2003) / 4.0,
       (i * 37) % 5
     FROM generate_series(1, ${ROWS}) AS g(i)`,
  ];
}

describe('per-partition Top-N: partitions indexed by the key value', () => {
  const { agree, quire } = agreementSuite(setup);
  const analyze = async (sql: string): Promise<string> => (await quire().query(`EXPLAIN (FORMAT QUIRE, ANALYZE) ${sql}`)).rows.map((r) => r[0]).join('\n');
  const topn = (key: string, order: string, k: number, cmp = '<='): string =>
    `SELECT ${key} AS key, id, rn FROM (SELECT ${key}, id, row_number() OVER (PARTITION BY ${key} ORDER BY ${order}) AS rn FROM vi) x WHERE rn ${cmp} ${k} ORDER BY 1 NULLS LAST, rn`;

  it('agrees with PostgreSQL for keys in range, keys leaving it mid-stream, int2 and sparse keys', async () => {
    const queries: string[] = [];
    for (const key of ['a', 'b', 'c', 'd', 'e', 's']) {
      for (const order of ['v, id', 'w, v DESC, id']) {
        for (const k of [1, 3, 16]) queries.push(topn(key, order, k));
      }
    }
    // Row numbers among ties are PostgreSQL's choice: with ties on w alone only the kept count per key is determined.
    queries.push(`SELECT a, count(*) FROM (SELECT a, row_number() OVER (PARTITION BY a ORDER BY w) AS rn FROM vi) x WHERE rn <= 2 GROUP BY a ORDER BY a`);
    queries.push(topn('a', 'v, id', 1, '='));
    await agree(queries);
  }, 600_000);

  it('indexes by value while keys allow and says so; leaving the range keeps the answer and the partition count', async () => {
    const inRange = await analyze(topn('a', 'v, id', 3));
    expect(inRange).toMatch(/TopNRanking[^\n]*partitions=20011 [^\n]*store=row refs \(\d+ compactions, indexed by key value\)/);
    for (const key of ['b', 'c', 'd']) {
      const out = await analyze(topn(key, 'v, id', 3));
      expect(out).toMatch(/TopNRanking[^\n]*store=row refs \(\d+ compactions\)/);
      expect(out).not.toMatch(/indexed by key value/);
    }
    // b: 0..5002, then -2500..2502 (the negatives are new partitions); c: 0..3000 and NULL; d: 0..4000 and 11 large values.
    expect(await analyze(topn('b', 'v, id', 3))).toMatch(/partitions=7503 /);
    expect(await analyze(topn('c', 'v, id', 3))).toMatch(/partitions=3002 /);
    expect(await analyze(topn('d', 'v, id', 3))).toMatch(/partitions=4012 /);
  }, 300_000);

  it('under a memory limit the value-indexed tables do not fit, falls back to dense ids with the same answer', async () => {
    const q = quire();
    // s: 20,000 values spread over 0..59,997: value-indexed tables of 65,536 partitions (~12 MB at k = 8), dense ones of 32,768.
    const sql = topn('s', 'v DESC, id', 8);
    await q.query("SET quire.derive_topn = 'on'");
    try {
      const want = (await q.query(sql)).rows;
      expect(await analyze(sql)).toMatch(/indexed by key value/);
      await q.query("SET memory_limit = '11MB'");
      expect((await q.query(sql)).rows).toEqual(want);
      expect(await analyze(sql)).toMatch(/TopNRanking[^\n]*partitions=20000 [^\n]*store=row refs \(\d+ compactions\)/);
    } finally {
      await q.query('RESET memory_limit');
      await q.query('RESET quire.derive_topn');
    }
  }, 300_000);
});
