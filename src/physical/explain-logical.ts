/**
 * EXPLAIN (LOGICAL): the optimized logical plan, one node per line in the layout of the physical
 * EXPLAIN. Optimizer rules are tested against this text, which shows what a rule changed (a Top-N
 * instead of Sort + Limit, a filter moved under a join) without the physical planner's choices
 * (strategies, projected key columns) in the way.
 */
import type { Expr } from '../logical/expr.js';
import { children, type LogicalPlan } from '../logical/plan.js';
import { assertNever } from '../logical/plan-nodes.js';
import { explainExpr, explainSortKeys } from './explain-expr.js';

export function explainLogical(root: LogicalPlan): string[] {
  const lines: string[] = [];
  const walk = (p: LogicalPlan, depth: number): void => {
    const [name, detail] = describeNode(p);
    let line = depth === 0 ? name : `${'      '.repeat(depth - 1)}  ->  ${name}`;
    if (detail !== '') line += ` (${detail})`;
    lines.push(line);
    for (const c of children(p)) walk(c, depth + 1);
  };
  walk(root, 0);
  return lines;
}

/** Input schema a node's expressions index (joins: left columns then right columns). */
function inputSchema(p: LogicalPlan): LogicalPlan['schema'] {
  return children(p).flatMap((k) => k.schema);
}

function describeNode(p: LogicalPlan): [string, string] {
  const s = inputSchema(p);
  const x = (e: Expr): string => explainExpr(e, s);
  const list = (es: readonly Expr[]): string => es.map(x).join(', ');
  const bound = (e: Expr | null): string => (e === null ? 'ALL' : x(e));
  switch (p.op) {
    case 'scan':
      return ['Scan', [p.source.name + (p.alias !== p.source.name ? ` AS ${p.alias}` : ''), p.projection !== undefined ? `columns: ${p.projection.map((c) => p.source.schema[c]?.name ?? `#${c}`).join(', ')}` : '', p.fetch !== undefined ? `fetch: ${p.fetch}` : ''].filter((t) => t !== '').join(', ')];
    case 'values':
      return ['Values', `${p.rows.length} row${p.rows.length === 1 ? '' : 's'}`];
    case 'empty':
      return ['Empty', p.oneRow ? 'one row' : 'no rows'];
    case 'table-function':
      return ['TableFunction', `${p.name}(${list(p.args)})`];
    case 'worktable':
      return ['WorkTable', p.name];
    case 'filter':
      return ['Filter', x(p.predicate)];
    case 'project':
      return ['Project', p.exprs.map((e, i) => `${x(e)} AS ${p.schema[i]?.name ?? `c${i}`}`).join(', ')];
    case 'aggregate':
      return ['Aggregate', [`group by: [${list(p.groupBy)}]`, `aggs: [${p.aggs.map((a) => `${a.name}(${a.distinct ? 'DISTINCT ' : ''}${a.args.length === 0 && a.name === 'count' ? '*' : list(a.args)})`).join(', ')}]`].join(', ')];
    case 'window':
      return ['Window', p.calls.map((c) => `${c.name}(${list(c.args)}) OVER (PARTITION BY [${list(c.spec.partitionBy)}] ORDER BY [${explainSortKeys(c.spec.orderBy, s)}] ${c.spec.frame.units})`).join(', ')];
    case 'sort':
      return ['Sort', explainSortKeys(p.keys, s)];
    case 'limit':
      return ['Limit', `limit: ${bound(p.count)}, offset: ${p.offset === null ? 0 : x(p.offset)}${p.ties !== null ? ', with ties' : ''}`];
    case 'topn':
      return ['TopN', `keys: [${explainSortKeys(p.keys, s)}], limit: ${x(p.count)}, offset: ${p.offset === null ? 0 : x(p.offset)}${p.withTies ? ', with ties' : ''}`];
    case 'topn-ranking':
      return ['TopNRanking', `${p.ranking} <= ${p.k}, partition by: [${list(p.partitionBy)}], order by: [${explainSortKeys(p.orderBy, s)}]${p.strict ? ', strict' : ''}`];
    case 'distinct':
      return ['Distinct', ''];
    case 'distinct-on':
      return ['DistinctOn', list(p.keys)];
    case 'join':
      return ['Join', `${p.type}${p.lateral === true ? ' lateral' : ''}${p.condition !== null ? `, on: ${x(p.condition)}` : ''}`];
    case 'setop':
      return ['SetOp', `${p.kind}${p.all ? ' all' : ''}`];
    case 'modify':
      return ['Modify', `${p.kind} on ${p.table}`];
    case 'recursive-cte':
      return ['RecursiveCTE', `${p.name}${p.all ? ', union all' : ', union'}`];
    default:
      return assertNever(p);
  }
}
