/**
 * The one-pass aggregate loop (src/physical/inline-aggregate-loop.ts): one int4 or dictionary-coded text
 * GROUP BY key, count / sum(float8) / avg(float8) and the other float8_accum aggregates, with or without
 * a WHERE filter. Against PostgreSQL (PGlite): negative keys and keys past the direct table (the loop
 * stops there and the general path takes over), NULL keys (the NULL group, made by the general path at
 * the first one) and NULL arguments (skipped by the steps), multibyte text keys, NaN / ±Infinity in some groups, float overflow errors (raised by avg
 * through Sxx as PostgreSQL does), filters that keep nothing, and more groups than one batch holds;
 * row counts tallied per group and added when the loop stops.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlDiff } from '../functions/sql-diff.js';
import { rng } from '../operators/helpers.js';

let sql: SqlDiff;
const ROWS = 30_000;

function values(from: number, to: number, row: (i: number) => string): string {
  const vals: string[] = [];
  for (let i = from; i < to; i++) vals.push(row(i));
  return vals.join(', ');
}

beforeAll(async () => {
  const r = rng(19);
  const words = ['a', 'B', 'é', '日本', '😀', '', 'zz', 'ü-ß'];
  const stmts = [
    // no NULLs anywhere: every batch can take the loop
    'CREATE TABLE n (id int, k int, g int, s text, v float8)',
    // NULL keys and NULL arguments in some rows
    'CREATE TABLE m (id int, k int, g int, s text, v float8)',
    // groups whose values overflow Sxx (avg errors as PostgreSQL does) or are NaN / Infinity
    'CREATE TABLE o (id int, g int, v float8)',
    // each column NULL on rows of its own (every 7th, 11th, 13th, 5th), the first NULL key late
    'CREATE TABLE q (id int, k int, g int, s text, v float8, w float8)',
  ];
  // Keys: mostly small non-negative, some negative and some past 2^20 (outside the direct table).
  const key = (): number => {
    const x = r();
    if (x < 0.03) return -1 - Math.floor(r() * 20);
    if (x < 0.06) return 2_000_000 + Math.floor(r() * 5);
    return Math.floor(r() * 60);
  };
  // Quarters, so sums are exact in any order.
  const val = (): string => String((Math.floor(r() * 800) - 400) / 4);
  for (let c = 0; c < ROWS; c += 2000) {
    stmts.push(`INSERT INTO n VALUES ${values(c, c + 2000, (i) => `(${i}, ${Math.floor(r() * 10000)}, ${key()}, '${words[Math.floor(r() * words.length)]}', ${val()})`)}`);
    stmts.push(
      `INSERT INTO m VALUES ${values(c, c + 2000, (i) => {
        const g = r() < 0.02 ? 'NULL' : String(key());
        const s = r() < 0.02 ? 'NULL' : `'${words[Math.floor(r() * words.length)]}'`;
        const v = r() < 0.02 ? 'NULL' : val();
        return `(${i}, ${Math.floor(r() * 10000)}, ${g}, ${s}, ${v})`;
      })}`,
    );
  }
  const o: string[] = [];
  for (let i = 0; i < 6000; i++) {
    const g = i % 7;
    // g 0: 1e200 and -1e200 alternate (Sxx overflows, sum does not); g 1: NaN once; g 2: Infinity once;
    // g 3: -Infinity once; others plain
    let v = val();
    if (g === 0 && i > 3000) v = i % 2 === 0 ? '1e200' : '-1e200';
    if (g === 1 && i === 4001) v = "'NaN'";
    if (g === 2 && i === 4002) v = "'Infinity'";
    if (g === 3 && i === 4003) v = "'-Infinity'";
    o.push(`(${i}, ${g}, ${v})`);
  }
  stmts.push(`INSERT INTO o VALUES ${o.join(', ')}`);
  const q: string[] = [];
  for (let i = 0; i < 20_000; i++) {
    const g = i > 9000 && i % 7 === 3 ? 'NULL' : String(i % 23);
    const s = i % 11 === 3 ? 'NULL' : `'${words[i % words.length]}'`;
    const v = i % 13 === 3 ? 'NULL' : val();
    const w = i % 5 === 3 ? 'NULL' : val();
    q.push(`(${i}, ${(i * 7919) % 10000}, ${g}, ${s}, ${v}, ${w})`);
  }
  stmts.push(`INSERT INTO q VALUES ${q.join(', ')}`);
  sql = await SqlDiff.start(stmts.join(';\n'));
}, 300_000);

afterAll(async () => {
  await sql.close();
});

/** Sorted rows, so GROUP BY output order (first seen) does not matter; errors compared as they are. */
async function agree(queries: readonly string[]): Promise<void> {
  for (const q of queries) {
    const a = await sql.ours(q);
    const b = await sql.theirs(q);
    if ('rows' in a && 'rows' in b) {
      const ra = a.rows.map((row) => JSON.stringify(row)).sort();
      const rb = b.rows.map((row) => JSON.stringify(row)).sort();
      expect({ columns: a.columns, rows: ra }, q).toEqual({ columns: b.columns, rows: rb });
    } else expect(a, q).toEqual(b);
  }
}

