/**
 * What every logical plan node has, in one table: its children, a copy with new children, and a copy
 * with its expressions mapped. The table is typed by the node union, so a new node kind does not
 * compile until it has an entry here; generic code (children, withChildren, mapPlanExprs, rule
 * traversal) reads the table instead of switching over node kinds with a default that would accept a
 * node it does not know.
 */
import type { Expr, SortKey } from './expr.js';
import type { FrameBound, LogicalPlan, PlanOp, WindowCall } from './plan.js';

export type PlanNode<K extends PlanOp> = Extract<LogicalPlan, { op: K }>;

export interface NodeInfo<P extends LogicalPlan> {
  children(p: P): LogicalPlan[];
  withChildren(p: P, kids: readonly LogicalPlan[]): P;
  /** The node with `m` applied to each of its own expressions (not its children's). */
  mapExprs(p: P, m: (e: Expr) => Expr): P;
}

const leaf = <P extends LogicalPlan>(mapExprs: NodeInfo<P>['mapExprs'] = (p) => p): NodeInfo<P> => ({
  children: () => [],
  withChildren: (p) => p,
  mapExprs,
});

const unary = <P extends LogicalPlan & { input: LogicalPlan }>(mapExprs: NodeInfo<P>['mapExprs'] = (p) => p): NodeInfo<P> => ({
  children: (p) => [p.input],
  withChildren: (p, kids) => ({ ...p, input: kids[0]! }),
  mapExprs,
});

const binary = <P extends LogicalPlan & { left: LogicalPlan; right: LogicalPlan }>(mapExprs: NodeInfo<P>['mapExprs'] = (p) => p): NodeInfo<P> => ({
  children: (p) => [p.left, p.right],
  withChildren: (p, kids) => ({ ...p, left: kids[0]!, right: kids[1]! }),
  mapExprs,
});

const keys = (ks: readonly SortKey[], m: (e: Expr) => Expr): SortKey[] => ks.map((k) => ({ ...k, expr: m(k.expr) }));
const maybe = (e: Expr | null, m: (e: Expr) => Expr): Expr | null => (e === null ? null : m(e));
const bound = (b: FrameBound, m: (e: Expr) => Expr): FrameBound => ('offset' in b ? { ...b, offset: m(b.offset) } : b);

function windowCall(c: WindowCall, m: (e: Expr) => Expr): WindowCall {
  const { spec } = c;
  return {
    ...c,
    args: c.args.map(m),
    filter: maybe(c.filter, m),
    spec: {
      ...spec,
      partitionBy: spec.partitionBy.map(m),
      orderBy: keys(spec.orderBy, m),
      frame: { ...spec.frame, start: bound(spec.frame.start, m), end: bound(spec.frame.end, m) },
    },
  };
}

export const PLAN_NODES: { readonly [K in PlanOp]: NodeInfo<PlanNode<K>> } = {
  scan: leaf(),
  values: leaf((p, m) => ({ ...p, rows: p.rows.map((r) => r.map(m)) })),
  empty: leaf(),
  'table-function': leaf((p, m) => ({ ...p, args: p.args.map(m) })),
  worktable: leaf(),
  filter: unary((p, m) => ({ ...p, predicate: m(p.predicate) })),
  project: unary((p, m) => ({ ...p, exprs: p.exprs.map(m) })),
  aggregate: unary((p, m) => ({
    ...p,
    groupBy: p.groupBy.map(m),
    aggs: p.aggs.map((a) => ({ ...a, args: a.args.map(m), filter: maybe(a.filter, m), orderBy: keys(a.orderBy, m) })),
  })),
  window: unary((p, m) => ({ ...p, calls: p.calls.map((c) => windowCall(c, m)) })),
  sort: unary((p, m) => ({ ...p, keys: keys(p.keys, m) })),
  limit: unary((p, m) => ({ ...p, offset: maybe(p.offset, m), count: maybe(p.count, m), ties: p.ties === null ? null : keys(p.ties, m) })),
  topn: unary((p, m) => ({ ...p, keys: keys(p.keys, m), offset: maybe(p.offset, m), count: m(p.count) })),
  'topn-ranking': unary((p, m) => ({ ...p, partitionBy: p.partitionBy.map(m), orderBy: keys(p.orderBy, m) })),
  distinct: unary(),
  'distinct-on': unary((p, m) => ({ ...p, keys: p.keys.map(m) })),
  join: binary((p, m) => ({ ...p, condition: maybe(p.condition, m) })),
  setop: binary(),
  // Its input's columns are all the target reads, and RETURNING is evaluated by the target itself.
  modify: unary(),
  'recursive-cte': {
    children: (p) => [p.anchor, p.recursive],
    withChildren: (p, kids) => ({ ...p, anchor: kids[0]!, recursive: kids[1]! }),
    mapExprs: (p) => p,
  },
};

/** The table's entry for `p`, typed for `p`'s kind. */
export function nodeInfo<P extends LogicalPlan>(p: P): NodeInfo<P> {
  return PLAN_NODES[p.op] as unknown as NodeInfo<P>;
}

/** For the default branch of a switch that handles every node kind: a compile error when one is missing. */
export function assertNever(x: never, what = 'plan node'): never {
  throw new Error(`unhandled ${what}: ${JSON.stringify((x as { op?: string; kind?: string }).op ?? (x as { kind?: string }).kind)}`);
}
