/**
 * derive-topn-from-window: seeded random ranking-filter queries on data with duplicates, NULLs and ties.
 * Every query must return the same rows with the rule in each mode (auto / on) as with it disabled,
 * and — when the answer is deterministic in PostgreSQL — the same rows as PGlite. TOPN_SEED / TOPN_COUNT
 * replay another seed or run more queries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteAndQuire, outcomeText, quireConnection, type SqlConnection } from '../harness/connection.js';
import { Database, formatValue } from '../../src/index.js';
import { rng } from '../window/window-gen.js';

const SEED = Number(process.env.TOPN_SEED ?? 7331);
const COUNT = Number(process.env.TOPN_COUNT ?? 160);

function setupSql(seed: number, rows = 240): string[] {
  const r = rng(seed);
  const vals: string[] = [];
  const nul = (p: number, v: string): string => (r.chance(p) ? 'NULL' : v);
  for (let id = 1; id <= rows; id++) {
    const f = r.chance(0.04) ? r.pick(["'NaN'", "'Infinity'", "'-Infinity'"]) : String((r.int(20) - 10) / 2);
    vals.push(`(${id}, ${nul(0.1, String(r.int(5)))}, ${nul(0.1, `'q${r.int(4)}'`)}, ${nul(0.12, String(r.int(8)))}, ${nul(0.1, f)})`);
  }
  return ['CREATE TABLE r (id int, p int, q text, k int, f float8)', `INSERT INTO r VALUES ${vals.join(', ')}`];
}

const PARTS = ['', 'p', 'p, q', 'k % 3', 'q', 'p, k'];
const ORDERS = ['f', 'f DESC NULLS LAST', 'k, f', 'k DESC', 'q NULLS FIRST, k', 'f NULLS FIRST, q DESC'];
const FNS = ['row_number', 'rank', 'dense_rank'];

interface Gen {
  sql: string;
  /** PostgreSQL's answer is fully determined (no row_number over ties). */
  deterministic: boolean;
  /** The rule is expected to fire (in 'on' mode). */
  fires: boolean;
}

function genQuery(seed: number): Gen {
  const r = rng(seed);
  const fn = r.pick(FNS);
  const part = r.pick(PARTS);
  let order = r.pick(ORDERS);
  const unique = fn === 'row_number' && r.chance(0.6);
  if (unique) order += ', id';
  const over = `(${part ? `PARTITION BY ${part} ` : ''}ORDER BY ${order})`;
  const k = 1 + r.int(4);
  const conds: [string, boolean][] = [
    [`rn <= ${k}`, true],
    [`rn < ${k + 1}`, true],
    ['rn = 1', true],
    [`${k} >= rn`, true],
    [`rn BETWEEN 1 AND ${k}`, true],
    [`rn BETWEEN 2 AND ${k + 1}`, true],
    [`rn = ${k}`, true],
    ['rn IN (1, 2)', true],
    ['rn <= 0', true],
    [`rn <= ${k} AND f > 0`, true],
    [`rn > ${k}`, false],
  ];
  const [cond, condFires] = r.pick(conds);
  const extras: [string, boolean][] = [
    ['', true],
    [`, sum(k) OVER (${part ? `PARTITION BY ${part} ` : ''}ORDER BY ${order} ROWS UNBOUNDED PRECEDING) AS s`, true],
    [`, lag(k) OVER ${over} AS s`, true],
    [`, count(*) OVER (${part ? `PARTITION BY ${part}` : ''}) AS s`, false],
    [`, ntile(2) OVER ${over} AS s`, false],
    [`, cume_dist() OVER ${over} AS s`, false],
    [`, lead(k) OVER ${over} AS s`, false],
  ];
  const [extra, extraFires] = r.chance(0.35) ? r.pick(extras) : extras[0]!;
  // ROWS frames, lag, lead and ntile depend on the order of peers: deterministic only with the unique key.
  const extraDet = extra === '' || extra.includes('count(*)') || extra.includes('cume_dist') || unique;
  const where = r.chance(0.3) ? ' WHERE id % 5 <> 0' : '';
  const inner = `SELECT id, p, q, k, f, ${fn}() OVER ${over} AS rn${extra} FROM r${where}`;
  const cols = `id, p, q, k, f, rn${extra ? ', s' : ''}`;
  const sql = r.chance(0.5)
    ? `SELECT ${cols} FROM (${inner}) x WHERE ${cond} ORDER BY id, rn`
    : `WITH c AS (${inner}) SELECT ${cols} FROM c WHERE ${cond} ORDER BY id, rn`;
  const fnFires = fn === 'row_number' || order.length > 0;
  return { sql, deterministic: (fn !== 'row_number' || unique) && extraDet, fires: condFires && extraFires && fnFires && !cond.startsWith('rn <= 0') };
}

describe('derived per-partition Top-N: random ranking filters', () => {
  let pg: SqlConnection;
  let db: Database;
  let q: SqlConnection;
  beforeAll(async () => {
    db = await Database.create();
    ({ pg, q } = await pgliteAndQuire(setupSql(SEED), quireConnection(db, formatValue)));
  }, 120_000);
  afterAll(async () => {
    await pg.close?.();
  });

  it(`${COUNT} queries agree with the rule off and with PostgreSQL`, async () => {
    const failures: string[] = [];
    let fired = 0;
    let compared = 0;
    for (let i = 0; i < COUNT; i++) {
      const g = genQuery(SEED * 131 + i);
      await q.query("SET quire.disabled_rules = 'derive-topn-from-window'");
      const off = await outcomeText(q, g.sql);
      await q.query('RESET quire.disabled_rules');
      for (const mode of ['auto', 'on']) {
        await q.query(`SET quire.derive_topn = '${mode}'`);
        const on = await outcomeText(q, g.sql);
        // Which of several tied rows a row_number (or a frame) picks depends on the order of peers (a
        // small Sort puts them in PostgreSQL's order, the Top-N in arrival order), and a condition on
        // other columns then keeps different rows: only deterministic queries must agree.
        if (g.deterministic && on !== off && failures.length < 8) failures.push(`[${mode}] ${g.sql}\n  off: ${off.slice(0, 400)}\n  on:  ${on.slice(0, 400)}`);
        if (mode === 'on') {
          const plan = (await q.query(`EXPLAIN (FORMAT QUIRE) ${g.sql}`)).rows.map((r) => r[0]).join('\n');
          const has = plan.includes('TopNRanking') || (g.sql.includes('rn <= 0') && !plan.includes('Window'));
          if (has) fired++;
          if (g.fires && !has && failures.length < 8) failures.push(`expected TopNRanking: ${g.sql}\n${plan}`);
          if (!g.fires && plan.includes('TopNRanking') && failures.length < 8) failures.push(`unexpected TopNRanking: ${g.sql}\n${plan}`);
        }
      }
      await q.query('RESET quire.derive_topn');
      if (g.deterministic) {
        compared++;
        const want = await outcomeText(pg, g.sql);
        if (want !== off && failures.length < 8) failures.push(`[postgres] ${g.sql}\n  postgres: ${want.slice(0, 400)}\n  quire:    ${off.slice(0, 400)}`);
      }
    }
    expect(failures, failures.join('\n\n')).toEqual([]);
    expect(fired).toBeGreaterThan(COUNT / 3);
    expect(compared).toBeGreaterThan(COUNT / 3);
  }, 600_000);
});
