/**
 * Per-partition Top-N at every partition count: one partition, a few, many, more than half the rows, one
 * row each; int, text (multibyte), timestamp and multi-column partition keys with NULLs; order keys with
 * ties and NULLs; row_number / rank / dense_rank with random k. Every query is checked against PostgreSQL
 * and against Quire with the rewrite off and forced on. A larger table (Quire only, past the probe) checks
 * both decisions of the cost guard and what EXPLAIN ANALYZE says about them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPglite, outcomeText, quireConnection, type SqlConnection } from '../harness/connection.js';
import { Database, formatValue } from '../../src/index.js';
import { estimatePartitions, estimateTopNRanking } from '../../src/physical/operators/topn-ranking-cost.js';
import { rng } from '../window/window-gen.js';

const SEED = Number(process.env.TOPN_SEED ?? 4242);
const COUNT = Number(process.env.TOPN_COUNT ?? 90);
const ROWS = 3000;

/** h is a scrambled 0..1000002; partition columns take it modulo a count. */
const TABLE = `CREATE TABLE pc AS SELECT i AS id, h,
    CASE WHEN i % 13 = 0 THEN NULL ELSE (i * 31) % 17 END AS o,
    CASE WHEN i % 11 = 0 THEN NULL ELSE ((h % 200) - 100) / 4.0 END::float8 AS f,
    CASE WHEN i % 9 = 0 THEN NULL ELSE (ARRAY['ä', 'b', 'ß', '日本', 'z', 'é', 'Ω𝄞'])[1 + (h % 7)] || (h % 5)::text END AS t,
    TIMESTAMP '2024-01-01 00:00:00' + ((h % 997) * INTERVAL '1 minute') AS ts
  FROM (SELECT i, (i * 7919) % 1000003 AS h FROM generate_series(1, ${ROWS}) i) s`;

/** Partition expressions by count: 1, a few, many, more than half the rows, about one row each. */
const PARTS = [
  '1',
  'h % 3',
  'CASE WHEN id % 7 = 0 THEN NULL ELSE h % 50 END',
  'h % 700',
  `h % ${Math.floor(ROWS * 0.7)}`,
  'id',
  't',
  'o, t',
  'h % 40, CASE WHEN id % 5 = 0 THEN NULL ELSE h % 3 END',
  'date_trunc(\'hour\', ts)',
  'f, o',
];
const ORDERS = ['o', 'o DESC NULLS LAST', 'f NULLS FIRST, o', 'ts DESC', 't', 't DESC, f', 'ts, o DESC NULLS FIRST'];
const FNS = ['row_number', 'rank', 'dense_rank'];
const CONDS = (k: number): string[] => [`rn <= ${k}`, `rn < ${k + 1}`, 'rn = 1', `rn <= ${k} AND id % 3 <> 0`, `${k} >= rn`];

function genQuery(seed: number): string {
  const r = rng(seed);
  const fn = r.pick(FNS);
  const part = r.pick(PARTS);
  let order = r.pick(ORDERS);
  const k = 1 + r.int(5);
  const cond = r.pick(CONDS(k));
  // row_number over ties picks arbitrary rows: only the unique tie-breaker makes PostgreSQL's answer one.
  if (fn === 'row_number') order += ', id';
  return `SELECT id, rn FROM (SELECT id, o, f, t, ts, ${fn}() OVER (PARTITION BY ${part} ORDER BY ${order}) AS rn FROM pc) x WHERE ${cond} ORDER BY id`;
}

