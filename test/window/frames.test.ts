/**
 * Moving-frame aggregates against PostgreSQL (PGlite): seeded random frames (ROWS / RANGE / GROUPS, offsets
 * from 0 past the partition size, every EXCLUDE option, empty frames) over keys with NULLs and ties and
 * partitions of one row, with int4 / int8 / float8 / numeric / date / multibyte text arguments.
 *
 * Unlike window-gen.ts, the float data are not exact binary fractions, so float sums and averages taken in
 * a different order than PostgreSQL's may differ in the last bits: numbers are compared within 1e-9
 * relative (absolute near zero), everything else exactly. FRAMES_SEED / FRAMES_COUNT replay other seeds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asSqlError, pgliteAndQuire, type SqlConnection } from '../harness/connection.js';
import { rng } from './window-gen.js';

const SEED = Number(process.env.FRAMES_SEED ?? 9090);
const COUNT = Number(process.env.FRAMES_COUNT ?? 300);

type Rng = ReturnType<typeof rng>;

const TEXTS = ['a', 'é', 'ß', '日本', '日', '😀', 'ｚ', 'Z', 'ab', 'éa', ''];

function setup(table: string, seed: number, rows: number): string[] {
  const r = rng(seed);
  const vals: string[] = [];
  const nul = (p: number, v: string): string => (r.chance(p) ? 'NULL' : v);
  for (let id = 1; id <= rows; id++) {
    // Mostly a few large partitions, plus partitions of a single row.
    const p = r.chance(0.08) ? 100 + id : r.int(4);
    const k = nul(0.12, String(r.int(Math.max(3, rows / 8))));
    const i = nul(0.1, String(r.int(2001) - 1000));
    const b = nul(0.1, r.chance(0.1) ? String(4e15 + r.int(1000)) : String(r.int(100000) - 50000));
    const special = r.chance(0.04) ? r.pick(["'NaN'", "'Infinity'", "'-Infinity'"]) : null;
    const x = nul(0.1, special ?? String((r.int(200001) - 100000) / 1000));
    const n = nul(0.1, String((r.int(20001) - 10000) / 100));
    const d = nul(0.1, `DATE '2024-01-01' + ${r.int(90)}`);
    const t = nul(0.1, `'${r.pick(TEXTS)}${r.pick(TEXTS)}'`);
    const ts = nul(0.1, `TIMESTAMP '2024-03-01 00:00:00' + INTERVAL '${r.int(60 * 24 * 40)} minutes'`);
    vals.push(`(${id}, ${p}, ${k}, ${i}, ${b}, ${x}, ${n}, ${d}, ${t}, ${ts})`);
  }
  return [`CREATE TABLE ${table} (id int, p int, k int, i int4, b int8, x float8, n numeric, d date, t text, ts timestamp)`, `INSERT INTO ${table} VALUES ${vals.join(', ')}`];
}

/** Aggregates whose result depends only on the set of rows in the frame (so ties may be ordered freely). */
const SET_FNS = [
  'sum(i)',
  'sum(b)',
  'sum(x)',
  'avg(x)',
  'avg(i)',
  'min(x)',
  'max(x)',
  'min(i)',
  'max(b)',
  'min(d)',
  'max(d)',
  'sum(n)',
  'avg(n)',
  'min(t)',
  'max(t)',
  'count(x)',
  'count(*)',
  'stddev_samp(x)',
  'var_pop(i)',
  'sum(x) FILTER (WHERE i > 0)',
  'max(i) FILTER (WHERE k % 2 = 0)',
];

const KINDS = ['UNBOUNDED PRECEDING', 'P', 'CURRENT ROW', 'F', 'UNBOUNDED FOLLOWING'];

