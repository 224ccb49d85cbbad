/**
 * distinct-of-constants-to-limit: a DISTINCT whose columns, or a DISTINCT ON whose keys, hold one value
 * on every row has at most one group, so its first row is the answer.
 *
 *   Distinct                      Limit(1)
 *     input           ==>           input
 *
 *   DistinctOn(keys)              Project(list)
 *     Sort(keys, more)  ==>         Limit(1)
 *       Project(list)                 Sort(keys, more read through the list)
 *         input                         input
 *
 * Fires when every column of the DISTINCT (every key of the DISTINCT ON) is a constant or parameter of
 * the select list or a column a filter below pins with `column = constant` (constant-columns.ts):
 * `SELECT DISTINCT four FROM t WHERE four = 0`. DISTINCT ON keeps the first row of its group in its
 * input's order, which is the first row of the input. The scan then stops at the first matching row
 * instead of hashing every one. PostgreSQL plans these queries the same way. Refuses any column
 * computed by an expression (its value may still differ between rows) and empty select lists.
 */
import type { LogicalPlan } from '../../logical/plan.js';
import type { OptimizerRule } from '../rule.js';
import { constantColumns, isConstantOver } from './constant-columns.js';
import { int8 } from './limit-support.js';
import { someExpr, type SortKey } from '../../logical/expr.js';

export const distinctOfConstantsToLimit: OptimizerRule = {
  name: 'distinct-of-constants-to-limit',
  rewrite(node: LogicalPlan): LogicalPlan | null {
    if (node.op !== 'distinct' && node.op !== 'distinct-on') return null;
    const constant = constantColumns(node.input);
    const keysFixed = node.op === 'distinct' ? node.schema.length > 0 && constant.every((c) => c) : node.keys.every((k) => isConstantOver(k, constant));
    if (!keysFixed) return null;
    // DISTINCT ON's first row is found before its select list is computed, so the list is evaluated
    // once, above the Limit (and its Sort), where PostgreSQL places it. The Sort then reads the input's
    // columns: its keys are rewritten through the list, and a key that reads a volatile call or a
    // subquery keeps the old shape.
    const input = node.input;
    const sort = input.op === 'sort' ? input : null;
    const project = sort !== null ? sort.input : input;
    if (node.op === 'distinct-on' && project.op === 'project') {
      const below = project.input;
      let under: LogicalPlan = below;
      const keys: SortKey[] = [];
      for (const k of sort?.keys ?? []) {
        const e = k.expr.kind === 'column' ? project.exprs[k.expr.index]! : null;
        if (e === null || someExpr(e, (x) => x.kind === 'subquery' || (x.kind === 'call' && x.overload.volatile === true))) break;
        keys.push({ ...k, expr: e });
      }
      if (sort !== null) under = { op: 'sort', input: below, keys, schema: below.schema };
      if (keys.length === (sort?.keys.length ?? 0)) return { ...project, input: { op: 'limit', input: under, offset: null, count: int8(1), ties: null, schema: below.schema } };
    }
    return { op: 'limit', input, offset: null, count: int8(1), ties: null, schema: node.schema };
  },
};
