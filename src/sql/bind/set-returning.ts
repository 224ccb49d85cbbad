/**
 * Set-returning functions in a select list, rewritten in the AST before binding: into a LATERAL ROWS
 * FROM (…) item, and for grouped or windowed queries into an outer query over the grouped one, so they
 * expand where PostgreSQL expands them.
 */
import { positionOf } from '../../common/errors.js';
import type { Node, SelectStmt } from '@pgsql/types';
import { QuireError } from '../../common/errors.js';
import { nodeBody, nodeTag, strings, type AnyNode } from '../ast.js';
import { locOf } from './expr.js';
import { lookupTableFunction } from '../../storage/table-functions/table-function.js';
import { lookupScalar } from '../../functions/registry.js';
import { figureColname } from './query.js';

const pos = positionOf;

/**
 * Set-returning functions at the top of select-list items (`SELECT generate_series(1, n) FROM t`) produce
 * one output row per function row for each input row: the same as a LATERAL call in FROM. Several of
 * them run in lockstep (the longest sets the row count, the others give NULLs once they run out), which
 * is a LATERAL ROWS FROM (…) over all of them. The AST is rewritten to that form before binding.
 */
function isSrfCall(n: Node | undefined, isUserSrf: (name: string) => boolean): boolean {
  if (nodeTag(n) !== 'FuncCall') return false;
  const fc = nodeBody<AnyNode>(n!);
  if (fc.over) return false;
  const name = strings(fc.funcname as Node[]).pop()!;
  return isUserSrf(name) || (lookupTableFunction(name) !== undefined && lookupScalar(name) === undefined);
}

/** Whether the AST (outside sub-SELECTs) holds a call that satisfies `pred`. */
function containsCall(n: unknown, pred: (fc: AnyNode) => boolean): boolean {
  if (n === null || typeof n !== 'object') return false;
  if (Array.isArray(n)) return n.some((x) => containsCall(x, pred));
  for (const [k, v] of Object.entries(n as Record<string, unknown>)) {
    if (k === 'SubLink' || k === 'SelectStmt') continue;
    if (k === 'FuncCall' && pred(v as AnyNode)) return true;
    if (containsCall(v, pred)) return true;
  }
  return false;
}

/**
 * PostgreSQL expands select-list set-returning functions after grouping, aggregation and window
 * functions, and before DISTINCT, ORDER BY and LIMIT. A grouped (or windowed) query with such a function
 * is bound as that order says: the query without the functions (their arguments as hidden columns) is a
 * derived table, and an outer query calls the functions over each of its rows, then orders and limits.
 * null when the query needs no such nesting.
 */
