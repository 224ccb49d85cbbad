/** Named tables and views of one database. Names are case-folded as PostgreSQL folds unquoted identifiers by the parser. */
import type { Node } from '@pgsql/types';
import { QuireError } from '../common/errors.js';
import type { CompositeType, DataType, Field } from '../common/types.js';
import type { TableSource } from '../logical/plan.js';
import type { MemoryTable } from './memory-table.js';
import type { Sequence } from './sequence.js';

export interface ViewDef {
  readonly name: string;
  readonly query: Node;
  readonly columnNames: string[] | null;
  readonly sql: string;
}

/** An attached external database (ATTACH 'postgres://…' AS name): its tables are name.table / name.schema.table. */
export interface AttachedDatabase {
  readonly alias: string;
  /** A fresh scan source for the table, or undefined when the remote side has none of that name. */
  lookupSource(schema: string | undefined, name: string): TableSource | undefined;
}

/**
 * A parameter or result type of a user-defined routine: a concrete type, or one of PostgreSQL's
 * polymorphic pseudo-types (anycompatible is kept as anyelement: both take the arguments' common type).
 */
export type RoutineType = DataType | 'anyelement' | 'anyarray';

/** CREATE FUNCTION … LANGUAGE sql. Overloads of one name differ by their parameter types. */
export interface SqlFunctionDef {
  readonly name: string;
  readonly params: readonly { readonly name: string | null; readonly type: RoutineType; readonly defaultExpr: Node | null }[];
  /** Scalar result; for RETURNS TABLE / OUT parameters, `columns` lists the result row. */
  readonly returns: RoutineType | 'void';
  readonly columns: readonly Field[] | null;
  /** RETURNS SETOF … / RETURNS TABLE: rows, not one value. */
  readonly returnsSet: boolean;
  /** The statements of the body (the last one gives the result); RETURN expr is stored as SELECT expr. */
  readonly body: readonly Node[];
  readonly strict: boolean;
  /** The last parameter is VARIADIC: trailing arguments are collected into its array. */
  readonly variadic?: boolean;
  readonly volatility: 'immutable' | 'stable' | 'volatile';
  /** The body as written in AS '…' (pg_proc.prosrc); empty for RETURN / BEGIN ATOMIC bodies, as in PostgreSQL. */
  readonly source: string;
  /** The CREATE FUNCTION text. */
  readonly sql: string;
  /** LANGUAGE plpgsql bodies other than a lone RETURN expr (those become SQL bodies): run by an interpreter. */
  readonly plpgsql?: PlSource;
  /** LANGUAGE internal WINDOW: the built-in window function its symbol names (calls run it with OVER). */
  readonly internalWindow?: string;
}

/**
 * A PL/pgSQL body as parsed at CREATE FUNCTION: expressions are SQL text, bound at each call site
 * (src/sql/bind/plpgsql-call.ts) over the function's variables, referred to by name.
 */
export interface PlSource {
  /** DECLAREd variables, after the parameters; `param %TYPE` of a polymorphic parameter is its index (the call's type). */
  readonly declared: readonly { readonly name: string; readonly type: DataType | number; readonly init: string | null }[];
  readonly body: readonly PlSourceStatement[];
}

export type PlSourceStatement =
  /** `target[subscript] := value` when `subscript` is set (an array element; PostgreSQL's x[i] := …). */
  | { readonly kind: 'assign'; readonly target: string; readonly field: string | null; readonly subscript: string | null; readonly value: string }
  | { readonly kind: 'if'; readonly branches: readonly { readonly cond: string; readonly body: readonly PlSourceStatement[] }[]; readonly otherwise: readonly PlSourceStatement[] }
  | { readonly kind: 'return'; readonly value: string | null }
  | { readonly kind: 'raise'; readonly level: 'debug' | 'log' | 'info' | 'notice' | 'warning' | 'exception'; readonly format: string; readonly params: readonly string[]; readonly sqlstate: string }
  | { readonly kind: 'block'; readonly body: readonly PlSourceStatement[] };

/** CREATE AGGREGATE: a transition function folded over the rows, an optional final function. */
export interface AggregateDef {
  readonly name: string;
  /** Empty for an aggregate over `*`. */
  readonly args: readonly RoutineType[];
  /** The last argument is VARIADIC: trailing arguments are collected into its array. */
  readonly variadic?: boolean;
  readonly sfunc: string;
  /** Polymorphic (anyelement / anyarray) when the arguments are: resolved from them at each call. */
  readonly stype: RoutineType;
  /** The initial state as text (cast to stype when the aggregate starts), or null: starts as NULL. */
  readonly initcond: string | null;
  readonly finalfunc: string | null;
  /** Moving-aggregate support (window frames that shrink): forward and inverse transitions. */
  readonly msfunc: string | null;
  readonly minvfunc: string | null;
  readonly mstype: DataType | null;
  readonly minitcond: string | null;
  readonly mfinalfunc: string | null;
  /** The result type, known once CREATE AGGREGATE has bound the transition and final functions. */
  readonly returns?: DataType;
  readonly sql: string;
}

