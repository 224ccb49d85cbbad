/**
 * Differential tests (PGlite) for the window and sort fast paths: float sums and averages over short
 * moving frames summed in row order (every frame unit and EXCLUDE mode), and sorts and window partitions
 * on text computed by the query (casts, CASE with NULLs, multibyte strings), which are ranked through a
 * dictionary built for the sort. Results must print exactly as PostgreSQL prints them: float digits
 * included, so a summation order other than PostgreSQL's would show.
 */
import { describe, it } from 'vitest';
import { agreementSuite } from '../harness/agree.js';
import { rng } from '../common/pg-helper.js';


const ROWS = 3000;
const WORDS = ['apple', 'Äpfel', 'zebra', 'ß', 'été', 'eta', '日本', '日本語', '😀', 'a😀', '', ' x', 'x'];

function setupSql(seed: number): string[] {
  const r = rng(seed);
  const vals: string[] = [];
  for (let i = 1; i <= ROWS; i++) {
    // f: fractional doubles (sums depend on order); q: multiples of 1/8 (exact in any order, for tied orders).
    const f = r() < 0.05 ? 'NULL' : ((r() - 0.3) * 10 ** Math.floor(r() * 6)).toString();
    const q = r() < 0.05 ? 'NULL' : (Math.floor(r() * 800 - 200) / 8).toString();
    const k = r() < 0.04 ? 'NULL' : String(Math.floor(r() * 40));
    const g = String(Math.floor(r() * 7));
    const w = r() < 0.06 ? 'NULL' : `'${WORDS[Math.floor(r() * WORDS.length)]!.replace(/'/g, "''")}'`;
    vals.push(`(${i}, ${g}, ${k}, ${f}, ${q}, ${w})`);
  }
  return [
    'CREATE TABLE w (id int, g int, k int, f float8, q float8, s text)',
    `INSERT INTO w VALUES ${vals.join(', ')}`,
  ];
}


const EXCLUDES = ['', ' EXCLUDE CURRENT ROW', ' EXCLUDE GROUP', ' EXCLUDE TIES', ' EXCLUDE NO OTHERS'];

function bound(r: () => number, units: string): string {
  const x = r();
  const n = Math.floor(r() * (units === 'ROWS' ? 40 : 4));
  if (x < 0.1) return 'UNBOUNDED PRECEDING';
  if (x < 0.45) return `${n} PRECEDING`;
  if (x < 0.6) return 'CURRENT ROW';
  if (x < 0.95) return `${n} FOLLOWING`;
  return 'UNBOUNDED FOLLOWING';
}

/** A random frame; offsets may still make it empty (5 FOLLOWING AND 2 FOLLOWING), which PostgreSQL allows. */
function frame(r: () => number, units: string): string {
  let a = bound(r, units);
  let b = bound(r, units);
  // PostgreSQL rejects a start bound of a later kind than the end bound (CURRENT ROW AND 1 PRECEDING).
  const kind = (x: string): number => ['UNBOUNDED PRECEDING', 'PRECEDING', 'CURRENT ROW', 'FOLLOWING', 'UNBOUNDED FOLLOWING'].findIndex((k) => x.endsWith(k));
  if (kind(a) > kind(b)) [a, b] = [b, a];
  if (a === 'UNBOUNDED FOLLOWING') a = 'CURRENT ROW';
  if (b === 'UNBOUNDED PRECEDING') b = 'CURRENT ROW';
  return `${units} BETWEEN ${a} AND ${b}${EXCLUDES[Math.floor(r() * EXCLUDES.length)]!}`;
}

function floatFrameQueries(seed: number, count: number): string[] {
  const r = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const fn = r() < 0.5 ? 'sum' : 'avg';
    const part = r() < 0.7 ? 'PARTITION BY g ' : '';
    // ROWS over a unique order sums the fractional column: row order, and so the sum, is deterministic.
    // GROUPS / RANGE over a tied key sum the 1/8 column, whose sums are exact in any order of the ties.
    const units = r() < 0.4 ? 'ROWS' : r() < 0.5 ? 'GROUPS' : 'RANGE';
    const nulls = r() < 0.5 ? ' NULLS FIRST' : '';
    const dir = r() < 0.3 ? ' DESC' : '';
    const order = units === 'ROWS' ? `k${dir}${nulls}, id` : `k${dir}${nulls}`;
    const col = units === 'ROWS' ? 'f' : 'q';
    out.push(`SELECT id, ${fn}(${col}) OVER (${part}ORDER BY ${order} ${frame(r, units)}) FROM w ORDER BY id`);
  }
  return out;
}

