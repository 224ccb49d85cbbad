/**
 * Evaluates the subqueries a kernel refers to. Uncorrelated ones run once per statement and are
 * cached (InitPlan); correlated ones run once per outer row with that row pushed on ctx.outer.
 */
import { hashKey } from '../common/compare.js';
import { QuireError } from '../common/errors.js';
import type { Value } from '../common/types.js';
import { getValue, type Batch } from '../common/column.js';
import { withOuterRow, type ExecContext } from '../execution/context.js';
import type { Expr } from '../logical/expr.js';
import type { PhysicalOperator } from './operator.js';

export interface SlotPlan {
  readonly expr: Expr & { kind: 'subquery' };
  readonly plan: PhysicalOperator;
}

async function runOnce(s: SlotPlan, ctx: ExecContext): Promise<unknown> {
  const mode = s.expr.mode;
  const it = s.plan.execute(ctx);
  try {
    if (mode === 'exists') {
      for await (const b of it) if (b.length > 0) return true;
      return false;
    }
    if (mode === 'scalar') {
      let v: Value = null;
      let seen = 0;
      for await (const b of it) {
        if (b.length === 0) continue;
        seen += b.length;
        if (seen > 1) throw new QuireError('21000', 'more than one row returned by a subquery used as an expression');
        v = getValue(b.columns[0]!, 0);
      }
      return v;
    }
    if (mode === 'array') {
      const elems: Value[] = [];
      for await (const b of it) {
        const c = b.columns[0]!;
        for (let i = 0; i < b.length; i++) elems.push(getValue(c, i));
      }
      return elems;
    }
    if (s.expr.rowArgs) {
      const rows: Value[][] = [];
      for await (const b of it) {
        for (let i = 0; i < b.length; i++) rows.push(b.columns.map((c) => getValue(c, i)));
      }
      return rows;
    }
    const list: Value[] = [];
    for await (const b of it) {
      const c = b.columns[0]!;
      for (let i = 0; i < b.length; i++) list.push(getValue(c, i));
    }
    if (!s.expr.correlated && mode === 'any' && s.expr.op === '=') {
      const t = s.plan.schema[0]!.type;
      const key = (v: Value): unknown => hashKey(v, t);
      const keys = new Set<unknown>();
      let hasNull = false;
      for (const v of list) {
        if (v === null) hasNull = true;
        else keys.add(key(v));
      }
      return { keys, hasNull, size: list.length, key };
    }
    return list;
  } finally {
    await it.return(undefined);
  }
}

export async function evalSlots(slots: readonly SlotPlan[], batch: Batch, ctx: ExecContext): Promise<unknown[]> {
  if (slots.length === 0) return EMPTY;
  const out: unknown[] = [];
  for (const s of slots) {
    if (!s.expr.correlated) {
      let v = ctx.initPlans.get(s);
      if (v === undefined && !ctx.initPlans.has(s)) {
        v = await runOnce(s, ctx);
        ctx.initPlans.set(s, v);
      }
      out.push(v);
      continue;
    }
    const vals: unknown[] = new Array(batch.length);
    const ncol = batch.columns.length;
    for (let i = 0; i < batch.length; i++) {
      const row: Value[] = new Array(ncol);
      for (let c = 0; c < ncol; c++) row[c] = getValue(batch.columns[c]!, i);
      vals[i] = await runOnce(s, withOuterRow(ctx, row));
    }
    out.push(vals);
  }
  return out;
}

const EMPTY: unknown[] = [];
