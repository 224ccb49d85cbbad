/**
 * The one interface every harness (sqllogictest, differential, conformance) talks to, plus adapters for
 * Quire and for PGlite (real PostgreSQL). Values travel as PostgreSQL's text output so that both engines
 * are compared exactly the way psql would print them, independent of each engine's JS value representation.
 */
import type { PGlite } from '@electric-sql/pglite';

export interface SqlResult {
  columns: string[];
  /** Lower-case PostgreSQL type names (int4, text, ...) when the engine reports them. */
  types?: string[];
  /** PostgreSQL text form of every value; null is SQL NULL. */
  rows: (string | null)[][];
  /** Rows affected (INSERT/UPDATE/DELETE) or returned, when the engine reports it. */
  rowCount?: number;
  command?: string;
}

export interface SqlConnection {
  /** Runs every statement in `sql` and returns the result of the last one. Throws SqlError-like errors. */
  query(sql: string): Promise<SqlResult>;
  close?(): Promise<void>;
}

/** What a failed statement looks like to the harnesses, whichever engine raised it. */
export interface SqlErrorLike {
  code?: string;
  message: string;
  position?: number;
}

export function asSqlError(e: unknown): SqlErrorLike {
  if (e !== null && typeof e === 'object' && 'message' in e) {
    const o = e as { code?: unknown; message: unknown; position?: unknown };
    const out: SqlErrorLike = { message: String(o.message) };
    if (typeof o.code === 'string') out.code = o.code;
    // PGlite reports the position as a string, Quire as a number.
    if (o.position !== undefined && o.position !== null && o.position !== '') out.position = Number(o.position);
    return out;
  }
  return { message: String(e) };
}

// ---------------------------------------------------------------------------------------------------------
// PGlite

const OID_NAMES: Record<number, string> = {
  16: 'bool',
  19: 'name',
  20: 'int8',
  21: 'int2',
  23: 'int4',
  25: 'text',
  26: 'oid',
  700: 'float4',
  701: 'float8',
  705: 'unknown',
  1042: 'bpchar',
  1043: 'varchar',
  1082: 'date',
  1083: 'time',
  1266: 'timetz',
  1114: 'timestamp',
  1184: 'timestamptz',
  1186: 'interval',
  1700: 'numeric',
};

/**
 * PGlite parses values into JS objects by default; we want the server's text output untouched. Its
 * `parsers` option is merged over the defaults by own keys, so we need one identity parser per type OID.
 */
async function rawParsers(pg: PGlite): Promise<Record<number, (v: string) => string>> {
  const r = await pg.query<[number]>('SELECT oid::int4 FROM pg_type', [], { rowMode: 'array' });
  const parsers: Record<number, (v: string) => string> = {};
  for (const [oid] of r.rows) parsers[oid] = (v: string) => v;
  return parsers;
}

/** The rows of `sql` as text, one line per row, cells joined by '|', NULL as NULL; errors propagate. */
export async function rowsText(c: SqlConnection, sql: string): Promise<string> {
  const r = await c.query(sql);
  return r.rows.map((row) => row.map((v) => (v === null ? 'NULL' : v)).join('|')).join('\n');
}

/** A statement's rows as `a|b` lines (NULL spelled out), or `ERROR code message`: one string to compare. */
export async function outcomeText(c: SqlConnection, sql: string): Promise<string> {
  try {
    return await rowsText(c, sql);
  } catch (e) {
    const err = asSqlError(e);
    return `ERROR ${err.code ?? '?'} ${err.message}`;
  }
}

export async function pgliteConnection(pg: PGlite): Promise<SqlConnection> {
  await pg.exec("SET timezone = 'UTC'; SET datestyle = 'ISO, MDY'; SET intervalstyle = 'postgres'");
  // Types created later (row types of new tables, enums) have no default parser, so PGlite already returns
  // their text unchanged; only the built-in OIDs need overriding.
  const parsers = await rawParsers(pg);
  return {
    async query(sql: string): Promise<SqlResult> {
      // exec() uses the simple query protocol: multi-statement strings run like psql runs them.
      const results = await pg.exec(sql, { rowMode: 'array', parsers });
      const last = results[results.length - 1];
      if (last === undefined) return { columns: [], rows: [], rowCount: 0, command: '' };
      const rows = (last.rows as unknown[][]).map((r) => r.map((v) => (v === null || v === undefined ? null : String(v))));
      const out: SqlResult = {
        columns: last.fields.map((f) => f.name),
        types: last.fields.map((f) => OID_NAMES[f.dataTypeID] ?? `oid${f.dataTypeID}`),
        rows,
        rowCount: last.affectedRows ?? rows.length,
      };
      return out;
    },
    async close() {
      await pg.close();
    },
  };
}

