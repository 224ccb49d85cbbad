/**
 * Physical planning of the logical Window node.
 *
 * Calls are grouped by identical (PARTITION BY, ORDER BY); each group becomes
 *
 *   Project (appends key / argument / FILTER columns that are not plain column references)
 *     -> Sort (partition keys, then ORDER BY keys) — omitted when the rows already arrive in an order that
 *        serves the group: the order the input's operators declare (outputOrdering: a Sort, and the
 *        Filters, Limits and column-picking Projects above it), or the order the previous group sorted into
 *   -> Window (src/physical/operators/window.ts): one result column per call
 *   -> Project dropping the helper columns (when there are any).
 *
 * Groups are processed in PostgreSQL's order (sql/bind/window-eval-order.ts; without it, longest key
 * list first). Both put a longer key list before its prefix, so a group whose keys are a prefix of
 * another's (PARTITION BY a ORDER BY b, then PARTITION BY a) reuses the first group's sort. Partition keys are sorted
 * ascending, but any direction and any permutation of the partition keys serves a partition, which is what
 * the reuse check accepts. A final Project restores the node's column order (input columns, then one
 * column per call in call order). Rows come out in the last sort order, as in PostgreSQL.
 */
import { QuireError } from '../common/errors.js';
import type { Field } from '../common/types.js';
import { colRef, exprEquals, someExpr, type Expr, type SortKey as LSortKey } from '../logical/expr.js';
import type { FrameBound, LogicalPlan, WindowCall } from '../logical/plan.js';
import { lookupWindowAggregate } from '../functions/aggregate/registry.js';
import { AggregateWindow } from '../functions/window/aggregate-window.js';
import { CumeDist } from '../functions/window/cume-dist.js';
import { DenseRank } from '../functions/window/dense-rank.js';
import { FirstValue } from '../functions/window/first-value.js';
import { LagLead } from '../functions/window/lag-lead.js';
import { LastValue } from '../functions/window/last-value.js';
import { NthValue } from '../functions/window/nth-value.js';
import { Ntile } from '../functions/window/ntile.js';
import { PercentRank } from '../functions/window/percent-rank.js';
import { Rank } from '../functions/window/rank.js';
import { RowNumber } from '../functions/window/row-number.js';
import type { WindowEvaluator } from '../functions/window/window-function.js';
import { explainExpr } from './explain-expr.js';
import type { PhysicalOperator } from './operator.js';
import { makeSort } from './plan-memory.js';
import { Project } from './operators/project.js';
import { Window, type WindowCallDef, type WindowFrameDef } from './operators/window.js';
import type { SortKey } from './sort-key.js';
import type { SlotPlan } from './subquery-eval.js';
import type { ExecContext } from '../execution/context.js';
import { userAggregate } from './user-aggregate.js';

interface Group {
  partitionBy: Expr[];
  orderBy: LSortKey[];
  calls: { call: WindowCall; index: number }[];
}

/** An ordering the rows are known to have, as expressions over the window node's input columns. */
type Ordering = { expr: Expr; desc: boolean; nullsFirst: boolean }[];