describe('window and sort fast paths vs PostgreSQL', () => {
  const { agree, postgres, quire } = agreementSuite(() => setupSql(1515), { pgRejects: 'few' });

  it('float sum/avg over random ROWS / GROUPS / RANGE frames with every EXCLUDE', async () => {
    await agree(floatFrameQueries(77, 120));
  }, 300_000);

  it('float sums that depend on summation order: sliding ROWS frames, EXCLUDE, one partition and many', async () => {
    await agree([
      'SELECT id, sum(f) OVER (ORDER BY id ROWS BETWEEN 20 PRECEDING AND 20 FOLLOWING) FROM w ORDER BY id',
      'SELECT id, avg(f) OVER (PARTITION BY g ORDER BY k, id ROWS BETWEEN 99 PRECEDING AND CURRENT ROW) FROM w ORDER BY id',
      'SELECT id, sum(f) OVER (PARTITION BY g ORDER BY id GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) FROM w ORDER BY id',
      'SELECT id, avg(f) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND 3 FOLLOWING EXCLUDE TIES) FROM w ORDER BY id',
      'SELECT id, sum(f) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 5 FOLLOWING AND 2 FOLLOWING) FROM w ORDER BY id',
      'SELECT id, sum(q) OVER (PARTITION BY s ORDER BY k GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) FROM w ORDER BY id',
      'SELECT id, avg(q) OVER (PARTITION BY s ORDER BY k GROUPS BETWEEN 2 PRECEDING AND CURRENT ROW EXCLUDE GROUP) FROM w ORDER BY id',
      'SELECT id, sum(f) OVER w, avg(f) OVER w, count(f) OVER w, max(f) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY id ROWS BETWEEN 20 PRECEDING AND 20 FOLLOWING) ORDER BY id',
      // -0 alone: sum keeps it (float8pl starts from the first value), avg starts from 0.
      "SELECT x, sum(y) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), avg(y) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM (VALUES (1, '-0'::float8), (2, '-0'), (3, '1.5'), (4, NULL), (5, NULL), (6, '-0')) v(x, y) ORDER BY x",
      "SELECT x, sum(y) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) FROM (VALUES (1, 'Infinity'::float8), (2, '-Infinity'), (3, '1.5'), (4, 'NaN'), (5, 2.25)) v(x, y) ORDER BY x",
    ]);
  }, 300_000);

  it('float sums and averages over long moving frames (two stacks): exact on 1/8 multiples, every EXCLUDE', async () => {
    // q holds multiples of 1/8 (not integers), so every partial sum is exact and PostgreSQL's digits must
    // come out; f is fractional, where only the last bits may differ, so it is compared rounded.
    const r = rng(4242);
    const queries: string[] = [];
    for (let i = 0; i < 16; i++) {
      const fn = r() < 0.5 ? 'sum' : 'avg';
      const a = 200 + Math.floor(r() * 900);
      const b = Math.floor(r() * 900) - 300;
      const end = b < 0 ? `${-b} PRECEDING` : `${b} FOLLOWING`;
      const start = b < 0 && -b > a ? `${-b + 50} PRECEDING` : `${a} PRECEDING`;
      const part = r() < 0.3 ? 'PARTITION BY g % 2 ' : '';
      const ex = EXCLUDES[Math.floor(r() * EXCLUDES.length)]!;
      const units = r() < 0.7 ? 'ROWS' : 'GROUPS';
      const order = units === 'ROWS' ? 'k DESC NULLS FIRST, id' : 'id / 2';
      const w = `(${part}ORDER BY ${order} ${units} BETWEEN ${start} AND ${end}${ex})`;
      queries.push(`SELECT id, ${fn}(q) OVER ${w}, round((${fn}(f) OVER ${w})::numeric, 3) FROM w ORDER BY id`);
    }
    await agree(queries);
  }, 300_000);

  it('sorts on computed text: casts, CASE with NULLs, multibyte strings, with ties broken by id', async () => {
    await agree([
      'SELECT id, s2 FROM (SELECT id, CASE WHEN k % 3 = 0 THEN NULL ELSE s END AS s2 FROM w) x ORDER BY s2 NULLS FIRST, id',
      'SELECT id, s2 FROM (SELECT id, CASE WHEN k % 3 = 0 THEN NULL ELSE s END AS s2 FROM w) x ORDER BY s2 DESC, id',
      'SELECT id, g::text || s AS t FROM w ORDER BY g::text || s DESC NULLS LAST, id',
      'SELECT id, k FROM w ORDER BY k::text, id',
      "SELECT id, s || '!' FROM w ORDER BY s || '!' NULLS FIRST, id DESC",
      'SELECT id, lower(s) FROM w ORDER BY lower(s), id LIMIT 50 OFFSET 100',
      // Mostly distinct computed text: the sort gives up on a dictionary and sorts the strings.
      "SELECT id, s || id::text FROM w ORDER BY s || id::text, id",
      "SELECT id, md5(id::text) FROM w ORDER BY md5(id::text) DESC",
    ]);
  }, 300_000);

  it('small partitions across many input batches: each evaluated once, boundaries anywhere in a batch', async () => {
    await postgres().query('CREATE TABLE sp AS SELECT i, (i * 7) % 3 AS r, i / 3 + (i % 11) / 5 AS p FROM generate_series(1, 20000) i');
    await quire().query('CREATE TABLE sp AS SELECT i, (i * 7) % 3 AS r, i / 3 + (i % 11) / 5 AS p FROM generate_series(1, 20000) i');
    await agree([
      'SELECT i, row_number() OVER w, sum(r) OVER w, lag(i) OVER w, count(*) OVER (PARTITION BY p) FROM sp WINDOW w AS (PARTITION BY p ORDER BY i) ORDER BY i',
      'SELECT i, first_value(i) OVER (PARTITION BY p / 2 ORDER BY r, i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), rank() OVER (PARTITION BY p / 2 ORDER BY r) FROM sp ORDER BY i',
      // Partitions of one to a few thousand rows in one input: the straddling one is copied, the rest sliced.
      'SELECT i, dense_rank() OVER (PARTITION BY CASE WHEN i < 9000 THEN p ELSE p / 700 END ORDER BY r), sum(i) OVER (PARTITION BY CASE WHEN i < 9000 THEN p ELSE p / 700 END) FROM sp ORDER BY i',
      'SELECT count(*), sum(rn), sum(c) FROM (SELECT row_number() OVER (PARTITION BY p::text ORDER BY i) AS rn, count(*) OVER (PARTITION BY p::text) AS c FROM sp) x',
    ]);
  }, 300_000);

  it('windows partitioned and ordered by computed text', async () => {
    await agree([
      'SELECT id, avg(f) OVER (PARTITION BY g::text ORDER BY k, id ROWS BETWEEN 9 PRECEDING AND CURRENT ROW) FROM w ORDER BY id',
      "SELECT id, row_number() OVER (PARTITION BY k::text ORDER BY id), rank() OVER (PARTITION BY g ORDER BY '<' || s) FROM w ORDER BY id",
      'SELECT id, dense_rank() OVER (PARTITION BY g ORDER BY CASE WHEN k > 20 THEN s END NULLS FIRST), count(*) OVER (PARTITION BY g ORDER BY CASE WHEN k > 20 THEN s END NULLS FIRST) FROM w ORDER BY id',
      'SELECT id, sum(q) OVER (PARTITION BY coalesce(s, \'-\') || (g % 2)::text ORDER BY k GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE TIES) FROM w ORDER BY id',
      'SELECT s2, id FROM (SELECT id, row_number() OVER (PARTITION BY lower(s) ORDER BY f DESC NULLS LAST, id) AS rn, lower(s) AS s2 FROM w) x WHERE rn <= 2 ORDER BY s2, id',
    ]);
  }, 300_000);
});