/**
 * Returns a PGlite session to a clean state without paying for a new instance (~1.5 s each): drops
 * everything in the public schema and discards session state (settings, temp tables, cursors, prepared
 * statements). Used between .slt files.
 */
export async function resetPglite(conn: SqlConnection): Promise<void> {
  await conn.query('ROLLBACK');
  await conn.query('DISCARD ALL');
  await conn.query('DROP SCHEMA public CASCADE');
  await conn.query('CREATE SCHEMA public');
  await conn.query("SET timezone = 'UTC'; SET datestyle = 'ISO, MDY'; SET intervalstyle = 'postgres'");
}

/** A fresh in-memory PostgreSQL. */
export async function newPglite(): Promise<SqlConnection> {
  // Loaded here, not at the top: a conformance child running Quire alone never loads PGlite.
  const { readyPGlite } = await import('../common/pglite.js');
  return pgliteConnection(await readyPGlite());
}

// ---------------------------------------------------------------------------------------------------------
// Quire

/** Structural view of Quire's public API, so the harness compiles even while src/index.ts is in flux. */
export interface QuireDataType {
  name: string;
  typmod: number;
}
export interface QuireResultLike {
  command: string;
  columns: { name: string; type: QuireDataType }[];
  rows: unknown[][];
  rowCount: number;
}
export interface QuireDatabaseLike {
  query(sql: string, params?: unknown[]): Promise<QuireResultLike>;
  /** The session TimeZone, when the engine exposes it (SET TimeZone changes how timestamptz prints). */
  readonly timezone?: string;
  /** Session-aware text output (TimeZone, extra_float_digits), when the engine exposes it. */
  formatValue?(v: unknown, t: QuireDataType): string | null;
  close?(): Promise<void> | void;
}
export type QuireFormatValue = (v: unknown, t: QuireDataType, opts: { timezone: string }) => string | null;

interface QuireModule {
  Database: { create(): Promise<QuireDatabaseLike> };
  formatValue: QuireFormatValue;
}

let quireModule: Promise<QuireModule> | undefined;
/** Imported lazily: the engine may not exist yet when the harness is loaded (and PGlite-only runs need none of it). */
export function loadQuire(): Promise<QuireModule> {
  // A variable specifier keeps TypeScript from resolving the module while it is still being written.
  const spec = '../../src/index.js';
  quireModule ??= import(spec) as Promise<QuireModule>;
  return quireModule;
}

export function quireConnection(db: QuireDatabaseLike, formatValue?: QuireFormatValue): SqlConnection {
  return {
    async query(sql: string): Promise<SqlResult> {
      const r = await db.query(sql);
      const fmt = formatValue ?? (await loadQuire()).formatValue;
      const timezone = db.timezone ?? 'UTC';
      return {
        columns: r.columns.map((c) => c.name),
        types: r.columns.map((c) => c.type.name),
        rows: r.rows.map((row) =>
          row.map((v, i) => (db.formatValue ? db.formatValue(v, r.columns[i]!.type) : fmt(v, r.columns[i]!.type, { timezone }))),
        ),
        rowCount: r.rowCount,
        command: r.command,
      };
    },
    async close() {
      await db.close?.();
    },
  };
}

export async function newQuire(): Promise<SqlConnection> {
  const m = await loadQuire();
  const db = await m.Database.create();
  return quireConnection(db, m.formatValue);
}

/**
 * A fresh PostgreSQL (PGlite) and a Quire (fresh, or the connection given), each fed the same setup
 * statements in order.
 */
export async function pgliteAndQuire(setup: Iterable<string>, quire?: SqlConnection): Promise<{ pg: SqlConnection; q: SqlConnection }> {
  const pg = await newPglite();
  const q = quire ?? (await newQuire());
  for (const s of setup) {
    await pg.query(s);
    await q.query(s);
  }
  return { pg, q };
}

/** True once src/index.ts exports a Database that can answer a trivial query. */
export async function quireAvailable(): Promise<boolean> {
  try {
    const c = await newQuire();
    const r = await c.query('SELECT 1');
    await c.close?.();
    return r.rows.length === 1 && r.rows[0][0] === '1';
  } catch {
    return false;
  }
}

export type EngineName = 'quire' | 'postgres';
export function newConnection(engine: EngineName): Promise<SqlConnection> {
  return engine === 'quire' ? newQuire() : newPglite();
}