export function nestGroupedSrf(s: SelectStmt, isUserSrf: (name: string) => boolean, isAggregate: (name: string) => boolean): SelectStmt | null {
  const targets = s.targetList ?? [];
  const srfIdx = targets.map((t, i) => (isSrfCall(nodeBody<AnyNode>(t).val as Node, isUserSrf) ? i : -1)).filter((i) => i >= 0);
  if (srfIdx.length === 0) return null;
  const aggOrWindow = (fc: AnyNode): boolean => fc.over !== undefined || isAggregate(strings(fc.funcname as Node[]).pop()!);
  const grouped = s.groupClause !== undefined || s.havingClause !== undefined || containsCall(targets, aggOrWindow) || containsCall(s.sortClause, aggOrWindow);
  if (!grouped) return null;
  const isStar = (t: Node): boolean => {
    const v = nodeBody<AnyNode>(t).val as Node;
    return nodeTag(v) === 'ColumnRef' && (nodeBody<AnyNode>(v).fields as Node[]).some((f) => nodeTag(f) === 'A_Star');
  };
  if (targets.some(isStar)) throw new QuireError('0A000', 'set-returning functions beside * in the select list of a grouped query are not supported');
  const col = (name: string): Node => ({ ColumnRef: { fields: [{ String: { sval: '?grouped?' } }, { String: { sval: name } }] } }) as unknown as Node;
  const hidden: Node[] = [];
  const hide = (e: Node): Node => {
    const name = `?arg?${hidden.length}`;
    hidden.push({ ResTarget: { name, val: e } } as unknown as Node);
    return col(name);
  };
  const names = targets.map((t) => (nodeBody<AnyNode>(t).name as string | undefined) ?? figureColname(nodeBody<AnyNode>(t).val as Node));
  const innerTargets: Node[] = [];
  const outerTargets = targets.map((t, i) => {
    const rt = nodeBody<AnyNode>(t);
    if (!srfIdx.includes(i)) {
      innerTargets.push({ ResTarget: { ...rt, name: `?col?${i}` } } as unknown as Node);
      return { ResTarget: { name: names[i], val: col(`?col?${i}`), location: rt.location } } as unknown as Node;
    }
    const fc = nodeBody<AnyNode>(rt.val as Node);
    const args = ((fc.args as Node[] | undefined) ?? []).map((a) => {
      if (nodeTag(a) !== 'NamedArgExpr') return hide(a);
      const na = nodeBody<AnyNode>(a);
      return { NamedArgExpr: { ...na, arg: hide(na.arg as Node) } } as unknown as Node;
    });
    return { ResTarget: { ...rt, name: names[i], val: { FuncCall: { ...fc, args } } } } as unknown as Node;
  });
  // ORDER BY and DISTINCT ON items naming an output column (or its ordinal) stay in the outer query; other
  // expressions are computed by the inner one, over its grouped rows.
  const outerKey = (n: Node): Node => {
    if (nodeTag(n) === 'A_Const') return n;
    if (nodeTag(n) === 'ColumnRef') {
      const f = nodeBody<AnyNode>(n).fields as Node[];
      if (f.length === 1 && nodeTag(f[0]!) === 'String' && names.includes(strings(f)[0]!)) return n;
    }
    if (containsCall(n, (fc) => isSrfCall({ FuncCall: fc } as unknown as Node, isUserSrf))) {
      throw new QuireError('0A000', 'set-returning functions in ORDER BY or DISTINCT ON of a grouped query are not supported', { position: pos(locOf(n)) });
    }
    return hide(n);
  };
  const sortClause = s.sortClause?.map((sb) => {
    const b = nodeBody<AnyNode>(sb);
    return { SortBy: { ...b, node: outerKey(b.node as Node) } } as unknown as Node;
  });
  const distinctClause = s.distinctClause?.map((n) => (nodeTag(n) === undefined ? n : outerKey(n)));
  const inner: SelectStmt = {
    ...s,
    targetList: [...innerTargets, ...hidden],
    sortClause: undefined,
    distinctClause: undefined,
    limitCount: undefined,
    limitOffset: undefined,
    limitOption: undefined,
    lockingClause: undefined,
    withClause: undefined,
  };
  return {
    targetList: outerTargets,
    fromClause: [{ RangeSubselect: { subquery: { SelectStmt: inner }, alias: { aliasname: '?grouped?' } } } as unknown as Node],
    ...(sortClause ? { sortClause } : {}),
    ...(distinctClause ? { distinctClause } : {}),
    ...(s.limitCount ? { limitCount: s.limitCount } : {}),
    ...(s.limitOffset ? { limitOffset: s.limitOffset } : {}),
    ...(s.limitOption ? { limitOption: s.limitOption } : {}),
    ...(s.lockingClause ? { lockingClause: s.lockingClause } : {}),
    op: 'SETOP_NONE',
  } as SelectStmt;
}

export function rewriteTargetListSrf(s: SelectStmt, isUserSrf: (name: string) => boolean): SelectStmt {
  const targets = s.targetList ?? [];
  const isSrf = (n: Node | undefined): boolean => isSrfCall(n, isUserSrf);
  const srfIdx = targets.map((t, i) => (isSrf(nodeBody<AnyNode>(t).val as Node) ? i : -1)).filter((i) => i >= 0);
  if (srfIdx.length === 0) return s;
  const alias = `?srf?${srfIdx[0]!}`;
  const calls = srfIdx.map((i) => nodeBody<AnyNode>(targets[i]!).val as Node);
  const rangeFunction = {
    RangeFunction: {
      lateral: true,
      functions: calls.map((call) => ({ List: { items: [call, {}] } })),
      alias: { aliasname: alias, colnames: srfIdx.map((i) => ({ String: { sval: `?srf?${i}` } })) },
    },
  } as unknown as Node;
  const newTargets = targets.map((t, k) => {
    if (!srfIdx.includes(k)) return t;
    const rt = nodeBody<AnyNode>(t);
    const name = strings(nodeBody<AnyNode>(rt.val as Node).funcname as Node[]).pop()!;
    const colRefNode = { ColumnRef: { fields: [{ String: { sval: alias } }, { String: { sval: `?srf?${k}` } }], location: rt.location } } as unknown as Node;
    return { ResTarget: { ...rt, name: (rt.name as string | undefined) ?? name, val: colRefNode } } as unknown as Node;
  });
  return { ...s, fromClause: [...(s.fromClause ?? []), rangeFunction], targetList: newTargets };
}
