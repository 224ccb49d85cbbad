/**
 * Physical planning: chooses an operator for each logical node. Expressions that operators key on
 * (group keys, join keys, sort keys) are projected into columns first, so operators only see columns.
 */
import { QuireError } from '../common/errors.js';
import type { DataType, Value } from '../common/types.js';
import type { ExecContext } from '../execution/context.js';
import { colRef, columnsUsed, mapExpr, someExpr, type Expr, type SortKey as LSortKey } from '../logical/expr.js';
import { andOf } from '../logical/conjuncts.js';
import type { AggCall, LogicalPlan } from '../logical/plan.js';
import type { WithinGroup } from '../functions/aggregate/aggregate-function.js';
import { lookupAggregate } from '../functions/aggregate/registry.js';
import { userAggregate } from './user-aggregate.js';
import { compileSimplePredicate, evalConstant } from './compile-expr.js';
import type { PhysicalOperator } from './operator.js';
import { Filter } from './operators/filter.js';
import type { HashAggSpec } from './operators/hash-aggregate.js';
import { HashJoin } from './operators/hash-join.js';
import { HashJoinAggregate, type JoinAggSpec } from './operators/hash-join-aggregate.js';
import { memoryLimitExplicit } from '../execution/memory-pool.js';
import { Limit } from './operators/limit.js';
import { ModifyTable } from './operators/modify-table.js';
import { limitArgument, RuntimeLimit } from './operators/runtime-limit.js';
import { LateralJoin } from './operators/lateral-join.js';
import { NestedLoopJoin } from './operators/nested-loop-join.js';
import { Project } from './operators/project.js';
import { RecursiveUnion, WorkTableScan } from './operators/recursive-union.js';
import { CteScan, SharedCte } from './operators/cte-scan.js';
import { MaterializedCte } from '../logical/materialized-cte.js';
import { SetOp } from './operators/set-op.js';
import { makeAggregate, makeSort } from './plan-memory.js';
import { TableFunctionScan } from './operators/table-function-scan.js';
import { TableScan, type ScannableSource } from './operators/table-scan.js';
import { TopN } from './operators/topn.js';
import { Distinct } from './operators/distinct.js';
import { DistinctOn } from './operators/distinct-on.js';
import { OneRow, ValuesScan } from './operators/values-scan.js';
import { describeKeys, type SortKey } from './sort-key.js';
import type { SlotPlan } from './subquery-eval.js';
import { planWindow } from './plan-window.js';
import { planPartitionedTopN, planTopNRanking } from './plan-topn.js';
import { orderedBy, planIndexScan } from './plan-index-scan.js';

export interface PlannerEnv {
  /** Context used to evaluate LIMIT/OFFSET and other plan-time constants. */
  readonly ctx: ExecContext;
}

export class PhysicalPlanner {
  private slots = new Map<object, SlotPlan>();
  /** One shared evaluation per materialized WITH query, whatever number of scans read it. */
  private ctes = new Map<MaterializedCte, SharedCte>();
  constructor(readonly env: PlannerEnv) {}

  readonly slotPlan = (e: Expr & { kind: 'subquery' }): SlotPlan => {
    let s = this.slots.get(e);
    if (s === undefined) {
      s = { expr: e, plan: this.plan(e.plan) };
      this.slots.set(e, s);
    }
    return s;
  };

