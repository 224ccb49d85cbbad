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
import type pg from 'pg';
import { lazyModule } from '../../common/lazy-module.js';
import { QuireError } from '../../common/errors.js';
import { parseValue } from '../../common/parse-value.js';
import { encodeNumericTypmod } from '../../common/numeric.js';
import { T, arrayTypeOf, type, type DataType, type Field, type Value } from '../../common/types.js';
import { ColumnBuilder, type Batch } from '../../common/column.js';
import type { Expr, SortKey } from '../../logical/expr.js';
import type { ScanPushdown, TableSource } from '../../logical/plan.js';
import { reportProgress } from '../progress.js';
import { exprToSql, quoteIdent, sortKeyToSql } from './sql-translate.js';

const pgModule = lazyModule<typeof pg>('pg');

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
  /**
   * > 1: the scan reads the table as this many ctid page ranges, each its own SELECT (with the WHERE,
   * ORDER BY and LIMIT above applied per range) on its own connection, all in one exported snapshot.
   */
  readonly partitions: number;
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
    case 'name':
      return { type: T.name, pushable: false };
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
    default: {
      // Arrays of the types above (PostgreSQL's _int4, …) read as arrays; filters on them stay local.
      const elem = typname.startsWith('_') ? mapType(typname.slice(1), typmod) : null;
      if (elem !== null && elem.pushable) return { type: arrayTypeOf(elem.type)!, pushable: false };
      return { type: T.text, pushable: false };
    }
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
    /** Heap pages of a plain table or materialized view (pg_class.relpages); 0 for views and the like. */
    readonly pages = 0,
  ) {}

  source(): RemoteScan {
    return new RemoteScan(this, { columns: this.columns.map((_, i) => i), where: [], orderBy: [], limit: null, offset: 0, partitions: 1 });
  }
}

/** One remote SELECT; immutable, the optimizer derives narrower ones with `with`. */
export class RemoteScan implements TableSource, ScanPushdown {
  readonly name: string;
  readonly schema: Field[];
  /** Every step is translated to the SELECT's clauses (sql-translate.ts); what does not translate stays local. */
  readonly pushdown: ScanPushdown = this;
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

  project(columns: readonly number[]): RemoteScan {
    return this.with({ columns: columns.map((i) => this.query.columns[i]!) });
  }

  filter(conjuncts: readonly Expr[]): { source: RemoteScan; rest: Expr[] } | null {
    // A WHERE added after an ORDER BY/LIMIT would filter the cut rows instead of cutting filtered ones.
    if (this.query.limit !== null || this.query.orderBy.length > 0) return null;
    const pushed: string[] = [];
    const rest: Expr[] = [];
    for (const c of conjuncts) {
      const s = exprToSql(c, (i) => this.columnSql(i));
      if (s === null) rest.push(c);
      else pushed.push(s);
    }
    if (pushed.length === 0) return null;
    return { source: this.with({ where: [...this.query.where, ...pushed] }), rest };
  }

  topN(keys: readonly SortKey[], count: number | null, offset: number, split: number): { source: RemoteScan; final: boolean } | null {
    if (this.query.limit !== null || this.query.orderBy.length > 0) return null;
    const orderBy: string[] = [];
    for (const k of keys) {
      const s = sortKeyToSql(k, (i) => this.columnSql(i));
      if (s === null) return null;
      orderBy.push(s);
    }
    // Local/Global split: each ctid range runs its own ORDER BY … LIMIT offset+count on the server (the
    // local Top-N), concurrently; the Top-N above merges them.
    if (split > 1 && this.table.pages >= split && count !== null) {
      return { source: this.with({ orderBy, limit: count + offset, offset: 0, partitions: split }), final: false };
    }
    return { source: this.with({ orderBy, limit: count, offset }), final: true };
  }

  limit(count: number | null, offset: number): RemoteScan | null {
    if (this.query.limit !== null) return null;
    return this.with({ limit: count, offset: this.query.offset + offset });
  }

