/**
 * ATTACH / DETACH, which PostgreSQL's grammar lacks (libpg-query rejects them), so they are picked
 * out of the statement text before parsing:
 *
 *   ATTACH [DATABASE] 'postgres://user:pw@host:port/db' AS name [ ( [TYPE postgres] [, FETCH_SIZE n] ) ]
 *   DETACH [DATABASE] [IF EXISTS] name
 *
 * The text is split at top-level semicolons with libpg-query's scanner (so semicolons in strings
 * and comments do not count); every other piece goes to the parser unchanged, with its offset kept
 * so error positions still point into the whole text.
 */
import { scanSync } from 'libpg-query';
import type { Node } from '@pgsql/types';
import { QuireError } from '../../common/errors.js';
import type { AttachedDatabase, Catalog } from '../catalog.js';
import type { TableSource } from '../../logical/plan.js';
import { PostgresAttachment, type AttachOptions } from './postgres.js';

export type AttachCommand =
  | { kind: 'attach'; dsn: string; alias: string; options: AttachOptions }
  | { kind: 'detach'; alias: string; ifExists: boolean };

export type ScriptPiece = { kind: 'sql'; text: string; offset: number } | { kind: 'command'; command: AttachCommand; text: string };

const MAYBE = /\b(attach|detach)\b/i;

interface Tok {
  start: number;
  end: number;
  text: string;
  tokenName: string;
}

/** Null when the text has no ATTACH/DETACH statement (the common case: parse it as usual). */
export function splitAttachStatements(sql: string): ScriptPiece[] | null {
  if (!MAYBE.test(sql)) return null;
  let toks: Tok[];
  try {
    toks = scanSync(sql).tokens as Tok[];
  } catch {
    return null;
  }
  // Statements as token runs between top-level semicolons.
  const stmts: Tok[][] = [];
  let cur: Tok[] = [];
  for (const t of toks) {
    if (t.text === ';' || t.tokenName === 'ASCII_59') {
      stmts.push(cur);
      cur = [];
    } else if (!/COMMENT/.test(t.tokenName)) cur.push(t);
  }
  stmts.push(cur);
  const isCmd = (s: Tok[]): boolean => s.length > 0 && /^(attach|detach)$/i.test(s[0]!.text);
  if (!stmts.some(isCmd)) return null;
  const pieces: ScriptPiece[] = [];
  let pendingStart = -1;
  let pendingEnd = -1;
  const flush = (): void => {
    if (pendingStart >= 0) pieces.push({ kind: 'sql', text: sql.slice(pendingStart, pendingEnd), offset: pendingStart });
    pendingStart = -1;
  };
  for (const s of stmts) {
    if (s.length === 0) continue;
    if (isCmd(s)) {
      flush();
      pieces.push({ kind: 'command', command: parseCommand(s, sql), text: sql.slice(s[0]!.start, s[s.length - 1]!.end) });
    } else {
      if (pendingStart < 0) pendingStart = s[0]!.start;
      pendingEnd = s[s.length - 1]!.end;
    }
  }
  flush();
  return pieces;
}

function syntax(msg: string, t: Tok | undefined, sql: string): QuireError {
  return new QuireError('42601', msg, { position: (t?.start ?? sql.length) + 1 });
}