export function planWindow(
  p: LogicalPlan & { op: 'window' },
  input: PhysicalOperator,
  slotPlan: (e: Expr & { kind: 'subquery' }) => SlotPlan,
  ctx: ExecContext,
): PhysicalOperator {
  const inSchema = p.input.schema;
  const width = input.schema.length;
  const groups: Group[] = [];
  p.calls.forEach((call, index) => {
    const dedupParts = dedupe(call.spec.partitionBy);
    const g = groups.find(
      (x) =>
        sameExprs(x.partitionBy, dedupParts) &&
        x.orderBy.length === call.spec.orderBy.length &&
        x.orderBy.every((k, i) => sameKey(k, call.spec.orderBy[i]!)),
    );
    if (g !== undefined) g.calls.push({ call, index });
    else groups.push({ partitionBy: dedupParts, orderBy: call.spec.orderBy, calls: [{ call, index }] });
  });
  const keyCount = (g: Group): number => g.partitionBy.length + g.orderBy.length;
  // PostgreSQL's evaluation order when the binder gave it (it decides where tied rows land); otherwise
  // longest key list first.
  const evalOrder = (g: Group): number | undefined => {
    let at: number | undefined;
    for (const { call } of g.calls) if (call.spec.evalOrder !== undefined) at = Math.min(at ?? Infinity, call.spec.evalOrder);
    return at;
  };
  const byEval = groups.every((g) => evalOrder(g) !== undefined);
  const ordered = groups
    .map((g, i) => ({ g, i }))
    .sort((a, b) => (byEval ? evalOrder(a.g)! - evalOrder(b.g)! : 0) || keyCount(b.g) - keyCount(a.g) || a.i - b.i)
    .map((x) => x.g);

  let ordering: Ordering = inputOrdering(input, width);
  let cur = input;
  /** Column of each call's result in `cur`. */
  const resultCol = new Array<number>(p.calls.length).fill(-1);

  for (const g of ordered) {
    const exprs: Expr[] = cur.schema.map((f, i) => colRef(i, f.type, f.name));
    const curWidth = exprs.length;
    const add = (e: Expr): number => {
      if (e.kind === 'column') return e.index;
      const at = exprs.findIndex((x, i) => i >= curWidth && exprEquals(x, e));
      if (at >= 0) return at;
      exprs.push(e);
      return exprs.length - 1;
    };
    const partCols = g.partitionBy.map(add);
    const orderCols = g.orderBy.map((k) => add(k.expr));
    // Key columns must exist before the sort; argument and FILTER columns are computed after it, so the
    // sort does not carry (and gather) them.
    const keyEnd = exprs.length;
    const frames: WindowFrameDef[] = [];
    const callDefs: WindowCallDef[] = g.calls.map(({ call }) => {
      const argCols = call.args.map(add);
      const filterCol = call.filter === null ? null : add(call.filter);
      const evaluator = makeEvaluator(call, argCols, filterCol, ctx);
      let frame = -1;
      if (evaluator.usesFrame) {
        const def = frameDef(call);
        frame = frames.findIndex((f) => sameFrame(f, def));
        if (frame < 0) {
          frames.push(def);
          frame = frames.length - 1;
        }
      }
      const aggregate = evaluator instanceof AggregateWindow ? evaluator.aggregate : null;
      return { evaluator, frame, type: call.type, name: call.name, label: callLabel(call, inSchema, evaluator.usesFrame), args: argCols, argExprs: call.args, filter: filterCol, aggregate };
    });
    let op: PhysicalOperator = cur;
    const project = (input: PhysicalOperator, upTo: number): PhysicalOperator => {
      const list = exprs.slice(0, upTo).map((e, i) => (i < input.schema.length ? colRef(i, input.schema[i]!.type, input.schema[i]!.name) : e));
      const schema: Field[] = list.map((e, i) => ({ name: cur.schema[i]?.name ?? `?window_key${i - curWidth}?`, type: e.type }));
      return new Project(schema, input, list, slotPlan);
    };
    if (keyEnd > curWidth) op = project(op, keyEnd);
    const partKeys: SortKey[] = partCols.map((col, i) => ({ col, type: g.partitionBy[i]!.type, desc: false, nullsFirst: false }));
    const orderKeys: SortKey[] = orderCols.map((col, i) => ({ col, type: g.orderBy[i]!.expr.type, desc: g.orderBy[i]!.desc, nullsFirst: g.orderBy[i]!.nullsFirst }));
    const served = servedBy(ordering, g);
    if (served === null) {
      op = makeSort(op, [...partKeys, ...orderKeys], 0, partKeys.length);
      if (exprs.length > keyEnd) op = project(op, exprs.length);
      ordering = [...g.partitionBy.map((expr) => ({ expr, desc: false, nullsFirst: false })), ...g.orderBy.map((k) => ({ expr: k.expr, desc: k.desc, nullsFirst: k.nullsFirst }))];
    } else {
      if (exprs.length > keyEnd) op = project(op, exprs.length);
      // The existing order may list the partition keys in another order/direction: compare partitions with
      // those exact keys so equal partitions are always adjacent to the comparator.
      partKeys.splice(0, partKeys.length, ...served.map((k) => ({ col: add(k.expr), type: k.expr.type, desc: k.desc, nullsFirst: k.nullsFirst })));
    }
    const names = {
      partition: g.partitionBy.map((e) => explainExpr(e, inSchema)),
      order: g.orderBy.map((k) => explainExpr(k.expr, inSchema)),
    };
    const win = new Window(op, partKeys, orderKeys, frames, callDefs, names);
    const helper = exprs.length - curWidth;
    g.calls.forEach(({ index }, k) => (resultCol[index] = curWidth + k));
    if (helper === 0) cur = win;
    else {
      const keep: Expr[] = [];
      for (let i = 0; i < curWidth; i++) keep.push(colRef(i, win.schema[i]!.type, win.schema[i]!.name));
      for (let k = 0; k < g.calls.length; k++) {
        const f = win.schema[exprs.length + k]!;
        keep.push(colRef(exprs.length + k, f.type, f.name));
      }
      cur = new Project(keep.map((e, i) => ({ name: i < curWidth ? win.schema[i]!.name : g.calls[i - curWidth]!.call.name, type: e.type })), win, keep, slotPlan);
    }
  }

  const final: Expr[] = [];
  for (let i = 0; i < width; i++) final.push(colRef(i, input.schema[i]!.type, input.schema[i]!.name));
  p.calls.forEach((c, i) => final.push(colRef(resultCol[i]!, c.type, c.name)));
  if (final.every((e, i) => e.kind === 'column' && e.index === i) && final.length === cur.schema.length) return cur;
  return new Project(p.schema, cur, final, slotPlan);
}