function frame(r: Rng, units: string, offset: () => string): string {
  let s: number;
  let e: number;
  do {
    s = r.int(4);
    e = 1 + r.int(4);
  } while (s > e);
  const b = (k: number): string => (KINDS[k] === 'P' ? `${offset()} PRECEDING` : KINDS[k] === 'F' ? `${offset()} FOLLOWING` : KINDS[k]!);
  const ex = r.pick(['', '', ' EXCLUDE CURRENT ROW', ' EXCLUDE GROUP', ' EXCLUDE TIES', ' EXCLUDE NO OTHERS']);
  return `${units} BETWEEN ${b(s)} AND ${b(e)}${ex}`;
}

function call(r: Rng, rows: number): string {
  const part = r.chance(0.75) ? 'PARTITION BY p ' : '';
  const rowOffset = (): string => String(r.pick([0, 1, 2, 3, 5, 17, r.int(rows), rows + 10]));
  const dir = r.pick(['', ' DESC', ' NULLS FIRST', ' DESC NULLS LAST']);
  const units = r.pick(['ROWS', 'RANGE', 'GROUPS']);
  let order: string;
  let f: string;
  if (units === 'ROWS') {
    // ROWS frames depend on the order of peers: make the order total.
    order = `ORDER BY k${dir}, id`;
    f = frame(r, 'ROWS', rowOffset);
  } else if (units === 'GROUPS') {
    order = `ORDER BY k${dir}`;
    f = frame(r, 'GROUPS', rowOffset);
  } else if (r.chance(0.25)) {
    order = `ORDER BY d${dir}`;
    f = frame(r, 'RANGE', () => `INTERVAL '${r.pick(['0 days', '1 day', '3 days', '10 days', '100 days', '36 hours', '1 month'])}'`);
  } else if (r.chance(0.3)) {
    order = `ORDER BY ts${dir}`;
    f = frame(r, 'RANGE', () => `INTERVAL '${r.pick(['0', '1 hour', '36 hours', '1 day 2 hours', '3 days', '1 month', '90 minutes 30 seconds'])}'`);
  } else {
    order = `ORDER BY k${dir}`;
    f = frame(r, 'RANGE', () => String(r.pick([0, 1, 2, 5, 40, rows])));
  }
  return `${r.pick(SET_FNS)} OVER (${part}${order} ${f})`;
}

function query(table: string, seed: number, rows: number): string {
  const r = rng(seed);
  const n = 1 + r.int(3);
  const calls: string[] = [];
  for (let c = 0; c < n; c++) calls.push(call(r, rows));
  return `SELECT id, ${calls.join(', ')} FROM ${table} ORDER BY id`;
}

async function run(c: SqlConnection, sql: string): Promise<(string | null)[][] | string> {
  try {
    return (await c.query(sql)).rows;
  } catch (e) {
    return `ERROR ${asSqlError(e).code ?? '?'}`;
  }
}

const NUM = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

/** Equal text, or numbers within 1e-9 relative (absolute below 1). */
function sameCell(a: string | null, b: string | null): boolean {
  if (a === b) return true;
  if (a === null || b === null || !NUM.test(a) || !NUM.test(b)) return false;
  const x = Number(a);
  const y = Number(b);
  return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));
}

function diff(want: (string | null)[][] | string, got: (string | null)[][] | string): string | null {
  if (typeof want === 'string' || typeof got === 'string') return want === got ? null : `postgres: ${String(want).slice(0, 200)}\n  quire: ${String(got).slice(0, 200)}`;
  if (want.length !== got.length) return `row counts ${want.length} vs ${got.length}`;
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i]!;
    for (let j = 0; j < w.length; j++) if (!sameCell(w[j]!, g[j] ?? null)) return `row ${i} column ${j}: postgres ${w[j]} quire ${g[j]}`;
  }
  return null;
}

/** One PGlite and one Quire for every test here: starting PGlite is the slow part. */
let pg: SqlConnection;
let q: SqlConnection;
const TABLES: [string, number, number, number][] = [
  ['w', 300, COUNT, SEED],
  // Partitions of ~1,000 rows: frames long enough that the deque and the front/back split both cycle many times.
  ['w4', 4000, Math.ceil(COUNT / 10), SEED + 1],
];