function unquoteString(t: Tok, sql: string): string {
  const s = t.text;
  if (/^'/.test(s)) return s.slice(1, -1).replace(/''/g, "'");
  if (/^[eE]'/.test(s)) return s.slice(2, -1).replace(/''/g, "'").replace(/\\(.)/g, '$1');
  throw syntax('ATTACH needs the connection string as a string literal', t, sql);
}

function ident(t: Tok | undefined, sql: string): string {
  if (t === undefined) throw syntax('syntax error at end of input', t, sql);
  if (t.text.startsWith('"')) return t.text.slice(1, -1).replace(/""/g, '"');
  if (!/^[A-Za-z_][A-Za-z0-9_$]*$/.test(t.text)) throw syntax(`syntax error at or near "${t.text}"`, t, sql);
  return t.text.toLowerCase();
}

function parseCommand(s: Tok[], sql: string): AttachCommand {
  let i = 1;
  const word = (k: number): string => (s[k]?.text ?? '').toLowerCase();
  if (word(i) === 'database') i++;
  if (word(0) === 'detach') {
    let ifExists = false;
    if (word(i) === 'if' && word(i + 1) === 'exists') {
      ifExists = true;
      i += 2;
    }
    const alias = ident(s[i], sql);
    if (s.length > i + 1) throw syntax(`syntax error at or near "${s[i + 1]!.text}"`, s[i + 1], sql);
    return { kind: 'detach', alias, ifExists };
  }
  if (s[i] === undefined) throw syntax('syntax error at end of input', undefined, sql);
  const dsn = unquoteString(s[i]!, sql);
  i++;
  if (word(i) !== 'as') throw syntax(`ATTACH needs AS name`, s[i], sql);
  const alias = ident(s[i + 1], sql);
  i += 2;
  const options: AttachOptions = {};
  if (s[i]?.text === '(') {
    i++;
    while (i < s.length && s[i]!.text !== ')') {
      const key = word(i);
      const val = s[i + 1];
      if (key === 'type') {
        const v = (val?.text ?? '').toLowerCase().replace(/^'|'$/g, '');
        if (v !== 'postgres' && v !== 'postgresql') throw new QuireError('0A000', `ATTACH type "${v}" is not supported`, { hint: 'Only TYPE postgres is available.' });
      } else if (key === 'fetch_size') {
        const n = Number(val?.text);
        if (!Number.isInteger(n) || n <= 0) throw new QuireError('22023', 'FETCH_SIZE must be a positive integer');
        options.fetchSize = n;
      } else throw new QuireError('22023', `unrecognized ATTACH option "${key}"`, { position: (s[i]?.start ?? 0) + 1 });
      i += 2;
      if (s[i]?.text === ',') i++;
    }
    i++;
  }
  if (s.length > i) throw syntax(`syntax error at or near "${s[i]!.text}"`, s[i], sql);
  if (!/^postgres(ql)?:\/\//i.test(dsn)) {
    throw new QuireError('0A000', 'ATTACH supports PostgreSQL connection URIs (postgres://user:password@host:port/dbname)');
  }
  return { kind: 'attach', dsn, alias, options };
}

/** Catalog entry for an attached PostgreSQL database. */
export class AttachedPostgres implements AttachedDatabase {
  constructor(readonly conn: PostgresAttachment) {}
  get alias(): string {
    return this.conn.alias;
  }
  lookupSource(schema: string | undefined, name: string): TableSource | undefined {
    return this.conn.lookup(schema, name)?.source();
  }
}

export async function runAttachCommand(catalog: Catalog, c: AttachCommand): Promise<string> {
  if (c.kind === 'detach') {
    const a = catalog.attached.get(c.alias);
    if (a === undefined) {
      if (c.ifExists) return 'DETACH';
      throw new QuireError('42704', `database "${c.alias}" is not attached`);
    }
    catalog.attached.delete(c.alias);
    if (a instanceof AttachedPostgres) await a.conn.close();
    return 'DETACH';
  }
  if (catalog.attached.has(c.alias)) throw new QuireError('42710', `database "${c.alias}" is already attached`);
  const conn = new PostgresAttachment(c.alias, c.dsn, c.options);
  try {
    await conn.refresh();
  } catch (e) {
    await conn.close().catch(() => {});
    throw e;
  }
  catalog.attached.set(c.alias, new AttachedPostgres(conn));
  return 'ATTACH';
}

/**
 * Before binding: tables named through an attachment that the cached remote catalog does not know
 * (created on the server after ATTACH) trigger one catalog reload, so binding (synchronous) finds them.
 */
export async function refreshForStatement(catalog: Catalog, stmt: Node): Promise<void> {
  if (catalog.attached.size === 0) return;
  const stale = new Set<AttachedPostgres>();
  const walk = (x: unknown): void => {
    if (x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) {
      for (const y of x) walk(y);
      return;
    }
    const o = x as Record<string, unknown>;
    const rv = o.RangeVar as { catalogname?: string; schemaname?: string; relname?: string } | undefined;
    if (rv !== undefined && rv.schemaname !== undefined && rv.relname !== undefined) {
      const alias = rv.catalogname ?? rv.schemaname;
      const a = catalog.attached.get(alias);
      if (a instanceof AttachedPostgres && a.conn.lookup(rv.catalogname !== undefined ? rv.schemaname : undefined, rv.relname) === undefined) stale.add(a);
    }
    for (const v of Object.values(o)) walk(v);
  };
  walk(stmt);
  for (const a of stale) await a.conn.refresh();
}

/** Closes every attachment's connection pool (Database.close). */
export async function detachAll(catalog: Catalog): Promise<void> {
  for (const [k, a] of catalog.attached) {
    catalog.attached.delete(k);
    if (a instanceof AttachedPostgres) await a.conn.close().catch(() => {});
  }
}
