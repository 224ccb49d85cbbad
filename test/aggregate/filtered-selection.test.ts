/**
 * GROUP BY over a WHERE filter aggregates the filter's selection in place (the qualifying rows are not
 * copied; keys and arguments are read through the selection). Against PostgreSQL (PGlite): integer, text
 * and composite keys with NULLs, count(*) / count(x) / sum / avg / min / max over NULLs, NaN and
 * ±Infinity, float overflow errors, filters keeping every row, none, or one row, no GROUP BY, and the
 * aggregates that keep the copying path (FILTER, DISTINCT, ORDER BY).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlDiff } from '../functions/sql-diff.js';
import { rng } from '../operators/helpers.js';

let sql: SqlDiff;
const ROWS = 12_000;

beforeAll(async () => {
  const r = rng(41);
  const stmts = ['CREATE TABLE f (id int, k int, g int, s text, v float8, i int, b bigint)'];
  const words = ['a', 'B', 'é', '日本', '😀', '', 'zz'];
  for (let c = 0; c < ROWS; c += 1000) {
    const vals: string[] = [];
    for (let i = c; i < c + 1000; i++) {
      const g = r() < 0.05 ? 'NULL' : String(Math.floor(r() * 50) - 5);
      const s = r() < 0.05 ? 'NULL' : `'${words[Math.floor(r() * words.length)]}'`;
      const x = r();
      // v: quarters (sums exact in any order, as PostgreSQL's plan may add in another order), some NULL;
      // NaN and ±Infinity only in groups g >= 40
      const v = x < 0.08 ? 'NULL' : g !== 'NULL' && Number(g) >= 40 && x > 0.97 ? `'${['NaN', 'Infinity', '-Infinity'][Math.floor(r() * 3)]}'` : String((Math.floor(r() * 800) - 400) / 4);
      const iv = r() < 0.05 ? 'NULL' : String(Math.floor(r() * 1000) - 500);
      vals.push(`(${i}, ${Math.floor(r() * 10000)}, ${g}, ${s}, ${v}, ${iv}, ${iv === 'NULL' ? 'NULL' : String(BigInt(iv) * 1000000007n)})`);
    }
    stmts.push(`INSERT INTO f VALUES ${vals.join(', ')}`);
  }
  stmts.push('CREATE TABLE h (k int, g int, v float8)', "INSERT INTO h VALUES (1, 1, 1e308), (2, 1, 1e308), (3, 2, 1), (4, 2, 2)");
  sql = await SqlDiff.start(stmts.join(';\n'));
}, 300_000);

afterAll(async () => {
  await sql.close();
});

/** Sorted rows, so GROUP BY output order (first seen) does not matter. */
async function agree(queries: readonly string[]): Promise<void> {
  for (const q of queries) {
    const a = await sql.ours(q);
    const b = await sql.theirs(q);
    if ('rows' in a && 'rows' in b) {
      const ra = a.rows.map((row) => JSON.stringify(row)).sort();
      const rb = b.rows.map((row) => JSON.stringify(row)).sort();
      const diff = ra.filter((x, i) => x !== rb[i]).slice(0, 3);
      expect({ columns: a.columns, n: ra.length, diff }, `${q}\n${diff.join('\n')}\nvs\n${rb.filter((x, i) => x !== ra[i]).slice(0, 3).join('\n')}`).toEqual({ columns: b.columns, n: rb.length, diff: [] });
    } else expect(a, q).toEqual(b);
  }
}

const FILTERS = ['k < 5000', 'k >= 0', 'k < 0', 'k = 77', 'k % 3 = 1 AND g IS NOT NULL', 'v > 0'];

describe('aggregating a filter selection in place', () => {
  it('one integer key: count(*), count(x), sum, avg of float8 and int, min, max', async () => {
    const qs: string[] = [];
    for (const w of FILTERS) {
      qs.push(`SELECT g, count(*), count(v), sum(v), avg(v) FROM f WHERE ${w} GROUP BY g`);
      qs.push(`SELECT g, sum(i), avg(i), min(v), max(s), sum(b) FROM f WHERE ${w} GROUP BY g`);
    }
    await agree(qs);
  }, 120_000);

  it('text and composite keys, and no GROUP BY', async () => {
    const qs: string[] = [];
    for (const w of FILTERS) {
      qs.push(`SELECT s, count(*), sum(v) FROM f WHERE ${w} GROUP BY s`);
      qs.push(`SELECT g, s, count(*), avg(v) FROM f WHERE ${w} GROUP BY g, s`);
      qs.push(`SELECT count(*), count(s), sum(v), avg(v), sum(i) FROM f WHERE ${w}`);
    }
    await agree(qs);
  }, 120_000);

  it('aggregates that copy the rows instead (FILTER, DISTINCT, ORDER BY) give the same answers', async () => {
    await agree([
      'SELECT g, count(*) FILTER (WHERE v > 0), sum(v) FROM f WHERE k < 5000 GROUP BY g',
      'SELECT g, count(DISTINCT s), sum(v) FROM f WHERE k < 5000 GROUP BY g',
      "SELECT g, string_agg(s, ',' ORDER BY id) FROM f WHERE k < 300 GROUP BY g",
    ]);
  }, 120_000);

  it('float overflow in a filtered sum or avg is the same error', async () => {
    await agree(['SELECT g, sum(v) FROM h WHERE k < 3 GROUP BY g', 'SELECT g, avg(v) FROM h WHERE k <> 3 GROUP BY g', 'SELECT g, sum(v) FROM h WHERE k > 2 GROUP BY g']);
  });

  it('EXPLAIN ANALYZE still counts the rows the bypassed projection passed on', async () => {
    const r = await sql.db.query('EXPLAIN (FORMAT QUIRE, ANALYZE) SELECT g, count(*), sum(v) FROM f WHERE k < 5000 GROUP BY g');
    const plan = r.rows.map((x) => String(x[0])).join('\n');
    const filtered = Number(/Filter \(.*actual rows=(\d+)/.exec(plan)?.[1]);
    expect(filtered).toBeGreaterThan(0);
    expect(plan).toMatch(new RegExp(`Project \\(.*actual rows=${filtered} `));
  });
});
