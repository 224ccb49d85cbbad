/**
 * Two paths of the row-reference store (topn-ranking-refs.ts), checked against PGlite:
 *  - an input where nearly every row is kept (k above the typical partition size over ~100,000
 *    partitions) is given up on after the first PROBE_ROWS rows, before the full probe, and the rows
 *    retained so far go on whole, sorted with the rest (plain column keys) or passed through (computed key);
 *  - a text partition key with dictionary codes (a table filled by INSERT … SELECT) has its partitions
 *    ordered by the dictionary's rank: multibyte characters, characters past U+FFFF, upper / lower case
 *    and NULL keys, in the order PostgreSQL's ORDER BY gives (C collation: code point order);
 *  - small non-negative int keys (and NULL) have their kept rows gathered once, in partition order,
 *    straight from the retained batches: NULLs in other columns, text with and without codes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeText, pgliteAndQuire, quireConnection, type SqlConnection } from '../harness/connection.js';
import { Database, formatValue } from '../../src/index.js';

const BIG = 280_000;

const SETUP = [
  // ~93,000 partitions of ~3 rows in scrambled order: with k = 5 nearly every row is kept.
  `CREATE TABLE many AS SELECT i AS id, ((i::bigint * 7919) % 1000003 % 93001)::int AS p, ((i * 31) % 997)::float8 / 8 AS v FROM generate_series(1, ${BIG}) i`,
  `CREATE TABLE tx (id int, t text, v float8, w float8)`,
  // ~1,800 text keys of ~22 rows, a few keys of one row, one row in 13 NULL.
  `INSERT INTO tx SELECT i,
     CASE WHEN i % 13 = 0 THEN NULL WHEN i % 4001 = 0 THEN 'solo' || i::text
       ELSE (ARRAY['ä', '日本', 'Ω𝄞', 'x', 'B', 'b'])[1 + (i % 6)] || ((i * 7919 % 100003) % 300)::text END,
     CASE WHEN i % 29 = 0 THEN NULL ELSE ((i * 31) % 1009)::float8 / 4 END,
     ((i * 17) % 503)::float8 / 2
   FROM generate_series(1, 40000) i`,
  `CREATE TABLE ip (id int, p int, v float8, t text, u float8)`,
  `INSERT INTO ip SELECT i, CASE WHEN i % 17 = 0 THEN NULL ELSE (i * 7919) % 1000003 % 3000 END,
     ((i * 613) % 1009)::float8 / 3,
     CASE WHEN i % 11 = 0 THEN NULL ELSE (ARRAY['ä', '日本', 'Ω𝄞', 'x'])[1 + (i % 4)] || (i % 50)::text END,
     CASE WHEN i % 7 = 0 THEN NULL ELSE i::float8 / 8 END
   FROM generate_series(1, 30000) i`,
  // Text without codes (CREATE TABLE AS stores plain strings).
  `CREATE TABLE ip2 AS SELECT id, p, v, t || '' AS t, u FROM ip`,
];

describe('per-partition Top-N: early give-up and dictionary-ordered text partitions', () => {
  let pg: SqlConnection;
  let q: SqlConnection;
  beforeAll(async () => {
    ({ pg, q } = await pgliteAndQuire(SETUP, quireConnection(await Database.create(), formatValue)));
  }, 300_000);
  afterAll(async () => {
    await pg?.close?.();
  });

  it('gives pruning up after the first probe step when nearly every row is kept, same rows and order', async () => {
    const bare = `SELECT id, p, v, rn FROM (SELECT *, row_number() OVER (PARTITION BY p ORDER BY v, id) AS rn FROM many) x WHERE rn <= 5`;
    const want = await outcomeText(pg, `${bare} ORDER BY p, v, id`);
    expect(await outcomeText(q, bare)).toBe(want);
    const a = (await q.query(`EXPLAIN (FORMAT QUIRE, ANALYZE) ${bare}`)).rows.map((r) => r[0]).join('\n');
    expect(a).toMatch(/TopNRanking[^\n]*pruning=abandoned[^\n]*pruning saves too little, after 65536 rows[^\n]*store=row refs/);
    // A computed key: no sorted output, the retained batches and the rest pass through to the Window's sort.
    const computed = `SELECT id, rn FROM (SELECT *, row_number() OVER (PARTITION BY p + 1 ORDER BY v DESC, id) AS rn FROM many) x WHERE rn <= 5 ORDER BY id`;
    expect(await outcomeText(q, computed)).toBe(await outcomeText(pg, computed));
    const b = (await q.query(`EXPLAIN (FORMAT QUIRE, ANALYZE) ${computed}`)).rows.map((r) => r[0]).join('\n');
    expect(b).toMatch(/TopNRanking[^\n]*pruning=abandoned[^\n]*after 65536 rows/);
  }, 300_000);

  it('waits for the full probe where the first step is not clear (k = 2 over partitions of ~3 rows)', async () => {
    const sql = `SELECT id, rn FROM (SELECT *, row_number() OVER (PARTITION BY p ORDER BY v, id) AS rn FROM many) x WHERE rn <= 2 ORDER BY id`;
    expect(await outcomeText(q, sql)).toBe(await outcomeText(pg, sql));
    const a = (await q.query(`EXPLAIN (FORMAT QUIRE, ANALYZE) ${sql}`)).rows.map((r) => r[0]).join('\n');
    expect(a).toMatch(/TopNRanking[^\n]*decision=/);
    expect(a).not.toMatch(/after \d+ rows/);
    // Keys cycling through the input: the first step sees each key once, which is no evidence.
    const cyc = `SELECT id, rn FROM (SELECT *, row_number() OVER (PARTITION BY id % 80000 ORDER BY v, id) AS rn FROM many) x WHERE rn <= 3 ORDER BY id`;
    expect(await outcomeText(q, cyc)).toBe(await outcomeText(pg, cyc));
    const c = (await q.query(`EXPLAIN (FORMAT QUIRE, ANALYZE) ${cyc}`)).rows.map((r) => r[0]).join('\n');
    expect(c).toMatch(/TopNRanking[^\n]*decision=/);
    expect(c).not.toMatch(/after \d+ rows/);
  }, 300_000);

  it('orders text partitions by the dictionary rank as ORDER BY does', async () => {
    const failures: string[] = [];
    for (const fn of ['row_number', 'rank', 'dense_rank']) {
      for (const k of [1, 3, 40]) {
        for (const order of ['w, id', 'w DESC, id', 'v DESC NULLS LAST, id']) {
          const bare = `SELECT t, id, v, rn FROM (SELECT *, ${fn}() OVER (PARTITION BY t ORDER BY ${order}) AS rn FROM tx) x WHERE rn <= ${k}`;
          const want = await outcomeText(pg, `${bare} ORDER BY t NULLS LAST, ${order}`);
          const got = await outcomeText(q, bare);
          if (got !== want) failures.push(`${bare}\n  pg:    ${want.slice(0, 300)}\n  quire: ${got.slice(0, 300)}`);
          const plan = (await q.query(`EXPLAIN (FORMAT QUIRE) ${bare}`)).rows.map((r) => r[0]).join('\n');
          if (!plan.includes('TopNRanking') || /Sort \(/.test(plan)) failures.push(`plan of ${bare}:\n${plan}`);
        }
      }
    }
    expect(failures.slice(0, 5), failures.slice(0, 5).join('\n\n')).toEqual([]);
    const a = (await q.query(`EXPLAIN (FORMAT QUIRE, ANALYZE) SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY t ORDER BY w, id) AS rn FROM tx) x WHERE rn <= 2`)).rows
      .map((r) => r[0])
      .join('\n');
    // The row-reference store: its kept rows carry the table's codes (a NULL order key would hand over).
    expect(a).toMatch(/TopNRanking[^\n]*store=row refs/);
  }, 300_000);

  it('gathers int-keyed partitions in key order from the retained batches', async () => {
    const failures: string[] = [];
    for (const tbl of ['ip', 'ip2']) {
      for (const k of [1, 2, 5]) {
        for (const order of ['v, id', 'v DESC, id DESC']) {
          const bare = `SELECT id, p, t, u, v, rn FROM (SELECT *, row_number() OVER (PARTITION BY p ORDER BY ${order}) AS rn FROM ${tbl}) x WHERE rn <= ${k}`;
          const want = await outcomeText(pg, `${bare} ORDER BY p NULLS LAST, ${order}`);
          const got = await outcomeText(q, bare);
          if (got !== want) failures.push(`${bare}\n  pg:    ${want.slice(0, 300)}\n  quire: ${got.slice(0, 300)}`);
          const a = (await q.query(`EXPLAIN (FORMAT QUIRE, ANALYZE) ${bare}`)).rows.map((r) => r[0]).join('\n');
          if (!/TopNRanking[^\n]*store=row refs/.test(a) || /Sort \(/.test(a)) failures.push(`plan of ${bare}:\n${a}`);
        }
      }
    }
    expect(failures.slice(0, 5), failures.slice(0, 5).join('\n\n')).toEqual([]);
  }, 300_000);
});
