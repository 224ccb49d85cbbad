/**
 * The session's effective schema search path, as PostgreSQL's fetch_search_path computes it:
 * search_path's entries in order, "$user" standing for the schema named after the session user,
 * entries naming no existing schema dropped, duplicates dropped. Quire's schemas are public,
 * pg_catalog and information_schema.
 */
import type { EvalContext } from '../../eval-context.js';

const SCHEMAS = new Set(['pg_catalog', 'public', 'information_schema']);
const CURRENT_USER = 'quire';

/** Splits a search_path value into identifiers (quoted ones keep their case, unquoted are lowered). */
function entries(path: string): string[] {
  const out: string[] = [];
  const re = /\s*(?:"((?:[^"]|"")*)"|([^,\s]+))\s*(?:,|$)/y;
  let m: RegExpExecArray | null;
  while (re.lastIndex < path.length && (m = re.exec(path)) !== null) {
    out.push(m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]!.toLowerCase());
  }
  return out;
}

/** Explicit entries that exist; with `implicit`, pg_catalog first unless the path names it. */
export function searchPath(c: EvalContext, implicit: boolean): string[] {
  const out: string[] = [];
  for (const e of entries(c.setting('search_path') ?? '')) {
    // "$user" is current_user, which is always quire, and no schema has that name.
    const name = e === '$user' ? CURRENT_USER : e;
    if (SCHEMAS.has(name) && !out.includes(name)) out.push(name);
  }
  if (implicit && !out.includes('pg_catalog')) out.unshift('pg_catalog');
  return out;
}
