/**
 * Rows that tie under ORDER BY come out in PostgreSQL's order for sorts of up to
 * PG_TIE_ORDER_MAX_ROWS rows (pg-tie-order.ts follows its quicksort). Checked against PGlite, row for
 * row and without a tiebreaking key, at sizes around the algorithm's thresholds (insertion sort below
 * 7 rows, the median of three medians above 40, presorted input), for integer, text, float and several
 * keys, DESC and NULLS FIRST, and through window functions whose values depend on the order of peers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_TIE_ORDER_MAX_ROWS, pgTieOrderSort } from '../../src/physical/pg-tie-order.js';
import { outcomeText as outcome, pgliteAndQuire, type SqlConnection } from '../harness/connection.js';
import { rng } from './helpers.js';

const ROWS = PG_TIE_ORDER_MAX_ROWS;
const WORDS = ['a', 'b', 'é', '日本', 'zz'];

let pg: SqlConnection;
let quire: SqlConnection;

beforeAll(async () => {
  const r = rng(23);
  const setup = ['CREATE TABLE ties (id int, k int, t text, f float8, s int)'];
  for (let c = 0; c < ROWS; c += 256) {
    const vals: string[] = [];
    for (let i = c; i < Math.min(ROWS, c + 256); i++) {
      const k = r() < 0.05 ? 'NULL' : String(Math.floor(r() * 4));
      const t = r() < 0.05 ? 'NULL' : `'${WORDS[Math.floor(r() * WORDS.length)]!}'`;
      const f = r() < 0.05 ? 'NULL' : (Math.floor(r() * 3) / 2).toFixed(1);
      // s ascends in runs, so some prefixes arrive presorted.
      vals.push(`(${i}, ${k}, ${t}, ${f}, ${Math.floor(i / 9)})`);
    }
    setup.push(`INSERT INTO ties VALUES ${vals.join(', ')}`);
  }
  ({ pg, q: quire } = await pgliteAndQuire(setup));
}, 300_000);

afterAll(async () => {
  await pg.close?.();
  await quire.close?.();
});

const SIZES = [2, 6, 7, 8, 40, 41, 42, 100, 333, ROWS];

describe('tie order of small sorts', () => {
  const orders = ['k', 'k DESC', 't NULLS FIRST', 'f DESC NULLS LAST', 'k, t', 't DESC, f', 's', 's DESC', 'k NULLS FIRST, s DESC'];
  it('ORDER BY: the same row order as PostgreSQL, ties included', async () => {
    for (const n of SIZES) {
      for (const o of orders) {
        const sql = `SELECT id, k, t, f FROM ties WHERE id < ${n} ORDER BY ${o}`;
        const want = await outcome(pg, sql);
        expect(want.startsWith('ERROR'), sql).toBe(false);
        expect(await outcome(quire, sql), sql).toBe(want);
      }
    }
  });

  it('window functions over peers: first_value, last_value, row_number, lag', async () => {
    for (const n of [7, 10, 41, 200]) {
      for (const sql of [
        `SELECT id, first_value(id) OVER (ORDER BY k), last_value(id) OVER (ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM ties WHERE id < ${n}`,
        `SELECT id, row_number() OVER (PARTITION BY k ORDER BY t), lag(id) OVER (PARTITION BY k ORDER BY t) FROM ties WHERE id < ${n}`,
      ]) {
        const want = (await outcome(pg, sql)).split('\n').sort();
        expect((await outcome(quire, sql)).split('\n').sort(), sql).toEqual(want);
      }
    }
  });
});

describe('pgTieOrderSort', () => {
  it('sorts: every permutation of a small multiset comes out ordered, with every row once', () => {
    const r = rng(5);
    for (let trial = 0; trial < 500; trial++) {
      const n = 1 + Math.floor(r() * 120);
      const keys = Array.from({ length: n }, () => Math.floor(r() * (trial % 2 === 0 ? 3 : 1000)));
      const perm = pgTieOrderSort(Uint32Array.from(keys.keys()), (i, j) => keys[i]! - keys[j]!);
      expect([...perm].sort((a, b) => a - b)).toEqual([...keys.keys()]);
      for (let i = 1; i < n; i++) expect(keys[perm[i - 1]!]! <= keys[perm[i]!]!).toBe(true);
    }
  });
});
