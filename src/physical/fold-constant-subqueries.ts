/**
 * LIMIT / OFFSET counts and window frame offsets may be uncorrelated subqueries (`OFFSET (SELECT …)`,
 * `ROWS (SELECT …) PRECEDING`). Operators take plain constants there, so such subqueries run once
 * before physical planning and are replaced by their values. A LIMIT / OFFSET whose subquery is
 * correlated (`LIMIT (SELECT count(*) FROM u WHERE u.id < t.g)` under LATERAL) is left alone: it is
 * evaluated per outer row when it runs (RuntimeLimit).
 */
import { QuireError } from '../common/errors.js';
import { getValue } from '../common/column.js';
import type { ExecContext } from '../execution/context.js';
import { mapExpr, someExpr, type Expr } from '../logical/expr.js';
import { children, withChildren, type FrameBound, type LogicalPlan, type WindowCall } from '../logical/plan.js';
import type { PhysicalPlanner } from './planner.js';

async function evalScalarSubqueries(e: Expr, planner: PhysicalPlanner, ctx: ExecContext): Promise<Expr> {
  const subs: (Expr & { kind: 'subquery' })[] = [];
  mapExpr(e, (x) => {
    if (x.kind === 'subquery') subs.push(x);
    return x;
  });
  const values = new Map<Expr, Expr>();
  for (const s of subs) {
    if (s.correlated || s.mode !== 'scalar') throw new QuireError('0A000', 'only uncorrelated scalar subqueries are supported in LIMIT, OFFSET and window frame offsets');
    let v: import('../common/types.js').Value = null;
    let n = 0;
    for await (const b of planner.plan(s.plan).execute(ctx)) {
      if (b.length === 0) continue;
      n += b.length;
      if (n > 1) throw new QuireError('21000', 'more than one row returned by a subquery used as an expression');
      v = getValue(b.columns[0]!, 0);
    }
    values.set(s, { kind: 'const', value: v, type: s.type });
  }
  return mapExpr(e, (x) => values.get(x) ?? x);
}

export async function foldConstantSubqueries(plan: LogicalPlan, planner: PhysicalPlanner, ctx: ExecContext): Promise<LogicalPlan> {
  const kids = children(plan);
  let p = plan;
  if (kids.length > 0) {
    const nk: LogicalPlan[] = [];
    for (const k of kids) nk.push(await foldConstantSubqueries(k, planner, ctx));
    if (nk.some((k, i) => k !== kids[i])) p = withChildren(plan, nk);
  }
  const has = (e: Expr | null): e is Expr => e !== null && someExpr(e, (x) => x.kind === 'subquery');
  const correlated = (e: Expr | null): boolean => e !== null && someExpr(e, (x) => x.kind === 'subquery' && x.correlated);
  if ((p.op === 'limit' || p.op === 'topn') && (correlated(p.count) || correlated(p.offset))) return p;
  if (p.op === 'limit' && (has(p.count) || has(p.offset))) {
    return {
      ...p,
      count: has(p.count) ? await evalScalarSubqueries(p.count, planner, ctx) : p.count,
      offset: has(p.offset) ? await evalScalarSubqueries(p.offset, planner, ctx) : p.offset,
    };
  }
  if (p.op === 'topn' && (has(p.count) || has(p.offset))) {
    return {
      ...p,
      count: has(p.count) ? await evalScalarSubqueries(p.count, planner, ctx) : p.count,
      offset: has(p.offset) ? await evalScalarSubqueries(p.offset, planner, ctx) : p.offset,
    };
  }
  if (p.op === 'window') {
    const bound = async (b: FrameBound): Promise<FrameBound> =>
      (b.kind === 'preceding' || b.kind === 'following') && has(b.offset) ? { kind: b.kind, offset: await evalScalarSubqueries(b.offset, planner, ctx) } : b;
    let changed = false;
    const calls: WindowCall[] = [];
    for (const c of p.calls) {
      const { start, end } = c.spec.frame;
      const [s, e] = [await bound(start), await bound(end)];
      if (s === start && e === end) calls.push(c);
      else {
        changed = true;
        calls.push({ ...c, spec: { ...c.spec, frame: { ...c.spec.frame, start: s, end: e } } });
      }
    }
    return changed ? { ...p, calls } : p;
  }
  return p;
}