function dedupe(es: Expr[]): Expr[] {
  const out: Expr[] = [];
  for (const e of es) if (!out.some((x) => exprEquals(x, e))) out.push(e);
  return out;
}

function sameExprs(a: Expr[], b: Expr[]): boolean {
  return a.length === b.length && a.every((x, i) => exprEquals(x, b[i]!));
}

function sameKey(a: LSortKey, b: LSortKey): boolean {
  return a.desc === b.desc && a.nullsFirst === b.nullsFirst && exprEquals(a.expr, b.expr);
}

/** The order of rows coming out of `input`, as far as its operators declare it. */
function inputOrdering(input: PhysicalOperator, width: number): Ordering {
  const out: Ordering = [];
  for (const k of input.outputOrdering()) {
    if (k.col >= width) break;
    out.push({ expr: colRef(k.col, k.type, input.schema[k.col]!.name), desc: k.desc, nullsFirst: k.nullsFirst });
  }
  return out;
}

/**
 * If rows ordered by `ordering` are grouped by the group's partition keys and ordered by its ORDER BY keys
 * within each partition, returns the ordering's leading keys that cover the partition; else null.
 */
function servedBy(ordering: Ordering, g: Group): Ordering | null {
  const np = g.partitionBy.length;
  if (ordering.length < np + g.orderBy.length) return null;
  const lead = ordering.slice(0, np);
  if (!g.partitionBy.every((e) => lead.some((k) => exprEquals(k.expr, e)))) return null;
  if (!lead.every((k) => g.partitionBy.some((e) => exprEquals(k.expr, e)))) return null;
  for (let i = 0; i < g.orderBy.length; i++) {
    const k = ordering[np + i]!;
    const o = g.orderBy[i]!;
    if (k.desc !== o.desc || k.nullsFirst !== o.nullsFirst || !exprEquals(k.expr, o.expr)) return null;
  }
  return lead;
}

