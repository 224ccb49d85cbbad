/**
 * count(*) and count(x) of a column without NULLs are added per group from one count of each batch's
 * rows per group (countsRowsOnly / addRowCounts) when a batch has few groups next to its rows. Against
 * PostgreSQL (PGlite): few and many groups (either side of the cut-over, and groups appearing late),
 * several counts in one query beside sums, count(x) of a column with NULLs and FILTER (which count row
 * by row), NULL keys, filtered selections, text and composite keys, and the spilling aggregate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlDiff } from '../functions/sql-diff.js';
import { rng } from '../operators/helpers.js';

let sql: SqlDiff;
const ROWS = 20_000;

beforeAll(async () => {
  const r = rng(18);
  const stmts = ['CREATE TABLE c (id int, few int, many int, late int, s text, v float8, n float8, t text)'];
  const words = ['a', 'B', 'é', '日本', '😀', ''];
  for (let c = 0; c < ROWS; c += 1000) {
    const vals: string[] = [];
    for (let i = c; i < c + 1000; i++) {
      const few = r() < 0.03 ? 'NULL' : String(Math.floor(r() * 7));
      // About as many groups as rows in a batch: counted row by row.
      const many = String(Math.floor(r() * 5000));
      // New groups keep appearing batch after batch.
      const late = String(Math.floor(i / 700) + (r() < 0.1 ? 100 : 0));
      const s = `'${words[Math.floor(r() * words.length)]}'`;
      // Quarters: sums exact in any order.
      const v = String((Math.floor(r() * 800) - 400) / 4);
      const n = r() < 0.1 ? 'NULL' : String(Math.floor(r() * 100) / 4);
      const t = r() < 0.2 ? 'NULL' : `'t${Math.floor(r() * 3)}'`;
      vals.push(`(${i}, ${few}, ${many}, ${late}, ${s}, ${v}, ${n}, ${t})`);
    }
    stmts.push(`INSERT INTO c VALUES ${vals.join(', ')}`);
  }
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
      expect(a.rows.length, q).toBeGreaterThan(0);
      const ra = a.rows.map((row) => JSON.stringify(row)).sort();
      const rb = b.rows.map((row) => JSON.stringify(row)).sort();
      expect({ columns: a.columns, rows: ra }, q).toEqual({ columns: b.columns, rows: rb });
    } else expect(a, q).toEqual(b);
  }
}

describe('counts added per group', () => {
  it('few, many and late groups; several counts beside sums', async () => {
    const qs: string[] = [];
    for (const k of ['few', 'many', 'late', 'few % 3', 's', 'few, s', 'late, few']) {
      qs.push(`SELECT ${k}, count(*), count(v), count(s), sum(v), count(*) AS again FROM c GROUP BY ${k}`);
      qs.push(`SELECT ${k}, count(n), count(*), count(t), sum(n) FROM c GROUP BY ${k}`);
    }
    await agree(qs);
  }, 120_000);

  it('under filters (the selection path), with FILTER, and with NULLs in the counted column', async () => {
    const qs: string[] = [];
    for (const w of ['id % 3 = 1', 'v > 0', 'id < 10', 'many < 4000', 'n IS NULL']) {
      qs.push(`SELECT few, count(*), count(v), count(n), sum(v) FROM c WHERE ${w} GROUP BY few`);
      qs.push(`SELECT s, count(*), count(t), count(*) FILTER (WHERE v > 0) FROM c WHERE ${w} GROUP BY s`);
      qs.push(`SELECT late, count(*), count(DISTINCT s), count(v) FROM c WHERE ${w} GROUP BY late`);
    }
    await agree(qs);
  }, 120_000);

  it('the spilling aggregate under a small memory_limit', async () => {
    await sql.db.query(`SET memory_limit = '2MB'`);
    try {
      await agree([
        'SELECT many, count(*), count(v), sum(v) FROM c GROUP BY many',
        'SELECT few, count(*), count(s), count(n) FROM c GROUP BY few',
        'SELECT few, many % 3 AS m, count(*), count(v) FROM c GROUP BY few, many % 3',
      ]);
    } finally {
      await sql.db.query('RESET memory_limit');
    }
  }, 120_000);
});
