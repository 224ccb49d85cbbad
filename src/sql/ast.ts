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

/**
 * Calls `visit` with every node of a parsed tree whose tag is `tag` (its body), in tree order; the
 * node's own children are not visited.
 */
export function forEachNode(node: unknown, tag: string, visit: (body: AnyNode) => void): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) forEachNode(n, tag, visit);
    return;
  }
  const o = node as AnyNode;
  const body = o[tag] as AnyNode | undefined;
  if (body !== undefined) {
    visit(body);
    return;
  }
  for (const k in o) forEachNode(o[k], tag, visit);
}

/** Visits every `$n` reference in a parsed tree, in tree order (stops when `f` returns true). */
export function findParamRef(node: unknown, f: (number: number, location: number | undefined) => boolean): boolean {
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some((n) => findParamRef(n, f));
  const o = node as Record<string, unknown>;
  const pr = o.ParamRef as { number?: number; location?: number } | undefined;
  if (pr && typeof pr.number === 'number' && f(pr.number, pr.location)) return true;
  for (const k in o) if (findParamRef(o[k], f)) return true;
  return false;
}

/** The highest $n a statement's parse tree refers to (its parameter count, as PostgreSQL counts). */
export function maxParamRef(node: unknown): number {
  let max = 0;
  findParamRef(node, (n) => {
    max = Math.max(max, n);
    return false;
  });
  return max;
}

/** Parameters a statement takes: its highest $n, except PREPARE, whose $n belong to the prepared statement. */
export function statementParamCount(stmt: Node): number {
  return nodeTag(stmt) === 'PrepareStmt' ? 0 : maxParamRef(stmt);
}
