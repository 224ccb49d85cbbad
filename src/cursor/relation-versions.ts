/**
 * What a cursor is bound to besides its SQL: the definitions of the tables and views the query
 * reads, each as a short digest. A view redefined to read other data, or a table recreated with
 * other columns, types or keys, changes its digest, and the cursor is refused as stale (the saved
 * sort key would be applied to a different relation).
 *
 * The digest is of the definition, not a counter: it is the same after a restart for an unchanged
 * schema, so cursors signed with the same secret keep working across restarts, and it is the same
 * on every replica. Rows written between pages do not change it: paging is "live" (see pager.ts).
 * Relations of ATTACHed databases are not covered (their definitions live on the remote server).
 */
import { createHash } from 'node:crypto';
import type { Node, SelectStmt } from '@pgsql/types';
import type { Catalog, ViewDef } from '../storage/catalog.js';
import type { TableSource } from '../logical/plan.js';

/** [relation name, digest] pairs, sorted by name. */
export type RelationVersions = [string, string][];

function digest(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 11);
}

export function tableVersion(t: TableSource): string {
  const keys = 'uniqueKeys' in t ? (t as { uniqueKeys: number[][] }).uniqueKeys : [];
  const notNull = 'meta' in t ? (t as { meta: { notNull: boolean }[] }).meta.map((m) => m.notNull) : [];
  return digest(['table', t.name, t.schema.map((f) => [f.name, f.type.name, f.type.typmod]), keys, notNull]);
}

/** The view's parse tree without source positions: how the CREATE was worded or laid out does not matter. */
export function viewVersion(v: ViewDef): string {
  const tree = JSON.stringify(v.query, (k, x: unknown) => (k === 'location' ? undefined : x));
  return digest(['view', v.name, tree, v.columnNames]);
}

/**
 * Every table and view named in `stmt`, views followed into their definitions. A CTE that shadows a
 * table's name is counted as that table too: at worst a cursor goes stale when it need not.
 */
export function relationVersions(stmt: Node | SelectStmt, catalog: Catalog): RelationVersions {
  const out = new Map<string, string>();
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const x of node) visit(x);
      return;
    }
    const rv = (node as { RangeVar?: { relname?: string; schemaname?: string; catalogname?: string } }).RangeVar;
    // A qualified name is a local relation unless it names an ATTACHed database (as the binder reads it).
    const remote = rv?.schemaname !== undefined && catalog.attached.has(rv.catalogname ?? rv.schemaname);
    if (rv !== undefined && rv.relname !== undefined && !remote && !out.has(rv.relname)) {
      const name = rv.relname;
      const view = catalog.views.get(name);
      if (view !== undefined) {
        out.set(name, viewVersion(view));
        visit(view.query);
      } else {
        const t = catalog.getTable(name);
        if (t !== undefined) out.set(name, tableVersion(t));
      }
    }
    for (const v of Object.values(node)) visit(v);
  };
  visit(stmt);
  return [...out].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/**
 * The relation whose definition differs between a cursor and now, with what happened to it. A
 * redefinition is reported first: a view that now reads other relations also makes its old ones
 * disappear from the list, and the view is the news.
 */
export function changedRelation(then: RelationVersions, now: RelationVersions): { name: string; change: 'redefined' | 'dropped' | 'added' } | null {
  const cur = new Map(now);
  const old = new Map(then);
  for (const [name, v] of then) {
    const c = cur.get(name);
    if (c !== undefined && c !== v) return { name, change: 'redefined' };
  }
  for (const [name] of then) if (!cur.has(name)) return { name, change: 'dropped' };
  for (const [name] of now) if (!old.has(name)) return { name, change: 'added' };
  return null;
}