function frameDef(call: WindowCall): WindowFrameDef {
  const f = call.spec.frame;
  const off = (b: FrameBound): Expr | null => (b.kind === 'preceding' || b.kind === 'following' ? b.offset : null);
  return { units: f.units, startKind: f.start.kind, endKind: f.end.kind, startOffset: off(f.start), endOffset: off(f.end), exclude: f.exclude };
}

function sameFrame(a: WindowFrameDef, b: WindowFrameDef): boolean {
  const eq = (x: Expr | null, y: Expr | null): boolean => (x === null ? y === null : y !== null && exprEquals(x, y));
  return a.units === b.units && a.startKind === b.startKind && a.endKind === b.endKind && a.exclude === b.exclude && eq(a.startOffset, b.startOffset) && eq(a.endOffset, b.endOffset);
}

function makeEvaluator(call: WindowCall, argCols: number[], filterCol: number | null, ctx: ExecContext): WindowEvaluator {
  if (call.user !== undefined) {
    // PostgreSQL's choice of the moving-aggregate mode: only where the frame start can move, and not
    // when an argument or the FILTER is volatile (the mode would change how often it is evaluated).
    const frame = call.spec.frame;
    const volatile = (e: Expr): boolean => someExpr(e, (x) => x.kind === 'call' && x.overload.volatile === true);
    const moving = frame.start.kind !== 'unbounded-preceding' && !call.args.some(volatile) && (call.filter === null || !volatile(call.filter));
    return new AggregateWindow(userAggregate(call.name, call.user, call.argTypes, call.type, ctx, moving), argCols, filterCol);
  }
  switch (call.name) {
    case 'row_number':
      return new RowNumber();
    case 'rank':
      return new Rank();
    case 'dense_rank':
      return new DenseRank();
    case 'percent_rank':
      return new PercentRank();
    case 'cume_dist':
      return new CumeDist();
    case 'ntile':
      return new Ntile(argCols[0]!);
    case 'lag':
    case 'lead':
      return new LagLead(call.name === 'lead', argCols[0]!, argCols[1] ?? null, argCols[2] ?? null);
    case 'first_value':
      return new FirstValue(argCols[0]!);
    case 'last_value':
      return new LastValue(argCols[0]!);
    case 'nth_value':
      return new NthValue(argCols[0]!, argCols[1]!);
    default: {
      const impl = lookupWindowAggregate(call.name)?.resolve(call.argTypes) ?? null;
      if (impl === null) throw new QuireError('42883', `function ${call.name} does not exist`);
      return new AggregateWindow(impl, argCols, filterCol);
    }
  }
}

function boundText(b: FrameBound, schema: LogicalPlan['schema']): string {
  switch (b.kind) {
    case 'unbounded-preceding':
      return 'UNBOUNDED PRECEDING';
    case 'unbounded-following':
      return 'UNBOUNDED FOLLOWING';
    case 'current-row':
      return 'CURRENT ROW';
    default:
      return `${explainExpr(b.offset, schema)} ${b.kind === 'preceding' ? 'PRECEDING' : 'FOLLOWING'}`;
  }
}

function callLabel(call: WindowCall, schema: LogicalPlan['schema'], usesFrame: boolean): string {
  let s = `${call.name}(${call.args.length === 0 && lookupWindowAggregate(call.name) !== undefined && call.name === 'count' ? '*' : call.args.map((a) => explainExpr(a, schema)).join(', ')})`;
  if (call.filter !== null) s += ` FILTER (WHERE ${explainExpr(call.filter, schema)})`;
  if (usesFrame) {
    const f = call.spec.frame;
    s += ` ${f.units.toUpperCase()} BETWEEN ${boundText(f.start, schema)} AND ${boundText(f.end, schema)}`;
    if (f.exclude !== 'no-others') s += ` EXCLUDE ${f.exclude === 'current-row' ? 'CURRENT ROW' : f.exclude.toUpperCase()}`;
  }
  return s;
}
