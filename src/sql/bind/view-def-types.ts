/**
 * The binder's answers pg_get_viewdef needs to print constants as ruleutils does: ruleutils prints the
 * analysed query, where every literal already has the type overload resolution gave it, while
 * view-def.ts prints the stored parse tree. Binding the pieces it asks about over the FROM items'
 * columns gives the same resolution the view's own query got.
 */
import type { Node } from '@pgsql/types';
import { formatValue, type FormatContext } from '../../common/format-value.js';
import { T, type DataType, type Field } from '../../common/types.js';
import type { Expr } from '../../logical/expr.js';
import { nodeBody, nodeTag, type AnyNode } from '../ast.js';
import { coerce } from '../coerce.js';
import { Scope } from '../scope.js';
import type { FromColumns, ViewDefTypes } from '../view-def.js';
import { bindExpr, type ExprCtx } from './expr.js';
import { entriesFor, shiftEntry } from './from-names.js';
import { bindTableFunction } from './table-function.js';

export function viewDefTypes(cx: ExprCtx, relationColumns: ViewDefTypes['relationColumns']): ViewDefTypes {
  const evalCtx = cx.env.evalCtx;
  const efd = Number(evalCtx.setting('extra_float_digits') ?? '1');
  const format: FormatContext = {
    timezone: evalCtx.timezone,
    extraFloatDigits: Number.isFinite(efd) ? efd : 1,
    dateStyle: evalCtx.setting('datestyle'),
    intervalStyle: evalCtx.setting('intervalstyle'),
  };

  /** A context whose scope holds the FROM items' columns (those of unknown type are left out: nothing typed refers to them). */
  const over = (from: readonly FromColumns[]): ExprCtx => {
    const scope = new Scope(null);
    let offset = 0;
    for (const f of from) {
      const fields: Field[] = [];
      f.columns.forEach((name, i) => fields.push({ name, type: f.types[i] ?? T.unknown }));
      scope.entries.push(...entriesFor(fields, f.alias).filter((_, i) => f.types[i] !== null).map((e) => shiftEntry(e, offset)));
      offset += fields.length;
    }
    return { scope, clause: 'pg_get_viewdef', aggs: null, windows: null, env: cx.env };
  };

  const bound = (n: Node, from: readonly FromColumns[]): Expr | null => {
    try {
      return bindExpr(n, over(from));
    } catch {
      // Aggregates, window calls and sub-queries are not bound on their own here.
      return null;
    }
  };

  return {
    relationColumns,
    exprType: (n, from) => bound(n, from)?.type ?? null,
    callTypes(call, from, inFrom) {
      const argCount = ((nodeBody<AnyNode>(call).args as Node[] | undefined) ?? []).length;
      if (inFrom) {
        try {
          const r = bindTableFunction({ functions: [{ List: { items: [call] } }] }, over(from), evalCtx);
          if (r.plan.op !== 'table-function' || r.plan.args.length !== argCount) return null;
          return { args: r.plan.args.map((a) => a.type), columns: r.plan.schema };
        } catch {
          return null;
        }
      }
      const e = bound(call, from);
      if (e === null) return null;
      const args = e.kind === 'call' ? e.args : e.kind === 'compare' && nodeTag(call) === 'A_Expr' ? [e.left, e.right] : null;
      // A call rewritten on binding (defaults filled in, variadic arguments gathered) has no one-to-one arguments.
      if (args === null || args.length !== (nodeTag(call) === 'A_Expr' ? (nodeBody<AnyNode>(call).lexpr === undefined ? 1 : 2) : argCount)) return null;
      return { args: args.map((a) => a.type), columns: [] };
    },
    constantText(text, t) {
      const c = coerce({ kind: 'const', value: text, type: T.unknown }, t, 'explicit', cx.env);
      return c.kind === 'const' ? formatValue(c.value, t, format) : null;
    },
    typeName(tn) {
      return bindExpr({ TypeCast: { arg: { A_Const: { isnull: true } }, typeName: tn } } as unknown as Node, over([])).type;
    },
  };
}
