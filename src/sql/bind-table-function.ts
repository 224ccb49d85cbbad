/** FROM-clause function calls: generate_series, read_csv, read_json and the other registered table functions. */
import type { Node } from '@pgsql/types';
import { QuireError, positionOf } from '../common/errors.js';
import type { Value } from '../common/types.js';
import type { EvalContext } from '../functions/eval-context.js';
import type { Expr } from '../logical/expr.js';
import type { LogicalPlan } from '../logical/plan.js';
import { lookupTableFunction } from '../storage/table-functions/table-function.js';
import { nodeBody, nodeTag, strings, type AnyNode } from './ast.js';
import { bindExpr, type ExprCtx } from './bind-expr.js';
import { coerce } from './coerce.js';

export function bindTableFunction(b: AnyNode, cx: ExprCtx, evalCtx: EvalContext): { plan: LogicalPlan; defaultAlias: string; singleColumn: boolean } {
  const fns = b.functions as Node[];
  if (b.ordinality) throw new QuireError('0A000', 'WITH ORDINALITY is not supported', {});
  if (fns.length !== 1) throw new QuireError('0A000', 'ROWS FROM with several functions is not supported', {});
  const list = nodeBody<AnyNode>(fns[0]!).items as Node[];
  const call = list[0]!;
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
  return {
    plan: { op: 'table-function', name, args, impl: binding, schema: binding.schema },
    defaultAlias: name,
    singleColumn: binding.schema.length === 1,
  };
}
