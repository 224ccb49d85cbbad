/**
 * Names a FROM clause brings into scope: the entries of a relation's columns and their shifts when
 * FROM items are joined, name conflicts between items, unique lookups on one side of a join, and *
 * expansion.
 */
import { positionOf } from '../../common/errors.js';
import type { Node } from '@pgsql/types';
import { QuireError } from '../../common/errors.js';
import { T, type Field } from '../../common/types.js';
import { type Expr, colRef, constant, mapExpr } from '../../logical/expr.js';
import { nodeBody, nodeTag, strings, type AnyNode } from '../ast.js';
import { Scope, type ScopeEntry } from '../scope.js';
import {  } from './query.js';

const pos = positionOf;

export function shiftEntry(e: ScopeEntry, offset: number): ScopeEntry {
  return { ...e, expr: shiftExpr(e.expr, offset) };
}

function shiftExpr(e: Expr, offset: number): Expr {
  return mapExpr(e, (x) => (x.kind === 'column' ? { ...x, index: x.index + offset } : x));
}

export function entriesFor(schema: readonly Field[], qualifier: string | null): ScopeEntry[] {
  // A relation without columns (CREATE TABLE nocols()) still gives its name to the FROM list, for
  // nocols.* and name conflicts: one entry that no lookup and no star ever returns.
  if (schema.length === 0 && qualifier !== null) {
    return [{ qualifier, name: '\u0000', expr: constant(null, T.bool), hiddenFromStar: true, hiddenUnqualified: true }];
  }
  return schema.map((f, i) => {
    const expr: Expr = qualifier === null ? colRef(i, f.type, f.name) : { kind: 'column', index: i, type: f.type, name: f.name, table: qualifier };
    return { qualifier, name: f.name, expr, hiddenFromStar: isSystemColumn(f.name), hiddenUnqualified: false };
  });
}

/** Columns the engine adds to a relation for itself (row positions): never part of `*` or `t.*`. */
function isSystemColumn(name: string): boolean {
  return name.charCodeAt(0) === 0;
}

/** PostgreSQL's checkNameSpaceConflicts: two FROM items at one level may not share a name (alias). */
export function checkNameConflicts(left: readonly ScopeEntry[], right: readonly ScopeEntry[]): void {
  const names = new Set<string>();
  for (const e of left) if (e.qualifier !== null) names.add(e.qualifier);
  for (const e of right) {
    if (e.qualifier !== null && names.has(e.qualifier)) {
      throw new QuireError('42712', `table name "${e.qualifier}" specified more than once`);
    }
  }
}

export function findUnique(entries: ScopeEntry[], name: string, side: string, loc: number | undefined): ScopeEntry {
  const m = entries.filter((e) => e.name === name && !e.hiddenUnqualified);
  if (m.length === 0) throw new QuireError('42703', `column "${name}" specified in USING clause does not exist in ${side} table`, { position: pos(loc) });
  if (m.length > 1) throw new QuireError('42702', `common column name "${name}" appears more than once in ${side} table`, { position: pos(loc) });
  return m[0]!;
}

/**
 * t.* as an item of a VALUES row (LATERAL (VALUES (t.*))): t's columns, one item each, read from the
 * query level whose FROM list holds t. null when the item is not a star.
 */
export function expandOuterStar(n: Node, scope: Scope): Expr[] | null {
  if (nodeTag(n) !== 'ColumnRef') return null;
  const b = nodeBody<AnyNode>(n);
  const fields = b.fields as Node[];
  if (nodeTag(fields[fields.length - 1]!) !== 'A_Star') return null;
  const position = pos(b.location as number);
  if (fields.length !== 2) throw new QuireError('42601', 'row expansion via "*" is not supported here', { position });
  const q = strings(fields.slice(0, 1))[0]!;
  let levels = 0;
  let owner: Scope | null = scope;
  while (owner !== null && !owner.hasQualifier(q)) {
    owner = owner.parent;
    levels++;
  }
  if (owner === null) throw new QuireError('42P01', `missing FROM-clause entry for table "${q}"`, { position });
  const cols = expandStar(owner, q, position);
  if (levels === 0) return cols.map((c) => c.expr);
  for (let i = 0, s: Scope | null = scope; i < levels && s !== null; i++, s = s.parent) s.usesOuter = true;
  return cols.map(({ expr }) => mapExpr(expr, (x) => (x.kind === 'column' ? { kind: 'outer', levels, index: x.index, type: x.type, name: x.name } : x)));
}

export function expandStar(scope: Scope, qualifier: string | null, position: number): { expr: Expr; name: string }[] {
  if (qualifier === null) {
    const out = scope.entries.filter((e) => !e.hiddenFromStar && !(e.hiddenUnqualified && e.qualifier === null)).map((e) => ({ expr: e.expr, name: e.name }));
    if (out.length === 0 && scope.entries.length === 0) throw new QuireError('42601', 'SELECT * with no tables specified is not valid', { position });
    return out;
  }
  if (!scope.hasQualifier(qualifier)) throw new QuireError('42P01', `missing FROM-clause entry for table "${qualifier}"`, { position });
  return scope.entries.filter((e) => e.qualifier === qualifier && !isSystemColumn(e.name)).map((e) => ({ expr: e.expr, name: e.name }));
}
