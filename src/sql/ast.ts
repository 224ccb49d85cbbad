/** Small helpers over libpg-query's JSON AST (a node is `{ TypeName: fields }`). */
import type { Node } from '@pgsql/types';

export type AnyNode = Record<string, unknown>;

export function nodeTag(n: Node | undefined): string | undefined {
  if (n === undefined || n === null) return undefined;
  for (const k in n) return k;
  return undefined;
}

export function nodeBody<T = AnyNode>(n: Node): T {
  for (const k in n) return (n as Record<string, unknown>)[k] as T;
  throw new Error('empty AST node');
}

/** `String` nodes carry names: ['public', 't'] from fields like relname lists and funcname. */
export function strings(list: Node[] | undefined): string[] {
  if (!list) return [];
  return list.map((n) => {
    const b = nodeBody<{ sval?: string; str?: string }>(n);
    return b.sval ?? b.str ?? '';
  });
}

export function locationOf(n: Node | undefined): number | undefined {
  if (n === undefined) return undefined;
  const b = nodeBody<{ location?: number }>(n);
  return b.location;
}

/** The highest $n a statement's parse tree refers to (its parameter count, as PostgreSQL counts). */
export function maxParamRef(node: unknown): number {
  let max = 0;
  const walk = (n: unknown): void => {
    if (n === null || typeof n !== 'object') return;
    if (Array.isArray(n)) return n.forEach(walk);
    const o = n as Record<string, unknown>;
    const pr = o.ParamRef as { number?: number } | undefined;
    if (pr && typeof pr.number === 'number') max = Math.max(max, pr.number);
    for (const k in o) walk(o[k]);
  };
  walk(node);
  return max;
}
