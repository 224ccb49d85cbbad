/**
 * Subqueries in expressions (SubLinks): scalar, EXISTS, IN / ANY / ALL (row-valued too) and ARRAY(…),
 * bound by the query binder one level down with the current scope as their outer scope.
 */
import { positionOf, QuireError } from '../../common/errors.js';
import type { Node } from '@pgsql/types';
import { T, type, typeDisplayName, isArrayType, arrayTypeFor } from '../../common/types.js';
import { type Expr, type CompareOp } from '../../logical/expr.js';
import { mapPlanExprs } from '../../logical/map-plan-exprs.js';
import type { LogicalPlan } from '../../logical/plan.js';
import { nodeBody, nodeTag, strings, type AnyNode } from '../ast.js';
import { coerce, comparisonType } from '../coerce.js';
import { type ExprCtx, bindExpr, multidimensional } from './expr.js';
import { COMPARE_OPS, rowFields, rowComparison } from './comparison.js';

const pos = positionOf;

/** Binds a sub-SELECT of this level; an aggregate in it over this level's columns only comes back here. */
function bindSubselect(b: AnyNode, cx: ExprCtx): { plan: LogicalPlan; correlated: boolean } {
  const saved = cx.scope.subqueryCx;
  cx.scope.subqueryCx = cx;
  try {
    return cx.env.bindSubquery(b.subselect as Node, cx.scope);
  } finally {
    cx.scope.subqueryCx = saved;
  }
}

/**
 * (a, b) < (SELECT x, y …): the sub-SELECT gives at most one row (none compares as a row of NULLs), whose
 * fields are compared as a row constructor's. Each field is read by a scalar sub-SELECT of its own over
 * the same plan, which reads the same row each time unless the plan holds a volatile call (refused).
 */
export function bindRowCompareSubLink(op: string, ln: Node, sub: AnyNode, cx: ExprCtx, loc: number | undefined): Expr {
  const { plan, correlated } = bindSubselect(sub, cx);
  let volatile = false;
  mapPlanExprs(plan, 0, (x) => {
    if (x.kind === 'call' && x.overload.volatile === true) volatile = true;
    return x;
  });
  if (volatile) throw new QuireError('0A000', 'row comparison with a sub-SELECT that calls volatile functions is not supported', { position: pos(loc) });
  const la = rowFields(ln, cx);
  if (la.length !== plan.schema.length) {
    throw new QuireError('42601', la.length < plan.schema.length ? 'subquery has too many columns' : 'subquery has too few columns', { position: pos(loc) });
  }
  const ra = plan.schema.map((f, j): Expr => {
    const one: LogicalPlan = { op: 'project', input: plan, exprs: [{ kind: 'column', index: j, type: f.type, name: f.name }], schema: [f] };
    return { kind: 'subquery', mode: 'scalar', plan: one, correlated, type: f.type.name === 'unknown' ? T.text : f.type };
  });
  return rowComparison(op, la, ra, cx, loc);
}

export function bindSubLink(b: AnyNode, cx: ExprCtx): Expr {
  const kind = b.subLinkType as string;
  const loc = b.location as number | undefined;
  const { plan, correlated } = bindSubselect(b, cx);
  switch (kind) {
    case 'EXISTS_SUBLINK':
      return { kind: 'subquery', mode: 'exists', plan, correlated, type: T.bool };
    case 'EXPR_SUBLINK': {
      if (plan.schema.length !== 1) throw new QuireError('42601', 'subquery must return only one column', { position: pos(loc) });
      return { kind: 'subquery', mode: 'scalar', plan, correlated, type: plan.schema[0]!.type.name === 'unknown' ? T.text : plan.schema[0]!.type };
    }
    case 'ANY_SUBLINK':
    case 'ALL_SUBLINK': {
      const opName = strings(b.operName as Node[] | undefined).pop() ?? '=';
      const test = b.testexpr as Node;
      if (nodeTag(test) === 'RowExpr') {
        // (a, b) IN (SELECT x, y …): column-wise equality under three-valued logic.
        const items = (nodeBody<AnyNode>(test).args as Node[]).map((n) => bindExpr(n, cx));
        if (items.length !== plan.schema.length) {
          throw new QuireError('42601', items.length < plan.schema.length ? 'subquery has too many columns' : 'subquery has too few columns', { position: pos(loc) });
        }
        if (opName !== '=' && opName !== '<>') throw new QuireError('0A000', `row comparison with ${opName} ${kind === 'ANY_SUBLINK' ? 'ANY' : 'ALL'} is not supported`, { position: pos(loc) });
        const types = items.map((it, i) => {
          const t = comparisonType(it.type, plan.schema[i]!.type);
          if (t === null) throw new QuireError('42883', `operator does not exist: ${typeDisplayName(it.type)} = ${typeDisplayName(plan.schema[i]!.type)}`, { position: pos(loc) });
          return t;
        });
        let p = plan;
        if (types.some((t, i) => t.name !== plan.schema[i]!.type.name)) {
          p = {
            op: 'project',
            input: plan,
            exprs: plan.schema.map((f, i) => coerce({ kind: 'column', index: i, type: f.type, name: f.name }, types[i]!, 'implicit', cx.env)),
            schema: plan.schema.map((f, i) => ({ name: f.name, type: types[i]! })),
          };
        }
        return {
          kind: 'subquery',
          mode: kind === 'ANY_SUBLINK' ? 'any' : 'all',
          plan: p,
          rowArgs: items.map((it, i) => coerce(it, types[i]!, 'implicit', cx.env)),
          op: opName as CompareOp,
          correlated,
          type: T.bool,
        };
      }
      if (plan.schema.length !== 1) throw new QuireError('42601', plan.schema.length > 1 ? 'subquery has too many columns' : 'subquery has too few columns', { position: pos(loc) });
      const left = bindExpr(b.testexpr as Node, cx);
      const st = plan.schema[0]!.type;
      const t = comparisonType(left.type, st);
      if (t === null || !COMPARE_OPS.has(opName)) {
        throw new QuireError('42883', `operator does not exist: ${typeDisplayName(left.type)} ${opName} ${typeDisplayName(st)}`, { position: pos(loc) });
      }
      const op = (opName === '!=' ? '<>' : opName) as CompareOp;
      let p = plan;
      if (st.name !== t.name) {
        const colExpr: Expr = { kind: 'column', index: 0, type: st, name: plan.schema[0]!.name };
        p = { op: 'project', input: plan, exprs: [coerce(colExpr, t, 'implicit', cx.env)], schema: [{ name: plan.schema[0]!.name, type: t }] };
      }
      return { kind: 'subquery', mode: kind === 'ANY_SUBLINK' ? 'any' : 'all', plan: p, arg: coerce(left, t, 'implicit', cx.env), op, correlated, type: T.bool };
    }
    case 'ARRAY_SUBLINK': {
      if (plan.schema.length !== 1) throw new QuireError('42601', 'subquery must return only one column', { position: pos(loc) });
      const ct = plan.schema[0]!.type;
      if (isArrayType(ct)) throw multidimensional(loc);
      return { kind: 'subquery', mode: 'array', plan, correlated, type: arrayTypeFor(ct) };
    }
    default:
      throw new QuireError('0A000', `subquery kind ${kind} is not supported`, { position: pos(loc) });
  }
}


// ---- SQL functions ----
