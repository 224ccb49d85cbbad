/**
 * A matrix of ranking filters (`WHERE rn <= k` over row_number / rank / dense_rank) over one table,
 * each run with derive-topn-from-window off and forced on, and on PostgreSQL: the three must agree and the
 * rule must fire. Shared by the per-partition Top-N tests that aim at different physical paths.
 */
import { outcomeText, type SqlConnection } from '../harness/connection.js';

export interface RankingMatrix {
  table: string;
  parts: readonly string[];
  orders: readonly string[];
  fns: readonly string[];
  /** Cycled through, one k per query. */
  ks: readonly number[];
}

/** Runs every combination; returns one message per disagreement (empty when all agree). */
export async function checkRankingMatrix(q: SqlConnection, pg: SqlConnection, m: RankingMatrix): Promise<string[]> {
  const failures: string[] = [];
  let n = 0;
  for (const part of m.parts) {
    for (const order of m.orders) {
      for (const fn of m.fns) {
        const k = m.ks[n++ % m.ks.length]!;
        const key = order.split(' ')[0]!;
        // Columns PostgreSQL determines: with row_number, which of several tied rows is kept is arbitrary
        // (unless the key is unique: id). -0 and 0 are peers, so `+ 0` makes tied rows print alike.
        const cols = fn === 'row_number' && key !== 'id' ? `${part} AS part, ${key} + 0 AS key, rn` : `id, ${part} AS part, ${key}, rn`;
        const sql =
          `SELECT ${cols} FROM (SELECT *, ${fn}() OVER (PARTITION BY ${part} ORDER BY ${order}) AS rn FROM ${m.table}) x ` +
          `WHERE rn <= ${k} ORDER BY 1, 2, 3${cols.startsWith('id') ? ', 4' : ''}`;
        await q.query("SET quire.disabled_rules = 'derive-topn-from-window'");
        const off = await outcomeText(q, sql);
        await q.query('RESET quire.disabled_rules');
        await q.query("SET quire.derive_topn = 'on'");
        const on = await outcomeText(q, sql);
        const plan = (await q.query(`EXPLAIN (FORMAT QUIRE) ${sql}`)).rows.map((r) => r[0]).join('\n');
        await q.query('RESET quire.derive_topn');
        const want = await outcomeText(pg, sql);
        if (!plan.includes('TopNRanking')) failures.push(`no TopNRanking: ${sql}\n${plan}`);
        if (on !== off) failures.push(`[rule on vs off] ${sql}\n  off: ${off.slice(0, 300)}\n  on:  ${on.slice(0, 300)}`);
        if (want !== off) failures.push(`[postgres] ${sql}\n  pg:    ${want.slice(0, 300)}\n  quire: ${off.slice(0, 300)}`);
        if (on.startsWith('ERROR') || on.length === 0) failures.push(`no rows: ${sql}: ${on.slice(0, 200)}`);
      }
    }
  }
  return failures;
}