  /** SQL for output column i of this scan. */
  columnSql(i: number): string | null {
    const c = this.table.columns[this.query.columns[i]!];
    return c === undefined || !c.pushable ? null : quoteIdent(c.name);
  }

  /** The SELECT sent to the server; with `partition`, the one for that ctid page range. */
  sql(partition?: number): string {
    const q = this.query;
    const cols = q.columns.length === 0 ? 'NULL' : q.columns.map((i) => quoteIdent(this.table.columns[i]!.name)).join(', ');
    let s = `SELECT ${cols} FROM ${quoteIdent(this.table.schemaName)}.${quoteIdent(this.table.tableName)}`;
    const where = partition === undefined ? q.where : [...this.ctidRange(partition), ...q.where];
    if (where.length > 0) s += ` WHERE ${where.join(' AND ')}`;
    if (q.orderBy.length > 0) s += ` ORDER BY ${q.orderBy.join(', ')}`;
    if (q.limit !== null) s += ` LIMIT ${q.limit}`;
    if (q.offset > 0) s += ` OFFSET ${q.offset}`;
    return s;
  }

  describe(): string {
    if (this.partitionCount() > 1) return `remote SQL per partition (${this.query.partitions} ctid ranges, one snapshot): ${this.sql(0)}`;
    return `remote SQL: ${this.sql()}`;
  }

  describePartition(i: number): string {
    return `remote SQL: ${this.sql(i)}`;
  }

  private partitionCount(): number {
    return this.query.partitions > 1 && this.table.pages >= this.query.partitions ? this.query.partitions : 1;
  }

  /**
   * Partition i's pages as TID range conditions (a TID Range Scan on PostgreSQL 14+). The first range
   * is open below and the last open above, so pages added since relpages was measured are still read.
   */
  private ctidRange(i: number): string[] {
    const n = this.partitionCount();
    const pages = this.table.pages;
    const lo = Math.floor((i * pages) / n);
    const hi = Math.floor(((i + 1) * pages) / n);
    const out: string[] = [];
    if (i > 0) out.push(`ctid >= '(${lo},0)'::tid`);
    if (i < n - 1) out.push(`ctid < '(${hi},0)'::tid`);
    return out;
  }

  /**
   * The partitions of one execution (see topn-partial.ts). They share one snapshot: a coordinator
   * connection exports it (REPEATABLE READ) and keeps its transaction open until every partition has
   * imported it, so a row moved by a concurrent UPDATE is seen exactly once. Partitions may be read
   * one after another or all at once.
   */
  scanPartitions(): AsyncIterable<Batch>[] {
    const n = this.partitionCount();
    if (n <= 1) return [this.scan()];
    const snap = new SharedSnapshot(this.table.attachment, n);
    return Array.from({ length: n }, (_, i) => this.scanRange(i, snap));
  }

  async *scan(): AsyncGenerator<Batch> {
    const n = this.partitionCount();
    if (n <= 1) {
      yield* this.scanRange(undefined, null);
      return;
    }
    for (const part of this.scanPartitions()) yield* part;
  }