/**
 * A Map that counts the calls that change it (set, delete, clear): a database directory's commit
 * tells by one comparison that no table or view was added, replaced or dropped since the last one.
 */
export class CountedMap<K, V> extends Map<K, V> {
  changes = 0;

  override set(key: K, value: V): this {
    this.changes++;
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    this.changes++;
    return super.delete(key);
  }

  override clear(): void {
    this.changes++;
    super.clear();
  }
}

export class Catalog {
  readonly tables: Map<string, TableSource> = new CountedMap<string, TableSource>();
  readonly views: Map<string, ViewDef> = new CountedMap<string, ViewDef>();
  /** User-defined SQL functions by name; each entry's array is replaced, never mutated, so snapshots stay valid. */
  readonly functions: Map<string, readonly SqlFunctionDef[]> = new CountedMap<string, readonly SqlFunctionDef[]>();
  readonly aggregates: Map<string, readonly AggregateDef[]> = new CountedMap<string, readonly AggregateDef[]>();
  /** Named composite types (CREATE TYPE name AS (…)); an entry is replaced, never mutated. */
  readonly types: Map<string, CompositeType> = new CountedMap<string, CompositeType>();
  readonly attached: Map<string, AttachedDatabase> = new CountedMap<string, AttachedDatabase>();
  /**
   * CREATE SEQUENCE's sequences (TEMP ones under tempTableKey). Shared by transactions, never copied:
   * sequence values are not transactional. Serial and identity columns keep theirs with the column.
   */
  readonly sequences: Map<string, Sequence> = new CountedMap<string, Sequence>();

  /** `alias.table` (schemaname = alias) or `alias.schema.table` (catalogname = alias). */
  lookupAttached(catalogName: string | undefined, schemaName: string, name: string): TableSource | undefined {
    if (catalogName !== undefined) return this.attached.get(catalogName)?.lookupSource(schemaName, name);
    return this.attached.get(schemaName)?.lookupSource(undefined, name);
  }

  getTable(name: string): TableSource | undefined {
    return this.tables.get(name);
  }

  /**
   * The table `schema.name` names: `pg_temp` only a session's TEMP table, `public` only a permanent
   * one, no schema either (a session's TEMP table first). This catalog holds no TEMP tables; a
   * session's view of it (Database.catalog) overrides these two.
   */
  getTableIn(schema: string | undefined, name: string): TableSource | undefined {
    return schema === 'pg_temp' ? undefined : this.getTable(name);
  }

  getMemoryTableIn(schema: string | undefined, name: string, position?: number): MemoryTable {
    // Tables live in public only (a session's TEMP ones in pg_temp): other schemas hold none.
    if (schema !== undefined && schema !== 'public') throw new QuireError('42P01', `relation "${schema}.${name}" does not exist`, { position });
    return this.getMemoryTable(name, position);
  }

  getMemoryTable(name: string, position?: number): MemoryTable {
    const t = this.tables.get(name);
    if (t === undefined) throw new QuireError('42P01', `relation "${name}" does not exist`, { position });
    if (!('appendRows' in t)) throw new QuireError('42809', `"${name}" is not a writable table`, { position });
    return t as MemoryTable;
  }

  /** `key` differs from the table's name for a session's TEMP tables (see tempTableKey). */
  addTable(t: TableSource, ifNotExists = false, key = t.name): boolean {
    if (this.tables.has(key) || (key === t.name && this.views.has(key))) {
      if (ifNotExists) return false;
      throw new QuireError('42P07', `relation "${t.name}" already exists`);
    }
    this.tables.set(key, t);
    return true;
  }

  addView(v: ViewDef, replace: boolean): void {
    if (this.tables.has(v.name) || (this.views.has(v.name) && !replace)) {
      throw new QuireError('42P07', `relation "${v.name}" already exists`);
    }
    this.views.set(v.name, v);
  }
}

/**
 * TEMP tables live in the shared table map under a key no identifier can spell, owned by one session:
 * only that session resolves its plain name to them, and they never reach a database directory.
 */
export function tempTableKey(sessionId: number, name: string): string {
  return `pg_temp_${sessionId}.${name}`;
}

export function isTempTableKey(key: string): boolean {
  return key.startsWith('pg_temp_') && key.includes('.');
}
