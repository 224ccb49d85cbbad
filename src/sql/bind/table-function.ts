/** FROM-clause function calls: generate_series, read_csv, read_json and the other registered table functions. */
import type { Node } from '@pgsql/types';
import { QuireError, positionOf } from '../../common/errors.js';
import type { Schema, Value } from '../../common/types.js';
import type { EvalContext } from '../../functions/eval-context.js';
import type { Expr } from '../../logical/expr.js';
import type { LogicalPlan, TableFunctionImpl } from '../../logical/plan.js';
import { rowsFrom } from '../../storage/table-functions/rows-from.js';
import { ordinalitySchema, withOrdinality } from '../../storage/table-functions/with-ordinality.js';
import { lookupTableFunction } from '../../storage/table-functions/table-function.js';
import { nodeBody, nodeTag, strings, type AnyNode } from '../ast.js';
import { bindExpr, type ExprCtx } from './expr.js';
import { coerce } from '../coerce.js';

export function bindTableFunction(b: AnyNode, cx: ExprCtx, evalCtx: EvalContext): { plan: LogicalPlan; defaultAlias: string; singleColumn: boolean } {
  const fns = b.functions as Node[];
  const bound = fns.map((f) => bindOne((nodeBody<AnyNode>(f).items as Node[])[0]!, cx, evalCtx));
  const first = bound[0]!;
  // ROWS FROM (f(…), g(…)): the functions in lockstep, their columns side by side.
  let impl = bound.length === 1 ? first.impl : rowsFrom(bound.map((f) => ({ name: f.name, impl: f.impl, argCount: f.args.length, schema: f.schema })));
  let schema: Schema = bound.flatMap((f) => f.schema);
  const name = bound.length === 1 ? first.name : 'ROWS FROM';
  if (b.ordinality === true) {
    impl = withOrdinality(impl);
    schema = ordinalitySchema(schema);
  }
  return {
    plan: { op: 'table-function', name, args: bound.flatMap((f) => f.args), impl, schema },
    defaultAlias: first.name,
    singleColumn: bound.length === 1 && b.ordinality !== true && first.schema.length === 1,
  };
}

function bindOne(call: Node, cx: ExprCtx, evalCtx: EvalContext): { name: string; args: Expr[]; impl: TableFunctionImpl; schema: Schema } {
  if (nodeTag(call) !== 'FuncCall') throw new QuireError('0A000', 'only function calls are supported in FROM', {});
  const fc = nodeBody<AnyNode>(call);
  const parts = strings(fc.funcname as Node[]);
  const name = parts[parts.length - 1]!;
  const loc = fc.location as number | undefined;
  const fn = lookupTableFunction(name);
  if (fn === undefined) {
    throw new QuireError('42883', `function ${name} does not exist or is not a table function`, { position: positionOf(loc) });
  }
  const positional: Expr[] = [];
  const named = new Map<string, Value>();
  for (const a of (fc.args as Node[] | undefined) ?? []) {
    if (nodeTag(a) === 'NamedArgExpr') {
      const na = nodeBody<AnyNode>(a);
      const e = bindExpr(na.arg as Node, cx);
      if (e.kind !== 'const') throw new QuireError('22023', `named argument ${na.name as string} must be a constant`, { position: positionOf(na.location as number) });
      named.set(na.name as string, e.value);
    } else positional.push(bindExpr(a, cx));
  }
  const consts = positional.map((e) => (e.kind === 'const' ? e.value : undefined));
  let binding;
  try {
    binding = fn.bind(positional.map((e) => e.type), consts, evalCtx, named);
  } catch (e) {
    if (e instanceof QuireError && e.position === 0) e.position = positionOf(loc);
    throw e;
  }
  const args = positional.map((e, i) => coerce(e, binding.argTypes[i] ?? e.type, 'implicit', cx.env, positionOf(loc)));
  return { name, args, impl: binding, schema: binding.schema };
}