  private async *scanRange(partition: number | undefined, snap: SharedSnapshot | null): AsyncGenerator<Batch> {
    const att = this.table.attachment;
    const sql = this.sql(partition);
    const fields = this.schema;
    const fetchSize = att.fetchSize;
    let client: pg.PoolClient | null = null;
    const progress = reportProgress(partition === undefined ? this.name : `${this.name}#${partition}`, partition === undefined ? this.rowCount() ?? 0 : 0, 'rows');
    let inTxn = false;
    let failed = false;
    let finished = false;
    try {
      // The snapshot first: its coordinator connection must never wait behind the partitions' own.
      const id = snap === null ? null : await snap.id();
      client = await att.connect();
      if (snap === null || id === null) {
        await client.query('BEGIN READ ONLY');
        inTxn = true;
      } else {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        inTxn = true;
        await client.query(`SET TRANSACTION SNAPSHOT '${id.replace(/'/g, "''")}'`);
        snap.imported();
      }
      await client.query(`DECLARE quire_scan NO SCROLL CURSOR FOR ${sql}`);
      for (;;) {
        const r = await client.query({ text: `FETCH ${fetchSize} FROM quire_scan`, rowMode: 'array', types: RAW_TYPES });
        const rows = r.rows as (string | null)[][];
        if (rows.length > 0) yield toBatch(rows, fields);
        progress.advance(rows.length);
        if (rows.length < fetchSize) break;
      }
      finished = true;
    } catch (e) {
      failed = true;
      throw pgError(e);
    } finally {
      progress.done();
      // A partition that failed or was abandoned: the others will not all import, so let go of the snapshot.
      if (snap !== null && !finished) await snap.abandon();
      if (client !== null && inTxn) {
        // COMMIT also closes the cursor; after an error the transaction is aborted and must roll back.
        try {
          await client.query(failed ? 'ROLLBACK' : 'COMMIT');
        } catch {
          failed = true;
        }
      }
      client?.release(failed);
    }
  }
}

/** The exported snapshot the partitions of one split scan share (see RemoteScan.scanPartitions). */
class SharedSnapshot {
  private client: pg.PoolClient | null = null;
  private pending: Promise<string> | null = null;
  private remaining: number;

  constructor(
    private readonly attachment: PostgresAttachment,
    partitions: number,
  ) {
    this.remaining = partitions;
  }

  id(): Promise<string> {
    this.pending ??= (async () => {
      const c = await this.attachment.connect();
      this.client = c;
      try {
        await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const r = await c.query<{ id: string }>('SELECT pg_catalog.pg_export_snapshot() AS id');
        return r.rows[0]!.id;
      } catch (e) {
        await this.release(true);
        throw pgError(e);
      }
    })();
    return this.pending;
  }

  imported(): void {
    if (--this.remaining === 0) void this.release(false);
  }

  async abandon(): Promise<void> {
    this.remaining = 0;
    await this.release(false);
  }

  private async release(failed: boolean): Promise<void> {
    const c = this.client;
    if (c === null) return;
    this.client = null;
    try {
      await c.query(failed ? 'ROLLBACK' : 'COMMIT');
    } catch {
      failed = true;
    }
    c.release(failed);
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
      case 'name':
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
    this.pool = new (pgModule().Pool)({
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
      const r = await client.query<{ nspname: string; relname: string; attname: string; typname: string; atttypmod: number; reltuples: number; relpages: number; relkind: string }>(
        `SELECT n.nspname, c.relname, a.attname, t.typname, a.atttypmod, c.reltuples::float8 AS reltuples, c.relpages, c.relkind
           FROM pg_catalog.pg_attribute a
           JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
           JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
           JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
          WHERE c.relkind IN ('r', 'v', 'm', 'f', 'p') AND a.attnum > 0 AND NOT a.attisdropped
            AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'
          ORDER BY n.nspname, c.relname, a.attnum`,
      );
      const grouped = new Map<string, { schema: string; table: string; cols: RemoteColumn[]; rows: number; pages: number }>();
      for (const row of r.rows) {
        const key = `${row.nspname}.${row.relname}`;
        let g = grouped.get(key);
        if (g === undefined) {
          // Only plain tables and materialized views have a heap whose ctid ranges can split a scan.
          g = { schema: row.nspname, table: row.relname, cols: [], rows: Number(row.reltuples), pages: row.relkind === 'r' || row.relkind === 'm' ? Number(row.relpages) : 0 };
          grouped.set(key, g);
        }
        const m = mapType(row.typname, Number(row.atttypmod));
        g.cols.push({ name: row.attname, type: m.type, pushable: m.pushable });
      }
      this.tables = new Map([...grouped].map(([k, g]) => [k, new RemoteTableDef(this, g.schema, g.table, g.cols, g.rows >= 0 ? g.rows : undefined, g.pages)]));
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