beforeAll(async () => {
  ({ pg, q } = await pgliteAndQuire(TABLES.flatMap(([table, rows, , seed]) => setup(table, seed, rows))));
}, 300_000);
afterAll(async () => {
  await pg.close?.();
  await q.close?.();
});

describe('moving frames vs PostgreSQL', () => {
  for (const [table, rows, count, seed] of TABLES) {
    it(`${count} random frames over ${rows} rows agree`, async () => {
      const failures: string[] = [];
      let errors = 0;
      for (let i = 0; i < count; i++) {
        const sql = query(table, seed * 104729 + i, rows);
        const want = await run(pg, sql);
        const got = await run(q, sql);
        if (typeof want === 'string') errors++;
        const d = diff(want, got);
        if (d !== null && failures.length < 8) failures.push(`${sql}\n  ${d}`);
      }
      expect(errors).toBeLessThan(count / 10);
      expect(failures, failures.join('\n\n')).toEqual([]);
    }, 900_000);
  }
});

describe('moving frames: fixed cases', () => {
  const cases: [string, string][] = [
    // A huge value leaving the frame: subtracting it back out would lose the small values.
    ['float sum does not drift', "SELECT sum(x) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM (VALUES (1, 1e20::float8), (2, 1.5), (3, 2.25), (4, 1e-3)) v(id, x) ORDER BY id"],
    ['float sum overflow is an error', 'SELECT sum(x) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM (VALUES (1, 1e308::float8), (2, 1e308), (3, 1.0)) v(id, x) ORDER BY id'],
    ['float avg of huge values is an error', 'SELECT avg(x) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM (VALUES (1, 1e200::float8), (2, 1e200)) v(id, x) ORDER BY id'],
    ['infinities and NaN', "SELECT id, sum(x) OVER w, avg(x) OVER w, min(x) OVER w, max(x) OVER w FROM (VALUES (1, 'Infinity'::float8), (2, 1), (3, '-Infinity'), (4, 'NaN'), (5, 2), (6, 3), (7, 4)) v(id, x) WINDOW w AS (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) ORDER BY id"],
    ['max keeps the later of -0 and 0', "SELECT id, max(x) OVER w::text, min(x) OVER w::text FROM (VALUES (1, 0::float8), (2, '-0'), (3, 0), (4, '-0')) v(id, x) WINDOW w AS (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) ORDER BY id"],
    ['int sums beyond int4', 'SELECT id, sum(x) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) FROM (VALUES (1, 2147483647), (2, 2147483647), (3, -5), (4, 2147483647), (5, NULL)) v(id, x) ORDER BY id'],
    ['EXCLUDE TIES keeps the current row', 'SELECT id, sum(x) OVER w, min(x) OVER w, max(x) OVER w, sum(x::float8) OVER w FROM (VALUES (1, 1, 5), (2, 1, 7), (3, 2, 1), (4, 2, 9), (5, 3, NULL), (6, 3, 4)) v(id, k, x) WINDOW w AS (ORDER BY k GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE TIES) ORDER BY id'],
    ['empty frames give NULL', 'SELECT id, sum(x) OVER w, avg(x::float8) OVER w, min(x) OVER w FROM (VALUES (1, 1), (2, 2), (3, 3)) v(id, x) WINDOW w AS (ORDER BY id ROWS BETWEEN 2 FOLLOWING AND 1 FOLLOWING) ORDER BY id'],
    [
      'inverted ROWS frames are empty for every evaluator',
      "SELECT id, count(*) OVER a, count(x) OVER a, sum(x) OVER a, first_value(x) OVER a, last_value(x) OVER a, nth_value(x, 2) OVER a, string_agg(x::text, ',') OVER a, count(*) OVER b, sum(x) OVER b, max(x) OVER b, string_agg(x::text, ',') OVER b FROM (VALUES (1, 1, 1), (2, 1, 2), (3, 1, 3), (4, 2, 4), (5, 2, NULL), (6, 2, 6), (7, 2, 7)) v(id, p, x) WINDOW a AS (PARTITION BY p ORDER BY id ROWS BETWEEN 1 PRECEDING AND 2 PRECEDING), b AS (ORDER BY id ROWS BETWEEN 3 FOLLOWING AND 1 FOLLOWING) ORDER BY id",
    ],
    ['one-row partitions', 'SELECT id, sum(x) OVER w, min(x) OVER w, avg(x::float8) OVER w FROM (VALUES (1, 1), (2, 2), (3, 3)) v(id, x) WINDOW w AS (PARTITION BY id ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) ORDER BY id'],
  ];
  for (const [name, sql] of cases) {
    it(name, async () => {
      const want = await run(pg, sql);
      const got = await run(q, sql);
      expect(diff(want, got), `${sql}\n${JSON.stringify(want)}\n${JSON.stringify(got)}`).toBeNull();
    });
  }
});

