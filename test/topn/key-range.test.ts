/**
 * Per-partition Top-N screened by the partition key's stored range (zone map): when every key value a
 * stored batch can hold already has a boundary, TopNRanking rejects rows by their order key alone,
 * against the largest of those boundaries, without reading the partition-key column.
 *
 * The data is written by several statements so that batches have different key ranges: a partition that
 * first appears inside an earlier range (its boundary is missing, so the batch must not be screened),
 * keys beyond the direct-address table, negative keys, NULL keys, NaN / ±Infinity / -0 order keys, ties
 * under rank and dense_rank, and an UPDATE that replaces batches. Every query must give the same rows as
 * with the rule disabled and as PGlite, and the screen must actually run where it can.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteAndQuire, quireConnection, type SqlConnection } from '../harness/connection.js';
import { checkRankingMatrix } from './ranking-matrix.js';
import { Database, formatValue } from '../../src/index.js';
import { rng } from '../window/window-gen.js';

function inserts(): string[] {
  const r = rng(777);
  const out: string[] = [];
  let id = 0;
  const stmt = (rows: number, g: () => string): void => {
    const vals: string[] = [];
    for (let i = 0; i < rows; i++) {
      id++;
      const special = ["'NaN'", "'Infinity'", "'-Infinity'", "'-0'", '0'];
      const f = r.chance(0.03) ? r.pick(special) : String((r.int(20000) - 10000) / 16);
      const kn = r.chance(0.1) ? 'NULL' : String(r.int(50));
      vals.push(`(${id}, ${g()}, ${r.int(10)}, ${f}, ${r.int(40)}, ${kn})`);
    }
    out.push(`INSERT INTO z VALUES ${vals.join(', ')}`);
  };
  stmt(9000, () => String(r.int(20))); // 0..19
  stmt(9000, () => String([0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19][r.int(19)]!)); // no 7
  stmt(5000, () => (r.chance(0.02) ? '7' : String(r.int(20)))); // 7 appears inside the covered range
  stmt(9000, () => String(r.int(31))); // a wider range
  stmt(3000, () => String(-3 + r.int(3))); // negative keys: outside the direct table
  stmt(3000, () => (r.chance(0.01) ? 'NULL' : String(r.int(20)))); // NULL keys: the plain path is off
  stmt(3000, () => String(2_000_000 + r.int(3))); // beyond the direct table
  return out;
}

const PARTS = ['g', 'h'];
const ORDERS = ['f', 'f DESC', 'k', 'k DESC', 'kn', 'id DESC'];
const FNS = ['row_number', 'rank', 'dense_rank'];
const KS = [1, 2, 5];

describe('per-partition Top-N screened by the stored key range', () => {
  let pg: SqlConnection;
  let q: SqlConnection;
  beforeAll(async () => {
    const setup = ['CREATE TABLE z (id int, g int, h int, f float8, k int, kn int)', ...inserts()];
    ({ pg, q } = await pgliteAndQuire(setup, quireConnection(await Database.create(), formatValue)));
  }, 120_000);
  afterAll(async () => {
    await pg.close?.();
  });

  const matrix = { table: 'z', parts: PARTS, orders: ORDERS, fns: FNS, ks: KS };

  async function rangeBatches(sql: string): Promise<number> {
    await q.query("SET quire.derive_topn = 'on'");
    const plan = (await q.query(`EXPLAIN (FORMAT QUIRE, ANALYZE) ${sql}`)).rows.map((r) => r[0]).join('\n');
    await q.query('RESET quire.derive_topn');
    expect(plan).toContain('TopNRanking');
    const m = /key-range batches=(\d+)/.exec(plan);
    return m === null ? 0 : Number(m[1]);
  }

  it('agrees with the rule disabled and with PostgreSQL', async () => {
    const failures = await checkRankingMatrix(q, pg, matrix);
    expect(failures.slice(0, 6), failures.slice(0, 6).join('\n\n')).toEqual([]);
  }, 600_000);

  it('screens batches by key range where every key in range has a boundary, and only there', async () => {
    // h is 0..9 in every batch: after the first batch every batch of the plain statements qualifies.
    const byH = await rangeBatches('SELECT h, f FROM (SELECT *, row_number() OVER (PARTITION BY h ORDER BY f) AS rn FROM z) x WHERE rn <= 2');
    expect(byH).toBeGreaterThan(5);
    // kn has NULLs in every batch: the plain path (and with it the screen) never runs.
    expect(await rangeBatches('SELECT h, kn FROM (SELECT *, row_number() OVER (PARTITION BY h ORDER BY kn) AS rn FROM z) x WHERE rn <= 2')).toBe(0);
    // A computed partition key has no stored range.
    expect(await rangeBatches('SELECT h, f FROM (SELECT *, row_number() OVER (PARTITION BY h + 0 ORDER BY f) AS rn FROM z) x WHERE rn <= 2')).toBe(0);
  }, 60_000);

  it('still agrees after an UPDATE replaces batches with new key ranges', async () => {
    for (const c of [pg, q]) {
      await c.query('UPDATE z SET g = g + 5, f = -f WHERE id % 7 = 0');
      await c.query('DELETE FROM z WHERE id % 11 = 0');
    }
    const failures = await checkRankingMatrix(q, pg, matrix);
    expect(failures.slice(0, 6), failures.slice(0, 6).join('\n\n')).toEqual([]);
  }, 600_000);
});
