/**
 * eliminate-limit: removes limits that cannot matter and plans that cannot return rows.
 *
 *   Limit(count=0)                      Empty(no rows)
 *     input                  ==>
 *
 *   Limit(count=ALL, offset=0)          input
 *     input                  ==>
 *
 *   Filter / Project / Sort / Limit / TopN / Window / Distinct / TopNRanking
 *     Empty(no rows)          ==>       Empty(no rows)
 *
 *   Join(inner | cross | semi, either side Empty) or Join(left, left side Empty)  ==>  Empty(no rows)
 *
 * Fires on LIMIT 0 (with or without OFFSET and WITH TIES: PostgreSQL returns no rows for
 * `FETCH FIRST 0 ROWS WITH TIES` too), on Top-N with count 0, on `LIMIT ALL` / `LIMIT NULL` without an
 * offset, and on row-preserving operators over an empty relation. The input of an eliminated LIMIT 0 is
 * never executed, which is what PostgreSQL does too (a LIMIT 0 subquery with a failing expression does not
 * fail). Refuses non-constant counts (parameters, subqueries: their value is known only at execution),
 * aggregates (an aggregate without GROUP BY returns one row for empty input) and set operations (their
 * output types may differ from the surviving branch).
 */
import type { LogicalPlan } from '../../logical/plan.js';
import { assertNever } from '../../logical/plan-nodes.js';
import type { OptimizerRule } from '../rule.js';
import { constInt } from './limit-support.js';

function empty(schema: LogicalPlan['schema']): LogicalPlan {
  return { op: 'empty', schema, oneRow: false };
}

const isEmpty = (p: LogicalPlan): boolean => p.op === 'empty' && !p.oneRow;

export const eliminateLimit: OptimizerRule = {
  name: 'eliminate-limit',
  rewrite(node: LogicalPlan): LogicalPlan | null {
    switch (node.op) {
      case 'limit': {
        const count = constInt(node.count, null);
        const offset = constInt(node.offset, 0);
        // A negative or non-constant OFFSET must still raise its error (or be evaluated) at execution.
        if (offset === undefined) return null;
        if (count === 0) return empty(node.schema);
        if (isEmpty(node.input) && count !== undefined) return empty(node.schema);
        if (count === null && offset === 0 && node.ties === null) return node.input;
        return null;
      }
      case 'topn':
        if (constInt(node.offset, 0) === undefined) return null;
        if (constInt(node.count, null) === 0 || isEmpty(node.input)) return empty(node.schema);
        return null;
      case 'filter':
      case 'project':
      case 'sort':
      case 'window':
      case 'distinct':
      case 'distinct-on':
      case 'topn-ranking':
        return isEmpty(node.input) ? empty(node.schema) : null;
      case 'join': {
        if (node.lateral === true) return null;
        const t = node.type;
        if ((t === 'inner' || t === 'cross' || t === 'semi') && (isEmpty(node.left) || isEmpty(node.right))) return empty(node.schema);
        if ((t === 'left' || t === 'anti') && isEmpty(node.left)) return empty(node.schema);
        if (t === 'right' && isEmpty(node.right)) return empty(node.schema);
        return null;
      }
      case 'scan':
      case 'values':
      case 'empty':
      case 'table-function':
      case 'worktable':
      case 'aggregate': // an aggregate without GROUP BY gives one row even over no input
      case 'setop':
      case 'recursive-cte':
      // A statement that changes no row still runs (and a DELETE of nothing is not nothing to EXPLAIN).
      case 'modify':
        return null;
      default:
        return assertNever(node);
    }
  },
};
