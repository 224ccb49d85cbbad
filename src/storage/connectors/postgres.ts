/**
 * PostgreSQL connector: `ATTACH 'postgres://user:pw@host:port/db' AS pg` exposes the server's tables
 * as pg.table (schema public) and pg.schema.table.
 *
 * A remote table is a RemoteScan: a TableSource whose scan runs one SELECT on the server. The
 * optimizer rule push-into-remote-scan narrows it (columns, WHERE conjuncts, ORDER BY, LIMIT/OFFSET);
 * EXPLAIN shows the SQL it will send. Rows are read through a server-side cursor
 * (DECLARE … NO SCROLL CURSOR, FETCH n) inside a read-only transaction, so a large table streams in
 * batches of `fetch_size` rows and an early stop (LIMIT above the scan) closes the cursor.
 *
 * Values arrive in text format and are parsed with Quire's own parsers; the session is pinned to
 * TimeZone UTC, DateStyle ISO and IntervalStyle postgres so the text is unambiguous. Columns of
 * types Quire lacks (json, uuid, bytea, arrays, …) read as text and are never used in pushed filters.
 *
 * Errors from the server keep their SQLSTATE, message, detail and hint.
 */
import pg from 'pg';
import { QuireError } from '../../common/errors.js';
import { parseValue } from '../../common/parse-value.js';
import { encodeNumericTypmod } from '../../common/numeric.js';
import { T, type, type DataType, type Field, type Value } from '../../common/types.js';
import { ColumnBuilder, type Batch } from '../../execution/column.js';
import type { TableSource } from '../../logical/plan.js';
import { reportProgress } from '../progress.js';
import { quoteIdent } from './sql-translate.js';

export interface RemoteColumn {
  readonly name: string;
  readonly type: DataType;
  /** False for remote types read as text (json, uuid, …): comparing them as text would differ. */
  readonly pushable: boolean;
}

export interface RemoteQuery {
  /** Indexes into the table's columns, in output order. */
  readonly columns: readonly number[];
  /** SQL conjuncts (already parenthesised). */
  readonly where: readonly string[];
  readonly orderBy: readonly string[];
  readonly limit: number | null;
  readonly offset: number;
}

export interface AttachOptions {
  /** Rows per FETCH. */
  fetchSize?: number;
}

/** Raw text for every type: Quire parses values itself (exact numerics, microsecond timestamps). */
const RAW_TYPES = { getTypeParser: () => (v: string) => v } as unknown as pg.CustomTypesConfig;

export function pgError(e: unknown): QuireError {
  if (e instanceof QuireError) return e;
  const x = e as { code?: string; message?: string; detail?: string; hint?: string; severity?: string };
  if (typeof x.code === 'string' && /^[0-9A-Z]{5}$/.test(x.code)) {
    const o: { detail?: string; hint?: string } = {};
    if (x.detail) o.detail = x.detail;
    if (x.hint) o.hint = x.hint;
    return new QuireError(x.code, x.message ?? 'remote error', o);
  }
  // Socket-level failures (ECONNREFUSED, ENOTFOUND, …): PostgreSQL's connection-failure class.
  return new QuireError('08001', `could not connect to the remote server: ${x.message ?? String(e)}`);
}

function mapType(typname: string, typmod: number): { type: DataType; pushable: boolean } {
  switch (typname) {
    case 'bool':
      return { type: T.bool, pushable: true };
    case 'int2':
      return { type: T.int2, pushable: true };
    case 'int4':
      return { type: T.int4, pushable: true };
    case 'int8':
      return { type: T.int8, pushable: true };
    case 'float4':
      return { type: T.float4, pushable: true };
    case 'float8':
      return { type: T.float8, pushable: true };
    case 'numeric':
      return { type: typmod >= 4 ? type('numeric', typmod) : T.numeric, pushable: true };
    case 'text':
      return { type: T.text, pushable: true };
    case 'varchar':
      return { type: typmod >= 4 ? type('varchar', typmod) : T.varchar, pushable: true };
    case 'bpchar':
      return { type: typmod >= 4 ? type('bpchar', typmod) : T.bpchar, pushable: true };
    case 'date':
      return { type: T.date, pushable: true };
    case 'timestamp':
      return { type: T.timestamp, pushable: true };
    case 'timestamptz':
      return { type: T.timestamptz, pushable: true };
    case 'interval':
      return { type: T.interval, pushable: true };
    default:
      return { type: T.text, pushable: false };
  }
}
void encodeNumericTypmod;

