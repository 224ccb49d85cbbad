/**
 * A window reuses the order its input already has: operators declare their output ordering
 * (PhysicalOperator.outputOrdering) and the window planner skips its own sort when that ordering serves
 * the window. Checked both ways: the plan has no second sort, and the rows equal PostgreSQL's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteAndQuire, rowsText, type SqlConnection } from '../harness/connection.js';
import { rng } from './window-gen.js';

const ROWS = 2000;

function setupSql(): string[] {
  const r = rng(4242);
  const vals: string[] = [];
  for (let id = 1; id <= ROWS; id++) {
    const g = r.chance(0.05) ? 'NULL' : String(r.int(9));
    const v = r.chance(0.05) ? 'NULL' : String(r.int(300) - 150);
    const s = r.chance(0.05) ? 'NULL' : `'k${r.int(40)}'`;
    vals.push(`(${id}, ${g}, ${v}, ${s})`);
  }
  return ['CREATE TABLE o (id int, g int, v int, s text)', `INSERT INTO o VALUES ${vals.join(', ')}`];
}

/** [query, how many sorts its plan may have]. Each window's order is served by the subquery's. */
const CASES: [string, number][] = [
  // Filter above the subquery's sort.
  ['SELECT id, row_number() OVER (ORDER BY v, id), sum(v) OVER (ORDER BY v, id) FROM (SELECT * FROM o ORDER BY v, id) x WHERE g > 2 ORDER BY id', 2],
  // Project that drops and reorders columns.
  ['SELECT id, rank() OVER (PARTITION BY g ORDER BY v) FROM (SELECT v, id, g FROM (SELECT * FROM o ORDER BY g, v, id) y) x ORDER BY id', 2],
  // Limit over the sort (a TopN).
  ['SELECT id, v, dense_rank() OVER (ORDER BY v NULLS FIRST) FROM (SELECT * FROM o ORDER BY v NULLS FIRST, id LIMIT 300) x ORDER BY id', 2],
  // Text keys with NULLs, DESC.
  ['SELECT id, count(*) OVER (PARTITION BY s ORDER BY id DESC ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) FROM (SELECT * FROM o ORDER BY s, id DESC) x WHERE v IS NOT NULL ORDER BY id', 2],
  // An order that does not serve the window: the window must still sort.
  ['SELECT id, row_number() OVER (ORDER BY g, id) FROM (SELECT * FROM o ORDER BY v, id) x ORDER BY id', 3],
];

describe('windows over ordered inputs vs PostgreSQL', () => {
  let pg: SqlConnection;
  let q: SqlConnection;
  beforeAll(async () => {
    ({ pg, q } = await pgliteAndQuire(setupSql()));
  }, 120_000);
  afterAll(async () => {
    await pg.close?.();
    await q.close?.();
  });

  for (const [sql, sorts] of CASES) {
    it(sql, async () => {
      expect(await rowsText(q, sql)).toBe(await rowsText(pg, sql));
      const plan = await rowsText(q, `EXPLAIN (FORMAT QUIRE) ${sql}`);
      expect(plan.match(/\b(Sort|TopN) \(keys/g)?.length ?? 0).toBe(sorts);
    }, 60_000);
  }
});
