/**
 * sum/avg of intervals over moving frames hold the finite values' sum beside counts of infinities, and
 * remove the rows leaving a frame before adding those entering it, as PostgreSQL does: a frame's result
 * never depends on a row it no longer holds, and sums near the interval range do not overflow on the way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeText, pgliteAndQuire, type SqlConnection } from '../harness/connection.js';

const VALUES = `(VALUES (1, NULL::interval), (2, 'infinity'), (3, '-2147483648 days -2147483648 months -9223372036854775807 usecs'),
  (4, '-infinity'), (5, '2147483647 days 2147483647 months 9223372036854775806 usecs'), (6, 'infinity'), (7, '6 days'),
  (8, '7 days'), (9, NULL), (10, '-infinity'), (11, '1 mon 2 days 03:04:05'), (12, '-1 day'), (13, '2 hours')) v(i, x)`;

const FRAMES = [
  'ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING',
  'ROWS BETWEEN 1 PRECEDING AND CURRENT ROW',
  'ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING',
  'ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING',
  'ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING',
];

describe('interval sum/avg over moving frames, against PostgreSQL', () => {
  let pg: SqlConnection;
  let q: SqlConnection;
  beforeAll(async () => {
    ({ pg, q } = await pgliteAndQuire([]));
  }, 60_000);
  afterAll(async () => {
    await pg?.close?.();
    await q?.close?.();
  });
  it.each(FRAMES)('%s', async (frame) => {
    for (const agg of ['sum', 'avg']) {
      const sql = `SELECT i, x, ${agg}(x) OVER (ORDER BY i ${frame}) FROM ${VALUES} ORDER BY i`;
      expect(await outcomeText(q, sql), sql).toBe(await outcomeText(pg, sql));
    }
  });
  it('both infinities in one frame are out of range, as in PostgreSQL', async () => {
    const sql = `SELECT sum(x) OVER (ORDER BY i ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING) FROM ${VALUES}`;
    const want = await outcomeText(pg, sql);
    expect(want).toMatch(/^ERROR 22008/);
    expect(await outcomeText(q, sql)).toBe(want);
  });
});