export class RemoteTableDef {
  constructor(
    readonly attachment: PostgresAttachment,
    readonly schemaName: string,
    readonly tableName: string,
    readonly columns: readonly RemoteColumn[],
    readonly estimatedRows: number | undefined,
  ) {}

  source(): RemoteScan {
    return new RemoteScan(this, { columns: this.columns.map((_, i) => i), where: [], orderBy: [], limit: null, offset: 0 });
  }
}

/** One remote SELECT; immutable, the optimizer derives narrower ones with `with`. */
export class RemoteScan implements TableSource {
  readonly name: string;
  readonly schema: Field[];
  constructor(
    readonly table: RemoteTableDef,
    readonly query: RemoteQuery,
  ) {
    this.name = `${table.attachment.alias}.${table.tableName}`;
    this.schema = query.columns.map((i) => ({ name: table.columns[i]!.name, type: table.columns[i]!.type, table: table.tableName }));
  }

  rowCount(): number | undefined {
    if (this.query.limit !== null) return this.query.limit;
    return this.table.estimatedRows;
  }

  with(q: Partial<RemoteQuery>): RemoteScan {
    return new RemoteScan(this.table, { ...this.query, ...q });
  }

  /** SQL for output column i of this scan. */
  columnSql(i: number): string | null {
    const c = this.table.columns[this.query.columns[i]!];
    return c === undefined || !c.pushable ? null : quoteIdent(c.name);
  }

  sql(): string {
    const q = this.query;
    const cols = q.columns.length === 0 ? 'NULL' : q.columns.map((i) => quoteIdent(this.table.columns[i]!.name)).join(', ');
    let s = `SELECT ${cols} FROM ${quoteIdent(this.table.schemaName)}.${quoteIdent(this.table.tableName)}`;
    if (q.where.length > 0) s += ` WHERE ${q.where.join(' AND ')}`;
    if (q.orderBy.length > 0) s += ` ORDER BY ${q.orderBy.join(', ')}`;
    if (q.limit !== null) s += ` LIMIT ${q.limit}`;
    if (q.offset > 0) s += ` OFFSET ${q.offset}`;
    return s;
  }

  describe(): string {
    return `remote SQL: ${this.sql()}`;
  }

  async *scan(): AsyncGenerator<Batch> {
    const att = this.table.attachment;
    const sql = this.sql();
    const fields = this.schema;
    const fetchSize = att.fetchSize;
    const client = await att.connect();
    const progress = reportProgress(this.name, this.rowCount() ?? 0, 'rows');
    let inTxn = false;
    let failed = false;
    try {
      await client.query('BEGIN READ ONLY');
      inTxn = true;
      await client.query(`DECLARE quire_scan NO SCROLL CURSOR FOR ${sql}`);
      for (;;) {
        const r = await client.query({ text: `FETCH ${fetchSize} FROM quire_scan`, rowMode: 'array', types: RAW_TYPES });
        const rows = r.rows as (string | null)[][];
        if (rows.length > 0) yield toBatch(rows, fields);
        progress.advance(rows.length);
        if (rows.length < fetchSize) break;
      }
    } catch (e) {
      failed = true;
      throw pgError(e);
    } finally {
      progress.done();
      if (inTxn) {
        // COMMIT also closes the cursor; after an error the transaction is aborted and must roll back.
        try {
          await client.query(failed ? 'ROLLBACK' : 'COMMIT');
        } catch {
          failed = true;
        }
      }
      client.release(failed);
    }
  }
}