const FILTERS = ['', 'WHERE k < 5000', 'WHERE k < 0', 'WHERE k = 77', 'WHERE v > 0'];

describe('the one-pass aggregate loop', () => {
  it('int4 keys with negative and far keys, without and with NULLs', async () => {
    const qs: string[] = [];
    for (const t of ['n', 'm']) {
      for (const w of FILTERS) {
        qs.push(`SELECT g, count(*), count(v), sum(v), avg(v) FROM ${t} ${w} GROUP BY g`);
        qs.push(`SELECT g, var_pop(v), stddev_samp(v), sum(v), count(*) FROM ${t} ${w} GROUP BY g`);
      }
    }
    await agree(qs);
  }, 120_000);

  it('dictionary-coded text keys, multibyte among them', async () => {
    const qs: string[] = [];
    for (const t of ['n', 'm']) for (const w of FILTERS) qs.push(`SELECT s, count(*), sum(v), avg(v) FROM ${t} ${w} GROUP BY s`);
    await agree(qs);
  }, 120_000);

  it('more groups than a batch: the loop stops at each new key and resumes', async () => {
    await agree(['SELECT id, count(*), sum(v), avg(v) FROM n GROUP BY id', 'SELECT id % 5000, avg(v), sum(v) FROM n WHERE k < 9000 GROUP BY id % 5000']);
  }, 120_000);

  it('aggregates reading one column share its load; batches where they stop or start sharing regenerate the loop', async () => {
    await agree([
      'SELECT g, sum(v), avg(v), var_pop(v) FROM n WHERE k < 5000 GROUP BY g',
      'SELECT g, sum(v), avg(v * 2) FROM n GROUP BY g',
      // the first branch's batches pass v as both arguments, the second's two different columns
      'SELECT g, count(*), sum(a), avg(b) FROM (SELECT g, v AS a, v AS b FROM n UNION ALL SELECT g, v, v * 2 FROM n UNION ALL SELECT g, v, v FROM n WHERE k < 3000) x GROUP BY g',
      'SELECT g, sum(a), avg(b) FROM (SELECT g, v AS a, -v AS b FROM n UNION ALL SELECT g, v, v FROM n) x WHERE g >= 0 GROUP BY g',
    ]);
  }, 120_000);

  it('row counts tallied per group: several counts, stops at new keys and at rows the general path takes, groups growing past the tally', async () => {
    await agree([
      'SELECT g, count(*), count(v), count(k), sum(v), count(s) FROM n GROUP BY g',
      'SELECT s, count(*), count(g), count(*) FROM n WHERE k < 6000 GROUP BY s',
      // a NaN and infinite sums send rows of some groups to the general path between tallied stretches
      'SELECT g, count(*), count(v), sum(v), count(*) FROM o GROUP BY g',
      // more groups than a quarter of a batch after the first batches: tallied, then not
      'SELECT k % 3000, count(*), count(v), sum(v) FROM n GROUP BY 1',
      'SELECT g, count(*), count(v) FROM m WHERE k < 7000 GROUP BY g',
    ]);
  }, 120_000);

  it('NULL keys and arguments on rows of their own: the NULL group made at its first row, NULL rows skipped', async () => {
    const qs: string[] = [];
    for (const w of FILTERS) {
      qs.push(`SELECT g, count(*), count(v), sum(v), count(w), avg(w) FROM q ${w} GROUP BY g`);
      qs.push(`SELECT s, count(*), count(s), count(v), sum(v), sum(w), var_samp(w) FROM q ${w} GROUP BY s`);
      qs.push(`SELECT g, sum(v), avg(v), count(v), stddev_pop(v) FROM q ${w} GROUP BY g`);
    }
    // both arguments read from one column, and from columns with and without NULLs side by side
    qs.push('SELECT g, sum(a), avg(b), count(a) FROM (SELECT g, v AS a, v AS b FROM q UNION ALL SELECT g, v, w FROM q UNION ALL SELECT g, k::float8, v FROM q) x GROUP BY g');
    qs.push('SELECT g, count(*), count(x) FROM (SELECT g, v AS x FROM q WHERE v IS NOT NULL UNION ALL SELECT g, v FROM q) y GROUP BY g');
    await agree(qs);
  }, 120_000);

  it('NaN, Infinity and float overflow in some groups', async () => {
    await agree([
      'SELECT g, count(*), sum(v), avg(v) FROM o WHERE g <> 0 GROUP BY g',
      'SELECT g, avg(v) FROM o GROUP BY g',
      'SELECT g, sum(v), count(*) FROM o GROUP BY g',
      'SELECT g, var_samp(v) FROM o WHERE g > 0 GROUP BY g',
    ]);
    // avg goes through float8_accum: 1e200 and -1e200 overflow Sxx although their sum does not
    const r = await sql.ours('SELECT g, avg(v) FROM o GROUP BY g');
    expect(r).toMatchObject({ error: '22003' });
  }, 120_000);
});