describe('per-partition Top-N at any partition count', () => {
  let pg: SqlConnection;
  let db: Database;
  let q: SqlConnection;
  beforeAll(async () => {
    pg = await newPglite();
    db = await Database.create();
    q = quireConnection(db, formatValue);
    await pg.query(TABLE);
    await q.query(TABLE);
  }, 120_000);
  afterAll(async () => {
    await pg.close?.();
  });

  it(`${COUNT} random ranking filters agree with PostgreSQL and with the rewrite off`, async () => {
    const failures: string[] = [];
    let fired = 0;
    for (let i = 0; i < COUNT; i++) {
      const sql = genQuery(SEED * 977 + i);
      const want = await outcomeText(pg, sql);
      await q.query("SET quire.disabled_rules = 'derive-topn-from-window'");
      const off = await outcomeText(q, sql);
      await q.query('RESET quire.disabled_rules');
      if (off !== want) failures.push(`[off vs postgres] ${sql}\n  pg:    ${want.slice(0, 300)}\n  quire: ${off.slice(0, 300)}`);
      for (const mode of ['auto', 'on']) {
        await q.query(`SET quire.derive_topn = '${mode}'`);
        const got = await outcomeText(q, sql);
        if (got !== want) failures.push(`[${mode}] ${sql}\n  pg:    ${want.slice(0, 300)}\n  quire: ${got.slice(0, 300)}`);
        if (mode === 'on' && (await q.query(`EXPLAIN (FORMAT QUIRE) ${sql}`)).rows.some((row) => String(row[0]).includes('TopNRanking'))) fired++;
      }
      await q.query('RESET quire.derive_topn');
      if (failures.length >= 6) break;
    }
    expect(failures, failures.join('\n\n')).toEqual([]);
    expect(fired).toBeGreaterThan(COUNT / 2);
  }, 600_000);

  it('rank and dense_rank keep every tie at the cutoff', async () => {
    // o has 17 values over 3,000 rows: each value ties ~176 rows; k = 2 keeps whole peer groups.
    for (const fn of ['rank', 'dense_rank']) {
      for (const part of ['1', 'h % 3', 't']) {
        const sql = `SELECT id, rn FROM (SELECT id, ${fn}() OVER (PARTITION BY ${part} ORDER BY o DESC NULLS LAST) AS rn FROM pc) x WHERE rn <= 2 ORDER BY id`;
        await q.query("SET quire.derive_topn = 'on'");
        const got = await outcomeText(q, sql);
        await q.query('RESET quire.derive_topn');
        const want = await outcomeText(pg, sql);
        expect(got, sql).toBe(want);
        expect(got.split('\n').length).toBeGreaterThan(100);
      }
    }
  }, 120_000);
});

describe('cost guard', () => {
  it('estimates partitions and kept rows from a probe', () => {
    // 100,000 partitions, 250,000 of 1,000,000 rows seen: ~91,800 partitions touched.
    expect(estimatePartitions(91_800, 250_000)).toBeGreaterThan(98_000);
    expect(estimatePartitions(91_800, 250_000)).toBeLessThan(102_000);
    expect(estimatePartitions(250_000, 250_000)).toBe(Infinity);
    expect(estimatePartitions(1000, 250_000)).toBeLessThan(1010);
    const k3 = estimateTopNRanking(3, 91_800, 250_000, 210_000, 1_000_000);
    expect(k3.kept / k3.rows).toBeGreaterThan(0.28);
    expect(k3.kept / k3.rows).toBeLessThan(0.32);
    expect(k3.sortAndFilter).toBe(false);
    expect(estimateTopNRanking(1, 250_000, 250_000, 250_000, 1_000_000).sortAndFilter).toBe(true);
    // Ties kept by rank: the probe keeps far more than k per partition, and the estimate follows it.
    expect(estimateTopNRanking(3, 1000, 250_000, 240_000, 1_000_000).sortAndFilter).toBe(true);
    expect(estimateTopNRanking(3, 1000, 250_000, 3000, 1_000_000).sortAndFilter).toBe(false);
  });

  it('past the probe: hash top-k with many small partitions, sort-and-filter with about one row each', async () => {
    const db = await Database.create();
    await db.query(`CREATE TABLE big AS SELECT i AS id, (i * 7919) % 100003 AS u, ((i * 7919) % 100003) % 20000 AS p,
      ((i * 31) % 1000)::float8 AS v, (ARRAY['α', 'b', '日'])[1 + i % 3] || (((i * 7919) % 100003) % 5000)::text AS s FROM generate_series(1, 150000) i`);
    const text = async (sql: string): Promise<string> => (await db.query(sql)).rows.map((r) => r.map((v) => String(v)).join('|')).join('\n');
    const cases: [string, RegExp][] = [
      ['p', /strategy: hash.*pruning=kept decision=hash top-k \(~\d+ of 150000 rows kept in ~\d+ partitions\)/],
      ['s', /pruning=kept decision=hash top-k/],
      ['p % 100, s', /pruning=kept decision=hash top-k/],
      ['u', /pruning=abandoned decision=sort and filter \(~\d+ of 150000 rows kept in ~\d+ partitions: pruning saves too little\)/],
      ['u, s', /pruning=abandoned decision=sort and filter/],
    ];
    for (const [part, want] of cases) {
      for (const k of [1, 3]) {
        const sql = `SELECT id, rn FROM (SELECT id, row_number() OVER (PARTITION BY ${part} ORDER BY v DESC, id) AS rn FROM big) x WHERE rn <= ${k} ORDER BY id`;
        const plan = (await db.query(`EXPLAIN (FORMAT QUIRE, ANALYZE) ${sql}`)).rows.map((r) => r[0]).join('\n');
        expect(plan, sql).toMatch(want);
        const got = await text(sql);
        await db.query("SET quire.disabled_rules = 'derive-topn-from-window'");
        const off = await text(sql);
        await db.query('RESET quire.disabled_rules');
        expect(got === off, sql).toBe(true);
        expect(got.length).toBeGreaterThan(0);
      }
    }
  }, 300_000);
});
