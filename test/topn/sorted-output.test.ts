/**
 * The hashed per-partition Top-N promises rows sorted by (partition keys ASC NULLS LAST, order keys),
 * ties in arrival order, whenever every key is a plain column, so the Window above runs without a sort
 * and an ORDER BY over those keys may be dropped. Checked in order against PGlite: int keys with NULLs,
 * negatives, values past the direct-address table and the int4 extremes; text keys with multibyte
 * characters; two-column keys; row_number / rank / dense_rank; and the path where pruning is abandoned
 * and the rest of the input goes through a sort instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeText, pgliteAndQuire, quireConnection, type SqlConnection } from '../harness/connection.js';
import { Database, formatValue } from '../../src/index.js';

const ROWS = 9000;
const BIG = 80_000;

const SETUP = [
  `CREATE TABLE so AS SELECT i AS id,
     CASE WHEN i % 17 = 0 THEN NULL WHEN i % 23 = 0 THEN -5 - (h % 3) WHEN i % 29 = 0 THEN 3000000 + (h % 2)
       WHEN i % 37 = 0 THEN 2147483647 WHEN i % 41 = 0 THEN -2147483647 - 1 ELSE h % 400 END AS p,
     CASE WHEN i % 19 = 0 THEN NULL ELSE (ARRAY['ä', '日本', 'Ω𝄞', 'x', 'B', 'b'])[1 + (h % 6)] || ((h / 11) % 40)::text END AS t,
     CASE WHEN i % 31 = 0 THEN NULL ELSE ((h % 53) - 20)::float8 / 2 END AS v,
     (h % 7) AS o
   FROM (SELECT i, (i * 7919) % 1000003 AS h FROM generate_series(1, ${ROWS}) i) s`,
  // About one row per partition past the probe: the cost guard gives pruning up.
  `CREATE TABLE big AS SELECT i AS id, (i * 7919) % ${BIG - 7000} AS p, (((i % 9973) * 37) % 1000)::float8 AS v FROM generate_series(1, ${BIG}) i`,
];

const PARTS = ['p', 't', 'p, t', 'o, p'];
const ORDERS = ['v', 'v DESC NULLS LAST, id', 'o DESC, v NULLS FIRST', 'id'];
const FNS = ['row_number', 'rank', 'dense_rank'];

describe('per-partition Top-N: rows sorted by partition and order keys', () => {
  let pg: SqlConnection;
  let q: SqlConnection;
  beforeAll(async () => {
    ({ pg, q } = await pgliteAndQuire(SETUP, quireConnection(await Database.create(), formatValue)));
  }, 120_000);
  afterAll(async () => {
    await pg.close?.();
  });

  it('come out in PostgreSQL ORDER BY order, with no sort below the Window', async () => {
    const failures: string[] = [];
    let k = 0;
    for (const part of PARTS) {
      for (const order of ORDERS) {
        for (const fn of FNS) {
          k = (k % 4) + 1;
          // id last: a unique tie-breaker makes every ranking and every order one answer.
          const o = `${order}, id`;
          const inner = `SELECT id, ${part.split(', ').join(', ')}, rn FROM (SELECT *, ${fn}() OVER (PARTITION BY ${part} ORDER BY ${o}) AS rn FROM so) x WHERE rn <= ${k}`;
          const pgOrder = `${part.split(', ').map((c) => `${c} NULLS LAST`).join(', ')}, ${o}`;
          const want = await outcomeText(pg, `SELECT * FROM (SELECT *, ${fn}() OVER (PARTITION BY ${part} ORDER BY ${o}) AS rn FROM so) x WHERE rn <= ${k} ORDER BY ${pgOrder}`);
          const ordered = `SELECT * FROM (SELECT *, ${fn}() OVER (PARTITION BY ${part} ORDER BY ${o}) AS rn FROM so) x WHERE rn <= ${k} ORDER BY ${pgOrder}`;
          // Without ORDER BY the order is the Window's, i.e. the Top-N's: the same as the sorted answer.
          const bare = `SELECT * FROM (SELECT *, ${fn}() OVER (PARTITION BY ${part} ORDER BY ${o}) AS rn FROM so) x WHERE rn <= ${k}`;
          for (const sql of [ordered, bare]) {
            const got = await outcomeText(q, sql);
            if (got !== want) failures.push(`${sql}\n  pg:    ${want.slice(0, 300)}\n  quire: ${got.slice(0, 300)}`);
          }
          const plan = (await q.query(`EXPLAIN (FORMAT QUIRE) ${bare}`)).rows.map((r) => r[0]).join('\n');
          if (!plan.includes('TopNRanking') || /Sort \(/.test(plan)) failures.push(`plan of ${inner}:\n${plan}`);
          if (want.length < 50) failures.push(`too few rows: ${bare}`);
        }
      }
    }
    expect(failures.slice(0, 5), failures.slice(0, 5).join('\n\n')).toEqual([]);
  }, 600_000);

  it('stay sorted when pruning is abandoned and the rest is sorted instead', async () => {
    for (const fn of ['row_number', 'rank']) {
      const bare = `SELECT * FROM (SELECT *, ${fn}() OVER (PARTITION BY p ORDER BY v DESC, id) AS rn FROM big) x WHERE rn <= 2`;
      const want = await outcomeText(pg, `${bare} ORDER BY p, v DESC, id`);
      expect(await outcomeText(q, bare)).toBe(want);
      const a = (await q.query(`EXPLAIN (FORMAT QUIRE, ANALYZE) ${bare}`)).rows.map((r) => r[0]).join('\n');
      expect(a).toMatch(/TopNRanking[^\n]*pruning=abandoned/);
      expect(a).not.toMatch(/Sort \(/);
    }
  }, 120_000);

  it('keeps the Window sort when a key is computed (the order would not survive the projection)', async () => {
    const sql = 'SELECT id, rn FROM (SELECT *, row_number() OVER (PARTITION BY p % 7 ORDER BY v, id) AS rn FROM so) x WHERE rn <= 2';
    const plan = (await q.query(`EXPLAIN (FORMAT QUIRE) ${sql}`)).rows.map((r) => r[0]).join('\n');
    expect(plan).toMatch(/Sort \(/);
    expect(await outcomeText(q, `${sql} ORDER BY id`)).toBe(await outcomeText(pg, `${sql} ORDER BY id`));
  }, 60_000);
});