  /**
   * @param need which output columns the consumer reads (null = all). Copying operators (Filter, HashJoin)
   *   skip the others, leaving placeholders in their place (see deadColumn in common/column.ts); only
   *   Project/Aggregate start such a mask and only Filter and HashJoin carry it further down, so every
   *   operator that might read a whole row (sorts, set operations, windows, result delivery) sees full rows.
   */
  plan(p: LogicalPlan, need: readonly boolean[] | null = null): PhysicalOperator {
    switch (p.op) {
      case 'scan': {
        if (p.source instanceof MaterializedCte) {
          let shared = this.ctes.get(p.source);
          const first = shared === undefined;
          if (shared === undefined) {
            shared = new SharedCte(p.source.name, this.plan(p.source.plan));
            this.ctes.set(p.source, shared);
          }
          return new CteScan(p.schema, shared, p.projection ?? null, first);
        }
        const src = p.source as unknown as ScannableSource;
        if (typeof src.scan !== 'function') throw new QuireError('XX000', `table ${p.source.name} cannot be scanned`);
        const viaIndex = p.index !== undefined ? planIndexScan(p, p.index) : null;
        if (viaIndex !== null) return viaIndex;
        return new TableScan(p.schema, src, (p as { projection?: number[] }).projection ?? null, p.fetch ?? null, p.alias);
      }
      case 'values':
        return new ValuesScan(p.schema, p.rows, this.slotPlan);
      case 'empty':
        return new OneRow(p.schema, p.oneRow ? 1 : 0);
      case 'table-function':
        return new TableFunctionScan(p.schema, p.name, p.args, p.impl);
      case 'filter': {
        // Correlated subqueries see the whole input row (ctx.outer), so they turn pruning off.
        const childNeed = need === null || hasCorrelated(p.predicate) ? null : needWith(need, [p.predicate]);
        return new Filter(this.plan(p.input, childNeed), p.predicate, this.slotPlan, childNeed === null ? null : need);
      }
      case 'project': {
        if (p.exprs.length === p.input.schema.length && p.exprs.every((e, i) => e.kind === 'column' && e.index === i)) {
          // Identity projection (renames only): names live in the result description, not in batches.
          return this.plan(p.input, need);
        }
        const input = this.plan(p.input, needOf(p.input.schema.length, p.exprs));
        return new Project(p.schema, input, p.exprs, this.slotPlan);
      }
      case 'aggregate':
        return this.planAggregate(p);
      case 'window':
        return planWindow(p, this.plan(p.input), this.slotPlan, this.env.ctx);
      case 'sort': {
        const { input, keys, extra } = this.keyColumns(this.plan(p.input), p.keys);
        // An input that already comes in this order (an index scan) needs no sort.
        if (!extra && orderedBy(input, keys)) return input;
        const sorted = makeSort(input, keys);
        return extra ? this.dropExtra(sorted, p.schema.length) : sorted;
      }
      case 'limit': {
        if (p.input.op === 'sort' && !argumentsAtRunTime(p.count, p.offset) && this.constCount(p.count, 'LIMIT') === null) {
          // ORDER BY … OFFSET m alone: the sort drops its first m rows itself, without gathering them into
          // batches a Limit would throw away.
          const offset = this.constCount(p.offset, 'OFFSET') ?? 0;
          const { input, keys, extra } = this.keyColumns(this.plan(p.input.input), p.input.keys);
          const sorted = makeSort(input, keys, offset);
          return extra ? this.dropExtra(sorted, p.schema.length) : sorted;
        }
        const input = this.plan(p.input);
        const tieCols =
          p.ties === null
            ? null
            : p.ties.map((k) => {
                if (k.expr.kind !== 'column') throw new QuireError('XX000', 'WITH TIES keys must be columns');
                return k.expr.index;
              });
        // A NULL row count is "no limit", WITH TIES too, unless it is written as a NULL constant (an error
        // the binder raises, as PostgreSQL does).
        const limit = (count: number | null, offset: number | null): PhysicalOperator =>
          new Limit(input, count, offset, count === null ? null : tieCols);
        if (argumentsAtRunTime(p.count, p.offset)) return new RuntimeLimit(input, p.count, p.offset, limit, this.slotPlan);
        return limit(this.constCount(p.count, 'LIMIT'), this.constCount(p.offset, 'OFFSET'));
      }
      case 'topn': {
        const runtime = argumentsAtRunTime(p.count, p.offset);
        const count = runtime ? null : this.constCount(p.count, 'LIMIT');
        const offset = runtime ? 0 : (this.constCount(p.offset, 'OFFSET') ?? 0);
        const split = runtime || count === null ? null : planPartitionedTopN(p, count, offset);
        if (split !== null) return split;
        const { input, keys, extra } = this.keyColumns(this.plan(p.input), p.keys);
        // LIMIT NULL / ALL: no row bound, so this is a sort that drops its first `offset` rows itself,
        // without gathering them into batches a Limit would throw away.
        const topN = (count: number | null, offset: number): PhysicalOperator =>
          count === null ? makeSort(input, keys, offset) : new TopN(input, keys, count, offset, p.withTies);
        const t = runtime
          ? new RuntimeLimit(input, p.count, p.offset, topN, this.slotPlan, { name: 'TopN', keys: describeKeys(keys, input.schema.map((f) => f.name)) })
          : topN(count, offset);
        return extra ? this.dropExtra(t, p.schema.length) : t;
      }
      case 'topn-ranking':
        return planTopNRanking(p, (lp) => this.plan(lp), this.slotPlan);
      case 'distinct':
        return new Distinct(this.plan(p.input));
      case 'distinct-on':
        return new DistinctOn(
          this.plan(p.input),
          p.keys.map((k) => {
            if (k.kind !== 'column') throw new QuireError('XX000', 'DISTINCT ON keys must be columns');
            return k.index;
          }),
        );
      case 'join':
        return this.planJoin(p, need);
      case 'setop':
        return new SetOp(p.kind, p.all, this.plan(p.left), this.plan(p.right));
      case 'recursive-cte':
        return new RecursiveUnion(p.schema, this.plan(p.anchor), this.plan(p.recursive), p.all, p.id);
      case 'worktable':
        return new WorkTableScan(p.schema, p.id, p.name);
      case 'modify':
        return new ModifyTable(p.schema, p.kind, p.table, this.plan(p.input), p.target);
    }
  }