function toBatch(rows: readonly (string | null)[][], fields: readonly Field[]): Batch {
  const n = rows.length;
  const columns = fields.map((f, c) => {
    const b = new ColumnBuilder(f.type, n);
    const t = f.type;
    switch (t.name) {
      case 'bool':
        for (let i = 0; i < n; i++) {
          const s = rows[i]![c]!;
          b.push(s === null ? null : s === 't');
        }
        break;
      case 'int2':
      case 'int4':
      case 'float4':
      case 'float8':
        for (let i = 0; i < n; i++) {
          const s = rows[i]![c]!;
          b.push(s === null ? null : t.name === 'float4' ? Math.fround(Number(s)) : Number(s));
        }
        break;
      case 'int8':
        for (let i = 0; i < n; i++) {
          const s = rows[i]![c]!;
          if (s === null) b.push(null);
          else {
            const v = Number(s);
            b.push(Number.isSafeInteger(v) ? v : BigInt(s));
          }
        }
        break;
      case 'text':
      case 'varchar':
      case 'bpchar':
        for (let i = 0; i < n; i++) b.push(rows[i]![c]!);
        break;
      default:
        for (let i = 0; i < n; i++) {
          const s = rows[i]![c]!;
          b.push(s === null ? null : parseValue(s, t, { timezone: 'UTC' }));
        }
    }
    return b.finish();
  });
  return { columns, length: n };
}

/** The set of remote tables of one attached database. */
export class PostgresAttachment {
  private pool: pg.Pool;
  private tables = new Map<string, RemoteTableDef>();
  readonly fetchSize: number;

  constructor(
    readonly alias: string,
    readonly dsn: string,
    opts: AttachOptions = {},
  ) {
    this.fetchSize = opts.fetchSize ?? 8192;
    this.pool = new pg.Pool({
      connectionString: dsn,
      max: 4,
      // Unambiguous text output for Quire's parsers; statement_timeout stays the server's.
      options: '-c TimeZone=UTC -c DateStyle=ISO -c IntervalStyle=postgres -c extra_float_digits=3 -c standard_conforming_strings=on',
    });
    // An idle client's connection dropping must not crash the process.
    this.pool.on('error', () => {});
  }

  async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (e) {
      throw pgError(e);
    }
  }

  /** Loads (or reloads) the remote catalog: every table, view and foreign table outside the system schemas. */
  async refresh(): Promise<void> {
    const client = await this.connect();
    try {
      const r = await client.query<{ nspname: string; relname: string; attname: string; typname: string; atttypmod: number; reltuples: number }>(
        `SELECT n.nspname, c.relname, a.attname, t.typname, a.atttypmod, c.reltuples::float8 AS reltuples
           FROM pg_catalog.pg_attribute a
           JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
           JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
           JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
          WHERE c.relkind IN ('r', 'v', 'm', 'f', 'p') AND a.attnum > 0 AND NOT a.attisdropped
            AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'
          ORDER BY n.nspname, c.relname, a.attnum`,
      );
      const grouped = new Map<string, { schema: string; table: string; cols: RemoteColumn[]; rows: number }>();
      for (const row of r.rows) {
        const key = `${row.nspname}.${row.relname}`;
        let g = grouped.get(key);
        if (g === undefined) {
          g = { schema: row.nspname, table: row.relname, cols: [], rows: Number(row.reltuples) };
          grouped.set(key, g);
        }
        const m = mapType(row.typname, Number(row.atttypmod));
        g.cols.push({ name: row.attname, type: m.type, pushable: m.pushable });
      }
      this.tables = new Map([...grouped].map(([k, g]) => [k, new RemoteTableDef(this, g.schema, g.table, g.cols, g.rows >= 0 ? g.rows : undefined)]));
    } catch (e) {
      throw pgError(e);
    } finally {
      client.release();
    }
  }

  /** `pg.t` looks in schema public first, then any schema with a table of that name. */
  lookup(schema: string | undefined, name: string): RemoteTableDef | undefined {
    if (schema !== undefined) return this.tables.get(`${schema}.${name}`);
    const pub = this.tables.get(`public.${name}`);
    if (pub !== undefined) return pub;
    const matches = [...this.tables.values()].filter((t) => t.tableName === name);
    return matches.length === 1 ? matches[0] : undefined;
  }

  tableNames(): string[] {
    return [...this.tables.keys()];
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
