/**
 * Differential tests (PGlite) for windows whose functions ignore peer groups (row_number, lag, lead,
 * ntile, ROWS frames without EXCLUDE GROUP / TIES): the Window then skips comparing ORDER BY keys. Ties,
 * NULL keys, DESC / NULLS FIRST orders, one partition, every row its own partition, and the same window
 * shared with functions that do read peers (rank, RANGE frames, EXCLUDE TIES) all have to agree with
 * PostgreSQL. Where tied rows may come in any order, the query reads only what ties cannot change.
 */
import { describe, it } from 'vitest';
import { agreementSuite } from '../harness/agree.js';
import { rng } from '../common/pg-helper.js';

const ROWS = 5000;

function setupSql(seed: number): string[] {
  const r = rng(seed);
  const vals: string[] = [];
  for (let i = 1; i <= ROWS; i++) {
    const g = r() < 0.03 ? 'NULL' : String(Math.floor(r() * 40));
    // k: many ties and some NULLs; q: multiples of 1/8, exact in any summation order.
    const k = r() < 0.05 ? 'NULL' : String(Math.floor(r() * 25));
    const q = r() < 0.05 ? 'NULL' : (Math.floor(r() * 800 - 200) / 8).toString();
    const s = r() < 0.05 ? 'NULL' : `'${['é', 'zeta', '日本', 'a😀', 'b'][Math.floor(r() * 5)]}'`;
    vals.push(`(${i}, ${g}, ${k}, ${q}, ${s})`);
  }
  return ['CREATE TABLE p (id int, g int, k int, q float8, s text)', `INSERT INTO p VALUES ${vals.join(', ')}`, 'CREATE TABLE e (id int, g int, k int)'];
}

describe('windows that ignore peer groups vs PostgreSQL', () => {
  const { agree } = agreementSuite(() => setupSql(4242));

  it('row positions over a total order: every row gets the same answer', async () => {
    const W = ['PARTITION BY g ORDER BY k DESC NULLS FIRST, id', 'PARTITION BY g ORDER BY k NULLS FIRST, id DESC', 'ORDER BY k, id', 'PARTITION BY id ORDER BY k', 'PARTITION BY s ORDER BY id DESC'];
    const qs: string[] = [];
    for (const w of W) {
      qs.push(`SELECT id, row_number() OVER (${w}), lag(k) OVER (${w}), lead(q, 2, -1) OVER (${w}), ntile(3) OVER (${w}) FROM p ORDER BY id`);
      qs.push(`SELECT id, sum(q) OVER (${w} ROWS BETWEEN 3 PRECEDING AND 1 FOLLOWING), count(k) OVER (${w} ROWS BETWEEN CURRENT ROW AND 4 FOLLOWING EXCLUDE CURRENT ROW), max(k) OVER (${w} ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING) FROM p ORDER BY id`);
    }
    await agree(qs);
  }, 300_000);

  it('tied order keys: only what ties cannot change is compared', async () => {
    await agree([
      // Per partition: the multiset of row numbers and ntiles, and frame sums over whole partitions.
      'SELECT g, sum(rn), sum(nt), count(*) FROM (SELECT g, row_number() OVER (PARTITION BY g ORDER BY k) AS rn, ntile(4) OVER (PARTITION BY g ORDER BY k) AS nt FROM p) x GROUP BY g ORDER BY g',
      'SELECT id, sum(q) OVER (PARTITION BY g ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), count(*) OVER (PARTITION BY g ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE CURRENT ROW) FROM p ORDER BY id',
      // The same window with functions that read peers: rank, a RANGE frame, EXCLUDE TIES over all rows.
      'SELECT id, rank() OVER w, count(*) OVER w, sum(q) OVER (w RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), count(*) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE TIES), (row_number() OVER w > 0) FROM p WINDOW w AS (PARTITION BY g ORDER BY k DESC NULLS LAST) ORDER BY id',
      'SELECT id, dense_rank() OVER w, sum(q) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE GROUP), lag(id) OVER (PARTITION BY g ORDER BY k, id) FROM p WINDOW w AS (PARTITION BY g ORDER BY k) ORDER BY id',
    ]);
  }, 300_000);

  it('empty input, one row, one partition', async () => {
    await agree([
      'SELECT id, row_number() OVER (PARTITION BY g ORDER BY k), lag(k) OVER (ORDER BY k), ntile(2) OVER (ORDER BY id) FROM e ORDER BY id',
      'SELECT id, row_number() OVER (ORDER BY id), lead(k, 1, 0) OVER (ORDER BY id), sum(q) OVER (ORDER BY id ROWS 2 PRECEDING) FROM p WHERE id = 7',
      'SELECT id, row_number() OVER (ORDER BY k DESC, id), lag(q, 3) OVER (ORDER BY k DESC, id), sum(q) OVER (ORDER BY k DESC, id ROWS BETWEEN 5 PRECEDING AND 5 FOLLOWING) FROM p ORDER BY id',
    ]);
  }, 300_000);
});