  private constCount(e: Expr | null, what: 'LIMIT' | 'OFFSET'): number | null {
    return limitArgument(e, this.env.ctx, what);
  }

  /** Projects non-column sort keys into extra trailing columns. */
  private keyColumns(input: PhysicalOperator, lkeys: readonly LSortKey[]): { input: PhysicalOperator; keys: SortKey[]; extra: boolean } {
    if (lkeys.every((k) => k.expr.kind === 'column')) {
      return {
        input,
        keys: lkeys.map((k) => ({ col: (k.expr as { index: number }).index, type: k.expr.type, desc: k.desc, nullsFirst: k.nullsFirst })),
        extra: false,
      };
    }
    const exprs: Expr[] = input.schema.map((f, i) => colRef(i, f.type, f.name));
    const keys = lkeys.map((k) => {
      if (k.expr.kind === 'column') return { col: k.expr.index, type: k.expr.type, desc: k.desc, nullsFirst: k.nullsFirst };
      exprs.push(k.expr);
      return { col: exprs.length - 1, type: k.expr.type, desc: k.desc, nullsFirst: k.nullsFirst };
    });
    const schema = exprs.map((e, i) => ({ name: input.schema[i]?.name ?? '?key?', type: e.type }));
    return { input: new Project(schema, input, exprs, this.slotPlan), keys, extra: true };
  }

  private dropExtra(op: PhysicalOperator, width: number): PhysicalOperator {
    const schema = op.schema.slice(0, width);
    return new Project(schema, op, schema.map((f, i) => colRef(i, f.type, f.name)), this.slotPlan);
  }

  private planAggregate(p: LogicalPlan & { op: 'aggregate' }): PhysicalOperator {
    const used: Expr[] = [...p.groupBy];
    for (const a of p.aggs) used.push(...a.args, ...(a.filter ? [a.filter] : []), ...a.orderBy.map((k) => k.expr));
    const input = this.plan(p.input, needOf(p.input.schema.length, used));
    const fused = this.joinAggregate(p, input);
    if (fused !== null) return fused;
    const exprs: Expr[] = [...p.groupBy];
    const add = (e: Expr): number => {
      exprs.push(e);
      return exprs.length - 1;
    };
    const specs: HashAggSpec[] = p.aggs.map((a) => {
      const impl = a.user !== undefined ? userAggregate(a.name, a.user, a.argTypes, a.type, this.env.ctx) : lookupAggregate(a.name)!.resolve(a.argTypes, this.withinGroup(a));
      if (impl === null) throw new QuireError('42883', `function ${a.name} does not exist`);
      return {
        impl,
        argCols: a.args.map(add),
        filterCol: a.filter ? add(a.filter) : null,
        distinct: a.distinct,
        orderBy: a.orderBy.map((k) => ({ col: add(k.expr), desc: k.desc, nullsFirst: k.nullsFirst, type: k.expr.type })),
      };
    });
    const projSchema = exprs.map((e, i) => ({ name: `c${i}`, type: e.type }));
    const proj = new Project(projSchema, input, exprs, this.slotPlan);
    return makeAggregate(proj, { keyCount: p.groupBy.length, keyTypes: p.groupBy.map((g) => g.type), aggs: specs }, p.schema, this.env.ctx);
  }

  /**
   * GROUP BY build-side columns (or no GROUP BY) of an inner hash join, aggregates of probe-side
   * columns: one operator that aggregates during the probe (see HashJoinAggregate). Plain aggregates
   * only (no DISTINCT, ORDER BY, FILTER, user-defined or input-retaining ones), and not under an explicit
   * memory_limit, where the spilling aggregate must be able to take over.
   */
  private joinAggregate(p: LogicalPlan & { op: 'aggregate' }, input: PhysicalOperator): PhysicalOperator | null {
    if (!(input instanceof HashJoin) || input.type !== 'inner' || input.residual !== null) return null;
    if (memoryLimitExplicit(this.env.ctx)) return null;
    const nl = input.left.schema.length;
    if (nl + input.right.schema.length !== p.input.schema.length) return null;
    const keyCols: number[] = [];
    for (const g of p.groupBy) {
      if (g.kind !== 'column' || g.index < nl) return null;
      keyCols.push(g.index - nl);
    }
    const specs: JoinAggSpec[] = [];
    for (const a of p.aggs) {
      if (a.user !== undefined || a.distinct || a.filter || a.orderBy.length > 0 || a.withinGroup !== undefined) return null;
      const argCols: number[] = [];
      for (const e of a.args) {
        if (e.kind !== 'column' || e.index >= nl) return null;
        argCols.push(e.index);
      }
      const impl = lookupAggregate(a.name)?.resolve(a.argTypes, undefined) ?? null;
      if (impl === null || impl.retainsInput === true) return null;
      specs.push({ impl, argCols });
    }
    return new HashJoinAggregate(input, keyCols, specs, p.schema);
  }

