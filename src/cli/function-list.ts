/** \df's catalog: the engine's built-in scalar functions, loaded only when \df runs. */
import type { DataType } from '../common/types.js';
import type { FunctionRow } from './session.js';

/** Rows: every overload of every built-in scalar function (operators excluded), in pg_catalog. */
export async function functionLister(): Promise<FunctionRow[]> {
  const { scalarNames, lookupScalar } = await import('../functions/registry.js');
  const { T, typeDisplayName } = await import('../index.js');
  const typeName = (a: string): string => (a in T ? typeDisplayName(T[a as keyof typeof T] as DataType) : a === 'any' ? '"any"' : a);
  const rows: FunctionRow[] = [];
  for (const name of scalarNames()) {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) continue;
    for (const o of lookupScalar(name) ?? []) {
      const args = o.args.map(typeName);
      if (o.variadic === true && args.length > 0) args[args.length - 1] = `VARIADIC ${args[args.length - 1]}`;
      const result = typeof o.returns === 'function' ? (o.args.includes('anyarray') ? 'anyarray' : 'anyelement') : typeDisplayName(o.returns);
      rows.push(['pg_catalog', name, result, args.join(', '), 'func']);
    }
  }
  return rows;
}
