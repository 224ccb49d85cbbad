/**
 * Per-partition Top-N over several input batches (more than BATCH_SIZE rows), aimed at the fused path of
 * TopNRanking (one int2/int4 partition key, one numeric order key: direct-address partition ids, a numeric
 * boundary per partition, deferred copies of the other columns) and at the comparator fallbacks around
 * it: NULL / negative / out-of-table partition keys, keys that grow the direct-address table mid-run, NULL / NaN / ±Infinity / -0 order keys, DESC and
 * NULLS FIRST, ties under rank and dense_rank, k larger than the partitions, text partition keys.
 * Every query must give the same rows as with the rule disabled and, projected to columns PostgreSQL
 * determines (row_number over ties picks arbitrary rows), the same as PGlite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteAndQuire, quireConnection, type SqlConnection } from '../harness/connection.js';
import { checkRankingMatrix } from './ranking-matrix.js';
import { Database, formatValue } from '../../src/index.js';
import { rng } from '../window/window-gen.js';

const ROWS = 9000;

function setupSql(): string[] {
  const r = rng(4242);
  const vals: string[] = [];
  for (let id = 1; id <= ROWS; id++) {
    // p: mostly 0..29, some NULL, negative and beyond the direct-address table (2^20).
    const p = r.chance(0.05) ? 'NULL' : r.chance(0.05) ? String(-1 - r.int(3)) : r.chance(0.04) ? String(2_000_000 + r.int(3)) : String(r.int(30));
    const k = r.chance(0.06) ? 'NULL' : String(r.int(12) - 4);
    const special = ["'NaN'", "'Infinity'", "'-Infinity'", "'-0'", '0', 'NULL'];
    const f = r.chance(0.08) ? r.pick(special) : String((r.int(4000) - 2000) / 8);
    const q = r.chance(0.05) ? 'NULL' : `'t${r.int(7)}'`;
    vals.push(`(${id}, ${p}, ${k}, ${f}, ${q})`);
  }
  return ['CREATE TABLE w (id int, p int, k int, f float8, q text)', `INSERT INTO w VALUES ${vals.join(', ')}`];
}

// The last one: keys past the initial direct-address table appear only in later batches (it grows, and
// the boundaries kept by key value must follow).
const PARTS = ['p', 'p % 4', 'q', '(id % 300) + CASE WHEN id > 4500 THEN 1200 ELSE 0 END'];
// The last two never are NULL: with a NULL-free partition key, batches take the null-free kernels.
const ORDERS = ['f', 'f DESC', 'f NULLS FIRST', 'f DESC NULLS LAST', 'k', 'k DESC NULLS FIRST', 'k NULLS FIRST', '(id*7919)%1009', '((id*7919)%1009)::float8/8 DESC'];
const FNS = ['row_number', 'rank', 'dense_rank'];
const KS = [1, 3, 10, 2000];

describe('per-partition Top-N over many batches (fused path and fallbacks)', () => {
  let pg: SqlConnection;
  let q: SqlConnection;
  beforeAll(async () => {
    ({ pg, q } = await pgliteAndQuire(setupSql(), quireConnection(await Database.create(), formatValue)));
  }, 120_000);
  afterAll(async () => {
    await pg.close?.();
  });

  it('agrees with the rule disabled and with PostgreSQL', async () => {
    const failures = await checkRankingMatrix(q, pg, { table: 'w', parts: PARTS, orders: ORDERS, fns: FNS, ks: KS });
    expect(failures.slice(0, 6), failures.slice(0, 6).join('\n\n')).toEqual([]);
  }, 600_000);

  it('reports peak kept rows and bytes bounded by k x partitions', async () => {
    const sql = 'SELECT p, f, rn FROM (SELECT *, row_number() OVER (PARTITION BY p ORDER BY f) AS rn FROM w) x WHERE rn <= 2';
    await q.query("SET quire.derive_topn = 'on'");
    const a = (await q.query(`EXPLAIN (FORMAT QUIRE, ANALYZE) ${sql}`)).rows.map((r) => r[0]).join('\n');
    await q.query('RESET quire.derive_topn');
    const m = /partitions=(\d+) peak kept rows=(\d+) peak kept bytes=(\d+)/.exec(a);
    expect(m, a).not.toBeNull();
    const parts = Number(m![1]);
    const rows = Number(m![2]);
    const bytes = Number(m![3]);
    // 30 + 3 negative + 3 large + NULL partitions; each keeps at most its region (about 2k) of candidates.
    expect(parts).toBe(37);
    expect(rows).toBeLessThanOrEqual(parts * 8);
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThan(256 * 1024);
  }, 60_000);
});
