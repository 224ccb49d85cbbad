/**
 * Name resolution. A scope lists the columns visible in one query level (FROM items, with their
 * qualifiers); its parent is the enclosing query, reached by correlated subqueries.
 */
import { QuireError } from '../common/errors.js';
import type { Expr } from '../logical/expr.js';
import type { ExprCtx } from './bind/expr.js';

/**
 * The name of a hidden entry, one per FROM item on the NULL side of an outer join whose whole row the
 * query reads: a column that is TRUE for a row the item gave and NULL for a null-extended one.
 */
export const ROW_PRESENT = '\u0000row present';

export interface ScopeEntry {
  qualifier: string | null;
  name: string;
  /** The value in this query level's input row (usually a column reference). */
  expr: Expr;
  /** Not expanded by `*` (the right-hand copy of a USING column). */
  hiddenFromStar: boolean;
  /** Unqualified lookups skip it (the qualified copies of a USING column are still reachable). */
  hiddenUnqualified: boolean;
}

export class Scope {
  entries: ScopeEntry[] = [];
  /** Set when a name in this scope (or a nested one) was resolved in an enclosing scope. */
  usesOuter = false;
  /**
   * The expression context of this level while one of its sub-SELECTs is being bound: an aggregate in
   * the sub-SELECT over this level's columns only belongs here, and is checked against this clause.
   */
  subqueryCx: ExprCtx | null = null;

  constructor(readonly parent: Scope | null) {}

  qualifiers(): Set<string> {
    const s = new Set<string>();
    for (const e of this.entries) if (e.qualifier !== null) s.add(e.qualifier);
    return s;
  }

  /** Finds name in this scope only; throws on ambiguity; undefined when absent. */
  findLocal(qualifier: string | null, name: string, position: number): ScopeEntry | undefined {
    let found: ScopeEntry | undefined;
    for (const e of this.entries) {
      if (e.name !== name) continue;
      if (qualifier === null) {
        if (e.hiddenUnqualified) continue;
      } else if (e.qualifier !== qualifier) continue;
      if (found !== undefined) {
        throw new QuireError('42702', `column reference "${qualifier ? qualifier + '.' : ''}${name}" is ambiguous`, { position });
      }
      found = e;
    }
    return found;
  }

  hasQualifier(q: string): boolean {
    return this.entries.some((e) => e.qualifier === q);
  }
}
