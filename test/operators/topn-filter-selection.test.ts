/**
 * ORDER BY … LIMIT over a WHERE clause: the Top-N heap reads the filter's selection over the unchanged
 * input batches (topn.ts, consumeSelected) instead of the rows gathered into batches of their own. The
 * seek page of a cursor (WHERE id > $last ORDER BY id LIMIT n), both directions, NULL and NaN keys, ties
 * (WITH TIES and OFFSET), columns only the filter reads, keys that the prefilter does not read (text, bigint: they take the gathered
 * batch), a filter passing every row or none, and rows spread over many input batches. Checked against
 * PGlite.
 */
import { describe, expect, it } from 'vitest';
import { agreementSuite } from '../harness/agree.js';

const ROWS = 30_000;

function setup(): string[] {
  return [
    'CREATE TABLE ts (id int, k int, f float8, s text, b bigint, d int)',
    // id: a permutation of 1..ROWS (a seek walks it out of order); k: few values, NULL every 97th row;
    // d: duplicates without NULLs; f: halves with duplicates, NaN every 211th row, NULL every 89th; s: short text; b: bigint.
    `INSERT INTO ts SELECT (i * 7919) % ${ROWS} + 1,
       CASE WHEN i % 97 = 0 THEN NULL ELSE (i * 31) % 500 - 250 END,
       CASE WHEN i % 211 = 0 THEN 'NaN'::float8 WHEN i % 89 = 0 THEN NULL ELSE ((CAST(i AS bigint) * 104729) % 4001) / 2.0 END,
       'v' || ((i * 13) % 1000),
       CAST(i AS bigint) * 3000000000 % 7000000000001,
       (i * 17) % 300
     FROM generate_series(1, ${ROWS}) AS g(i)`,
  ];
}

describe('Top-N over a filter reads its selection', () => {
  const { agree, quire } = agreementSuite(setup);

  it('agrees with PostgreSQL on seek pages, ties, NULL / NaN keys and keys the prefilter does not read', async () => {
    const queries: string[] = [];
    for (const last of [0, 1, 13_500, 27_000, 29_950, 29_999, 30_000]) {
      queries.push(`SELECT * FROM ts WHERE id > ${last} ORDER BY id LIMIT 100`);
      queries.push(`SELECT * FROM ts WHERE id < ${last} ORDER BY id DESC LIMIT 7`);
    }
    queries.push(
      'SELECT id, k FROM ts WHERE k > 100 ORDER BY k, id LIMIT 50',
      'SELECT id, k FROM ts WHERE k > 100 OR k IS NULL ORDER BY k NULLS FIRST, id LIMIT 40',
      'SELECT id, k FROM ts WHERE id % 3 = 0 ORDER BY k DESC, id LIMIT 60',
      'SELECT id, k FROM ts WHERE id % 3 = 0 ORDER BY k DESC NULLS LAST, id LIMIT 60 OFFSET 25',
      'SELECT * FROM (SELECT id, k FROM ts WHERE id % 5 <> 0 ORDER BY k FETCH FIRST 5 ROWS WITH TIES) x ORDER BY k, id',
      'SELECT * FROM (SELECT id, k FROM ts WHERE id % 5 <> 0 ORDER BY k DESC FETCH FIRST 130 ROWS WITH TIES) x ORDER BY k, id',
      'SELECT * FROM (SELECT id, d FROM ts WHERE id > 500 ORDER BY d FETCH FIRST 3 ROWS WITH TIES) x ORDER BY d, id',
      'SELECT * FROM (SELECT id, d FROM ts WHERE id > 500 ORDER BY d DESC FETCH FIRST 150 ROWS WITH TIES) x ORDER BY d, id',
      'SELECT id, d FROM ts WHERE id > 500 ORDER BY d, id LIMIT 20 OFFSET 90',
      'SELECT id, f FROM ts WHERE id > 1000 ORDER BY f DESC, id LIMIT 30',
      'SELECT id, f FROM ts WHERE id > 1000 ORDER BY f, id LIMIT 30',
      'SELECT id, f FROM ts WHERE f > 1990 OR f IS NULL ORDER BY f NULLS FIRST, id LIMIT 30',
      'SELECT id, s FROM ts WHERE id > 20000 ORDER BY s, id LIMIT 25',
      'SELECT id, b FROM ts WHERE id > 20000 ORDER BY b DESC, id LIMIT 25',
      // Columns only the filter reads (left out of the rows the heap copies).
      "SELECT id FROM ts WHERE s > 'v5' ORDER BY id LIMIT 20",
      'SELECT id, k FROM ts WHERE f > 100 AND b > 0 ORDER BY k DESC, id LIMIT 15',
      // Every row passes (the batches go in whole), none does, fewer than the limit do.
      'SELECT id FROM ts WHERE id > -1 ORDER BY id LIMIT 10',
      'SELECT id FROM ts WHERE id > 40000 ORDER BY id LIMIT 10',
      'SELECT id, k FROM ts WHERE k = 7 ORDER BY id LIMIT 1000',
    );
    await agree(queries);
  }, 300_000);

  it('keeps the filter below the Top-N and reports its rows', async () => {
    const plan = (await quire().query('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT * FROM ts WHERE id > 27000 ORDER BY id LIMIT 100')).rows.map((r) => String(r[0]));
    const text = plan.join('\n');
    expect(text).toMatch(/Limit/);
    expect(text).toMatch(/Filter: \(id > 27000\)/);
    expect(text).toMatch(/Rows Removed by Filter: 27000/);
  }, 60_000);
});