// PostgreSQL sums a float frame whose start moves from its start, left to right; any other order can
// change the last digit it prints. Compared as text, without the tolerance above.
describe('moving float sums print as PostgreSQL prints them', () => {
  const sql = `SELECT id, sum(x) OVER w, avg(x) OVER w, sum(x) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW),
      sum(x) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING)
    FROM (SELECT g AS id, (((g * 7919) % 1000) / 100.0 + 0.01 * (g % 7))::float8 AS x FROM generate_series(1, 3000) g) v
    WINDOW w AS (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) ORDER BY id`;
  it('exactly', async () => {
    const want = await run(pg, sql);
    const got = await run(q, sql);
    expect(got).toEqual(want);
  });
});

// One partition of 80,000 rows is evaluated in chunks (with yields between them): running frames carry
// their state from chunk to chunk, bounded frames read each chunk with its overlap.
describe('moving frames: a partition evaluated in chunks', () => {
  beforeAll(async () => {
    const sql = [
      'CREATE TABLE big (id int, k int, i int4, x float8)',
      "INSERT INTO big SELECT g, g / 7, CASE WHEN g % 13 = 0 THEN NULL ELSE (g * 7919) % 2001 - 1000 END, CASE WHEN g % 17 = 0 THEN NULL ELSE ((g::int8 * 104729) % 100003) / 7.0 END FROM generate_series(1, 80000) g",
    ];
    for (const s of sql) {
      await pg.query(s);
      await q.query(s);
    }
  }, 300_000);
  const queries = [
    'SELECT count(*), sum(s), sum(mn), sum(mx), sum(si) FROM (SELECT sum(x) OVER (ORDER BY id) s, min(x) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 3 PRECEDING) mn, max(i) OVER (ORDER BY k) mx, sum(i) OVER (ORDER BY k DESC, id DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 2 FOLLOWING) si FROM big) t',
    'SELECT sum(a), sum(mn), sum(mx), sum(si) FROM (SELECT avg(x) OVER w a, min(x) OVER w mn, max(i) OVER w mx, sum(i) OVER w si FROM big WINDOW w AS (ORDER BY id ROWS BETWEEN 100 PRECEDING AND 99 FOLLOWING EXCLUDE CURRENT ROW)) t',
    'SELECT sum(a), sum(mn) FROM (SELECT sum(x) OVER w a, max(x) OVER w mn FROM big WINDOW w AS (ORDER BY id ROWS BETWEEN 5 FOLLOWING AND 40 FOLLOWING)) t',
  ];
  for (const sql of queries) {
    it(sql.slice(0, 80), async () => {
      const want = await run(pg, sql);
      const got = await run(q, sql);
      expect(diff(want, got), `${sql}\n${JSON.stringify(want)}\n${JSON.stringify(got)}`).toBeNull();
    }, 300_000);
  }
});
