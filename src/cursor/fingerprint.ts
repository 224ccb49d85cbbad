/**
 * What a cursor is bound to. A continuation re-binds the SQL carried in the token; if the output
 * schema, the chosen key columns, the parameters or the engine changed since page 1, the old sort
 * key may mean something else, so the page is refused (CursorStale) instead of answering from a
 * different query.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { DataType } from '../common/types.js';

function readEngineVersion(): string {
  try {
    // Same relative path from src/cursor (tsx) and dist/cursor (compiled).
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

export const ENGINE_VERSION = readEngineVersion();

/**
 * Whitespace outside quotes and comments does not change a query, so it does not change its
 * fingerprint either (clients re-indent SQL freely); everything else is kept byte for byte.
 */
export function normalizeSql(sql: string): string {
  let out = '';
  let i = 0;
  let space = false;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const start = i++;
      while (i < n && sql[i] !== c) i++;
      i++;
      if (space && out !== '') out += ' ';
      space = false;
      out += sql.slice(start, i);
      continue;
    }
    if (/\s/.test(c)) {
      space = true;
      i++;
      continue;
    }
    if (space && out !== '') out += ' ';
    space = false;
    out += c;
    i++;
  }
  return out.replace(/;\s*$/, '');
}

export interface FingerprintInput {
  sql: string;
  /** Parameters as carried in the cursor (value-codec encoding). */
  params: unknown;
  columns: readonly { name: string; type: DataType }[];
  /** Key description: column positions, directions, null order, unique or duplicate-counting mode. */
  keySpec: string;
  timezone: string;
}

export function fingerprint(f: FingerprintInput): string {
  const h = createHash('sha256');
  h.update(
    JSON.stringify([
      ENGINE_VERSION,
      normalizeSql(f.sql),
      f.params,
      f.columns.map((c) => [c.name, c.type.name, c.type.typmod]),
      f.keySpec,
      f.timezone,
    ]),
  );
  // 128 bits: a collision would need a deliberate attack on SHA-256, and the token is signed anyway.
  return h.digest('base64url').slice(0, 22);
}