  /**
   * What a WITHIN GROUP aggregate learns besides its argument types: constant direct arguments by value,
   * since a group without rows must still check them (percentile_cont(1.5) over no rows is an error).
   */
  private withinGroup(a: AggCall): WithinGroup | undefined {
    const w = a.withinGroup;
    if (w === undefined) return undefined;
    const constant = (e: Expr): boolean => !someExpr(e, (x) => x.kind === 'column' || x.kind === 'outer' || x.kind === 'subquery');
    const directValues = a.args.slice(0, w.direct).map((e) => (constant(e) ? evalConstant(e, this.env.ctx) : undefined));
    return { direct: w.direct, order: w.order, directValues };
  }

  private planJoin(p: LogicalPlan & { op: 'join' }, need: readonly boolean[] | null): PhysicalOperator {
    const nl = p.left.schema.length;
    const nr = p.right.schema.length;
    // Column pruning through hash joins only (see plan()): the children must supply what the output needs
    // plus every column the ON condition reads.
    const prune =
      need !== null && !p.lateral && p.type !== 'cross' && p.condition !== null && !hasCorrelated(p.condition) && !hasOuter(p.condition);
    let outNeed: boolean[] | null = null;
    let leftNeed: boolean[] | null = null;
    let rightNeed: boolean[] | null = null;
    if (prune) {
      // Output of semi/anti joins is the left side only; the mask below always covers left + right.
      outNeed = new Array<boolean>(nl + nr).fill(false);
      for (let i = 0; i < need!.length && i < nl + nr; i++) outNeed[i] = need![i]!;
      const all = needWith(outNeed, [p.condition!]);
      leftNeed = all.slice(0, nl);
      rightNeed = all.slice(nl);
    }
    const left = this.plan(p.left, leftNeed);
    const right = this.plan(p.right, rightNeed);
    if (p.lateral) {
      if (p.type !== 'inner' && p.type !== 'left' && p.type !== 'cross') {
        throw new QuireError('42601', 'The combining JOIN type must be INNER or LEFT for a LATERAL reference.');
      }
      if (p.condition !== null && hasSubquery(p.condition)) throw new QuireError('0A000', 'subqueries in JOIN conditions are not supported');
      return new LateralJoin(left, right, p.type === 'left' ? 'left' : 'inner', p.condition ? compileSimplePredicate(p.condition) : null);
    }
    if (p.type === 'cross' || p.condition === null) {
      return new NestedLoopJoin(left, right, p.type === 'cross' ? 'inner' : p.type);
    }
    // Split the ON condition into equi-join keys (left expr = right expr) and a residual.
    const conjuncts = flattenAnd(p.condition);
    const lk: Expr[] = [];
    const rk: Expr[] = [];
    const residual: Expr[] = [];
    for (const c of conjuncts) {
      if (c.kind === 'compare' && c.op === '=') {
        const lu = columnsUsed(c.left);
        const ru = columnsUsed(c.right);
        const onlyLeft = (s: Set<number>): boolean => s.size > 0 && [...s].every((i) => i < nl);
        const onlyRight = (s: Set<number>): boolean => s.size > 0 && [...s].every((i) => i >= nl);
        const plain = !hasSubquery(c.left) && !hasSubquery(c.right) && !hasOuter(c.left) && !hasOuter(c.right);
        if (plain && onlyLeft(lu) && onlyRight(ru)) {
          lk.push(c.left);
          rk.push(shift(c.right, -nl));
          continue;
        }
        if (plain && onlyRight(lu) && onlyLeft(ru)) {
          lk.push(c.right);
          rk.push(shift(c.left, -nl));
          continue;
        }
      }
      residual.push(c);
    }
    if (residual.some(hasSubquery)) throw new QuireError('0A000', 'subqueries in JOIN conditions are not supported');
    if (lk.length === 0) {
      const pred = compileSimplePredicate(andOf(residual));
      return new NestedLoopJoin(left, right, p.type, pred);
    }
    const lside = this.withKeys(left, lk);
    const rside = this.withKeys(right, rk);
    const nl2 = lside.op.schema.length;
    let res = null;
    if (residual.length > 0) {
      const remapped = residual.map((e) => mapExpr(e, (x) => (x.kind === 'column' && x.index >= nl ? { ...x, index: x.index - nl + nl2 } : x)));
      res = compileSimplePredicate(andOf(remapped));
    }
    let joinNeed: boolean[] | null = null;
    if (outNeed !== null) {
      // Combined-row mask over the join's own columns (left + its key extras, right + its key extras):
      // what the output needs plus what the residual reads.
      joinNeed = new Array<boolean>(nl2 + rside.op.schema.length).fill(false);
      for (let i = 0; i < nl; i++) joinNeed[i] = outNeed[i]!;
      for (let i = 0; i < nr; i++) joinNeed[nl2 + i] = outNeed[nl + i]!;
      if (res !== null) {
        for (const e of residual) {
          for (const c of columnsUsed(e)) joinNeed[c >= nl ? c - nl + nl2 : c] = true;
        }
      }
    }
    const join: PhysicalOperator = new HashJoin(lside.op, rside.op, p.type, lside.cols, rside.cols, res, joinNeed);
    if (lside.extra === 0 && rside.extra === 0) return join;
    // Drop the projected key columns again.
    const keep: Expr[] = [];
    for (let i = 0; i < nl; i++) keep.push(colRef(i, left.schema[i]!.type, left.schema[i]!.name));
    for (let i = 0; i < right.schema.length; i++) keep.push(colRef(nl2 + i, right.schema[i]!.type, right.schema[i]!.name));
    return new Project(p.schema, join, keep, this.slotPlan);
  }

  private withKeys(op: PhysicalOperator, keys: Expr[]): { op: PhysicalOperator; cols: number[]; extra: number } {
    if (keys.every((k) => k.kind === 'column')) return { op, cols: keys.map((k) => (k as { index: number }).index), extra: 0 };
    const exprs: Expr[] = op.schema.map((f, i) => colRef(i, f.type, f.name));
    const cols = keys.map((k) => {
      if (k.kind === 'column') return k.index;
      exprs.push(k);
      return exprs.length - 1;
    });
    const schema = exprs.map((e, i) => ({ name: op.schema[i]?.name ?? `key${i}`, type: e.type }));
    return { op: new Project(schema, op, exprs, this.slotPlan), cols, extra: exprs.length - op.schema.length };
  }
}

export function flattenAnd(e: Expr): Expr[] {
  if (e.kind === 'and') return e.args.flatMap(flattenAnd);
  return [e];
}

/** Mask of `width` input columns read by `exprs`, or null (= all) when a correlated subquery is among them. */
function needOf(width: number, exprs: readonly Expr[]): boolean[] | null {
  if (exprs.some(hasCorrelated)) return null;
  return needWith(new Array<boolean>(width).fill(false), exprs);
}

/** `need` plus the columns `exprs` read. */
function needWith(need: readonly boolean[], exprs: readonly Expr[]): boolean[] {
  const out = need.slice();
  for (const e of exprs) for (const c of columnsUsed(e)) out[c] = true;
  return out;
}

function hasCorrelated(e: Expr): boolean {
  return someExprDeep(e, (x) => x.kind === 'subquery' && x.correlated);
}

function hasSubquery(e: Expr): boolean {
  return someExprDeep(e, (x) => x.kind === 'subquery');
}
/**
 * LIMIT / OFFSET arguments that read an outer query's columns, or hold a subquery foldConstantSubqueries
 * did not replace (inside a subquery's plan, or correlated): evaluated per run (RuntimeLimit).
 */
function argumentsAtRunTime(count: Expr | null, offset: Expr | null): boolean {
  const late = (e: Expr | null): boolean => e !== null && (hasOuter(e) || hasSubquery(e));
  return late(count) || late(offset);
}
function hasOuter(e: Expr): boolean {
  return someExprDeep(e, (x) => x.kind === 'outer');
}
function someExprDeep(e: Expr, f: (e: Expr) => boolean): boolean {
  let found = false;
  mapExpr(e, (x) => {
    if (f(x)) found = true;
    return x;
  });
  return found;
}

function shift(e: Expr, by: number): Expr {
  return mapExpr(e, (x) => (x.kind === 'column' ? { ...x, index: x.index + by } : x));
}

export type { DataType, Value };
