/**
 * `INSERT INTO t [(cols)] VALUES (literal, …)` through a plan cached per statement prefix: the target
 * table, which column each literal goes to, and how each kind of literal becomes a column's value are
 * resolved once, on the first statement of a prefix, instead of binding the statement every time.
 *
 * The plan is checked against the table before each use (the same table object, the same column
 * metadata and unique keys), so DROP + CREATE of the same name, a new unique key or a changed
 * default or NOT NULL builds a new plan. The plan only handles what it can do exactly as the general
 * path does: whenever a statement needs more (a default or sequence to fill a column, a literal the
 * column does not take, a NULL into a NOT NULL column, a value that fails its conversion) it hands
 * the statement to the general INSERT, which raises the error with its SQLSTATE and position, so
 * errors never come from here except the unique check, which is the general path's own.
 *
 * Outside a transaction block the rows go straight into the shared table's open batch (what the
 * implicit transaction's COMMIT would do: the statement runs synchronously from the checks to the
 * append, so nothing can interleave); inside one they go into the transaction's copy of the table.
 */
import type { Node } from '@pgsql/types';
import { castValue } from '../common/cast.js';
import { jsToValue } from './params.js';
import { parseValue } from '../common/parse-value.js';
import { T, type DataType, type Value } from '../common/types.js';
import { ColumnBuilder, oneValueColumn, type Batch, type Column } from '../common/column.js';
import type { Expr } from '../logical/expr.js';
import { coerce, type CoerceEnv } from '../sql/coerce.js';
import { LIT_BOOL, LIT_INT, LIT_NULL, LIT_NUMBER, LIT_STRING, type LiteralInsert, type LiteralRow, type Prefix } from '../sql/parse-insert-values.js';
import type { ParamInsert } from '../sql/param-insert.js';
import type { ColumnMeta, MemoryTable } from '../storage/memory-table.js';
import { checkNewBatch } from '../storage/unique-index.js';
import { holdPendingKeys, pendingKeyHolder } from './pending-keys.js';
import { checkKeysCommittedSince, staleRows } from './snapshot-keys.js';
import type { QueryResult } from './database.js';
import { checkInsertedRows } from './foreign-key-checks.js';
import type { UtilityHost } from './utility.js';

interface InsertPlan {
  readonly table: MemoryTable;
  readonly meta: ColumnMeta[];
  readonly uniqueKeys: number[][];
  /** Per column, the metadata facts the plan was built on. */
  readonly facts: readonly ColumnFacts[];
  /** Null when statements of this prefix always take the general path (a column needs its default). */
  readonly targets: readonly number[] | null;
  readonly types: readonly DataType[];
}

interface ColumnFacts {
  notNull: boolean;
  defaultExpr: Node | null;
  sequence: boolean;
}

const plans = new WeakMap<Prefix, InsertPlan>();
/** A value the plan cannot produce as the general path would: that path runs the statement instead. */
const GENERAL = Symbol('general path');

function factsOf(meta: readonly ColumnMeta[]): ColumnFacts[] {
  return meta.map((m) => ({ notNull: m.notNull, defaultExpr: m.defaultExpr, sequence: m.sequence !== null }));
}

function stillHolds(p: InsertPlan, t: MemoryTable): boolean {
  if (p.table !== t || p.meta !== t.meta || p.uniqueKeys !== t.uniqueKeys) return false;
  const meta = t.meta;
  for (let c = 0; c < meta.length; c++) {
    const m = meta[c]!;
    const f = p.facts[c]!;
    if (m.notNull !== f.notNull || m.defaultExpr !== f.defaultExpr || (m.sequence !== null) !== f.sequence) return false;
  }
  return true;
}

function buildPlan(prefix: Prefix, t: MemoryTable): InsertPlan {
  const base = { table: t, meta: t.meta, uniqueKeys: t.uniqueKeys, facts: factsOf(t.meta), types: t.schema.map((f) => f.type) };
  const cols = prefix.insert.cols as { ResTarget: { name: string } }[] | undefined;
  let targets: number[] | null;
  if (cols === undefined) targets = t.schema.map((_, i) => i);
  else {
    targets = cols.map((c) => t.schema.findIndex((f) => f.name === c.ResTarget.name));
    // Unknown or repeated columns: the general path reports them.
    if (targets.some((i, k) => i < 0 || targets!.indexOf(i) !== k)) targets = null;
  }
  if (targets !== null) {
    // Columns the statement leaves out get their default, which the general path evaluates.
    for (let c = 0; c < t.schema.length; c++) {
      const m = t.meta[c]!;
      if (!targets.includes(c) && (m.defaultExpr !== null || m.sequence !== null)) targets = null;
      if (targets === null) break;
    }
  }
  return { ...base, targets };
}

/** The expression the binder makes of a literal (src/sql/bind/expr.ts's bindConst). */
function literalExpr(kind: number, value: number | string | boolean | null): Expr {
  switch (kind) {
    case LIT_NULL:
      return { kind: 'const', value: null, type: T.unknown };
    case LIT_INT:
      return { kind: 'const', value: value as number, type: T.int4 };
    case LIT_BOOL:
      return { kind: 'const', value: value as boolean, type: T.bool };
    case LIT_STRING:
      return { kind: 'const', value: value as string, type: T.unknown };
    default: {
      const s = value as string;
      if (/^-?\d+$/.test(s)) {
        const big = BigInt(s);
        if (big >= -(2n ** 63n) && big < 2n ** 63n) return { kind: 'const', value: big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big, type: T.int8 };
      }
      return { kind: 'cast', arg: { kind: 'const', value: s, type: T.unknown }, type: T.numeric, explicit: true };
    }
  }
}

/** A literal or casts of one, evaluated as the general path's evalRowExprs does. */
function evalLiteral(e: Expr, timezone: string): Value | typeof GENERAL {
  if (e.kind === 'const') return e.value;
  if (e.kind !== 'cast') return GENERAL;
  const v = evalLiteral(e.arg, timezone);
  if (v === GENERAL || v === null) return v;
  return castValue(v, e.arg.type, e.type, { timezone }, e.explicit);
}

/**
 * The session and clock a conversion that needs the general coercion evaluates under; its coercion
 * environment is made on first need and then shared by the statement's rows (one statement time).
 */
interface ConvertEnv {
  readonly host: UtilityHost;
  readonly now: () => number;
  coerce: CoerceEnv | null;
}

/** Column types whose input function reads no session setting. */
const ZONELESS_INPUT = new Set(['bool', 'int2', 'int4', 'int8', 'float4', 'float8', 'numeric']);

/**
 * Not a literal the lexer reads: a value already of its column's type (a library parameter converted
 * by runJsParamInsert as the general path converts it).
 */
const COLUMN_VALUE = -1;

/** The column value of one literal, or GENERAL. */
function convert(kind: number, value: number | string | boolean | null, type: DataType, env: ConvertEnv): Value | typeof GENERAL {
  if (kind === COLUMN_VALUE) return value;
  // The shapes almost every INSERT sends, which need no conversion at all.
  if (kind === LIT_NULL) return null;
  if (kind === LIT_INT && (type.name === 'int4' || type.name === 'int8' || type.name === 'float8')) return value as number;
  if (kind === LIT_STRING && type.name === 'text' && type.typmod === -1) return value as string;
  if (kind === LIT_BOOL && type.name === 'bool') return value as boolean;
  // A '…' literal (a text parameter) into a number or bool column: that type's input function, as the
  // coercion below would call it; these read no time zone, so no session context is made for them.
  if (kind === LIT_STRING && type.typmod === -1 && ZONELESS_INPUT.has(type.name)) {
    try {
      return parseValue(value as string, type);
    } catch {
      return GENERAL;
    }
  }
  // A '…' literal into varchar(n) or char(n) (a key column's usual types): their input function, which
  // cuts trailing spaces past the length, pads char(n) and refuses anything longer (the general path
  // then raises 22001 with its position); it reads no setting either.
  if (kind === LIT_STRING && (type.name === 'varchar' || type.name === 'bpchar')) {
    try {
      return parseValue(value as string, type);
    } catch {
      return GENERAL;
    }
  }
  if (kind === LIT_NUMBER && type.name === 'float8') {
    // numeric in, float8 out: the decimal text rounded once, as PostgreSQL's numeric_float8 does.
    const s = value as string;
    const v = Number(s);
    // Out of range, subnormal or a non-zero value that rounds to zero: the general path decides.
    if (!Number.isFinite(v) || (v !== 0 && Math.abs(v) < 2.2250738585072014e-308) || (v === 0 && /[1-9]/.test(s))) return GENERAL;
    // numeric has no negative zero.
    return v === 0 ? 0 : v;
  }
  try {
    const e = (env.coerce ??= { evalCtx: env.host.session.evalContext(env.now()), paramTypes: [] });
    return evalLiteral(coerce(literalExpr(kind, value), type, 'assignment', e), e.evalCtx.timezone);
  } catch {
    return GENERAL;
  }
}

/**
 * A row's literals converted into `values` by target column (NULL where none is given); false when the
 * general path must run it: too many or too few literals (42601, or defaults for the columns left
 * out), or a literal that needs the general conversion.
 */
function readRow(plan: InsertPlan, r: LiteralRow, env: ConvertEnv, values: Value[]): boolean {
  const targets = plan.targets!;
  if (r.kinds.length !== targets.length) return false;
  values.fill(null);
  for (let k = 0; k < r.kinds.length; k++) {
    const c = targets[k]!;
    const v = convert(r.kinds[k]!, r.values[k]!, plan.types[c]!, env);
    if (v === GENERAL) return false;
    values[c] = v;
  }
  return true;
}

function rowsBatch(plan: InsertPlan, rows: readonly LiteralRow[], env: ConvertEnv): Batch | null {
  const types = plan.types;
  const width = types.length;
  const values: Value[] = new Array(width);
  if (rows.length === 1) return oneRowBatch(plan, rows[0]!, env, values);
  const builders: ColumnBuilder[] = new Array(width);
  for (let c = 0; c < width; c++) builders[c] = new ColumnBuilder(types[c]!, rows.length);
  for (const r of rows) {
    if (!readRow(plan, r, env, values)) return null;
    for (let c = 0; c < width; c++) {
      const v = values[c]!;
      if (v === null && plan.facts[c]!.notNull) return null;
      builders[c]!.push(v);
    }
  }
  const columns: Column[] = new Array(width);
  for (let c = 0; c < width; c++) columns[c] = builders[c]!.finish();
  return { columns, length: rows.length };
}

/** rowsBatch of one row (an autocommit loop's INSERT): a column per value without a builder each. */
function oneRowBatch(plan: InsertPlan, r: LiteralRow, env: ConvertEnv, values: Value[]): Batch | null {
  const types = plan.types;
  const width = types.length;
  if (!readRow(plan, r, env, values)) return null;
  const columns: Column[] = new Array(width);
  for (let c = 0; c < width; c++) {
    const v = values[c]!;
    if (v === null && plan.facts[c]!.notNull) return null;
    let col = v === null ? null : oneValueColumn(types[c]!, v);
    if (col === null) {
      const b = new ColumnBuilder(types[c]!, 1);
      b.push(v);
      col = b.finish();
    }
    columns[c] = col;
  }
  return { columns, length: 1 };
}

/**
 * Runs the statement through its prefix's plan; null when the general INSERT must run it (nothing
 * was changed then).
 */
export function runLiteralInsert(host: UtilityHost, lit: LiteralInsert, now: () => number): QueryResult | null {
  // An INSERT of literals needs only the right to write (AccessPolicy.check asks nothing else of it):
  // a read-only session takes the general path, which refuses it with 25006.
  if (!host.session.access.allowWrites) return null;
  const rel = lit.prefix.insert.relation as { relname: string; schemaname?: string };
  let t: MemoryTable;
  try {
    t = host.catalog.getMemoryTableIn(rel.schemaname, rel.relname);
  } catch {
    return null;
  }
  let plan = plans.get(lit.prefix);
  if (plan === undefined || !stillHolds(plan, t)) {
    plan = buildPlan(lit.prefix, t);
    plans.set(lit.prefix, plan);
  }
  if (plan.targets === null) return null;
  const batch = rowsBatch(plan, lit.rows, { host, now, coerce: null });
  if (batch === null) return null;
  // The batch's rows as the general INSERT's rows are checked: in order, each row's keys in order.
  const rows = { batches: [batch] };
  if (t.uniqueKeys.length > 0) {
    // A key another open transaction wrote: the general path waits for it.
    if (pendingKeyHolder(t, rows, host.rowLocks) !== null) return null;
    // Rows of a REPEATABLE READ snapshot others deleted since: the general path leaves them out.
    if (staleRows(host, t) !== null) return null;
    checkNewBatch(t, batch);
  }
  if (t.foreignKeys.length > 0) checkInsertedRows(host, host.tempKey(rel.relname) ?? rel.relname, t, batch);
  if (host.keyHolder !== null && t.uniqueKeys.length > 0) {
    checkKeysCommittedSince(host, t, rows, false);
    holdPendingKeys(t, rows, host.keyHolder);
  }
  // In a transaction block: its copy of the table. Otherwise this is the implicit transaction's COMMIT.
  if (host.inAnyTransaction) t.appendBatch(batch);
  else t.appendCommitted(rows.batches);
  const n = batch.length;
  return { command: 'INSERT', commandTag: n === 1 ? 'INSERT 0 1' : `INSERT 0 ${n}`, columns: [], rows: [], rowCount: n, notices: [] };
}

/**
 * `INSERT INTO t [(cols)] VALUES ($1, …)` with its parameter values (text, or null), through the plan of
 * its prefix: a parameter of no declared type is what an untyped '…' literal is to the column (its
 * text read by the column type's input), one declared of the column's own type the same. Null (the
 * general INSERT runs it) for a parameter of another type, a binary one, one used twice or not at all.
 */
export function runParamInsert(host: UtilityHost, pi: ParamInsert, params: readonly unknown[], paramTypes: readonly DataType[], now: () => number): QueryResult | null {
  const n = pi.slots.length;
  if (paramTypes.length !== n || params.length !== n) return null;
  const kinds: number[] = new Array(n);
  const values: (string | null)[] = new Array(n);
  // A parameter used twice or not at all: the general path.
  if (!pi.eachOnce) return null;
  for (let k = 0; k < n; k++) {
    const slot = pi.slots[k]!;
    const v = params[slot];
    if (v === null) {
      kinds[k] = LIT_NULL;
      values[k] = null;
    } else if (typeof v === 'string') {
      kinds[k] = LIT_STRING;
      values[k] = v;
    } else return null;
  }
  const lit: LiteralInsert = { prefix: pi.prefix, rows: [{ kinds, values, locations: [] }] };
  // A declared type other than the target column's would convert twice (to the parameter's type, then
  // to the column's), which the general path does.
  let typed = false;
  for (const t of paramTypes) if (t.name !== 'unknown') typed = true;
  if (typed) {
    const target = insertTarget(host, pi);
    if (target === null) return null;
    const { t, cols } = target;
    for (let k = 0; k < n; k++) {
      const pt = paramTypes[pi.slots[k]!]!;
      if (pt.name === 'unknown') continue;
      const c = cols === undefined ? k : t.schema.findIndex((f) => f.name === cols[k]!.ResTarget.name);
      const ct = t.schema[c]?.type;
      if (ct === undefined || ct.name !== pt.name || ct.typmod !== pt.typmod) return null;
    }
  }
  return runLiteralInsert(host, lit, now);
}

/** The stored table a parameter INSERT names and its column list; null (the general path answers) when there is none. */
function insertTarget(host: UtilityHost, pi: ParamInsert): { t: MemoryTable; cols: { ResTarget: { name: string } }[] | undefined } | null {
  const rel = pi.prefix.insert.relation as { relname: string; schemaname?: string };
  try {
    return { t: host.catalog.getMemoryTableIn(rel.schemaname, rel.relname), cols: pi.prefix.insert.cols as { ResTarget: { name: string } }[] | undefined };
  } catch {
    return null;
  }
}

/**
 * `INSERT INTO t [(cols)] VALUES ($1, …)` called from the library with JavaScript values (query(sql,
 * params)): each parameter takes its column's type, as the general path types a bare parameter, and
 * converts as it converts one (jsToValue). Taken only for the values whose conversion reads no session
 * setting: numbers into integer and float8 columns, strings into text, varchar(n) and char(n), booleans
 * into bool, null; null (the general path runs it) for anything else, for a value its column refuses, and for parameters
 * numbered other than once each.
 */
export function runJsParamInsert(host: UtilityHost, pi: ParamInsert, params: readonly unknown[], now: () => number): QueryResult | null {
  const n = pi.slots.length;
  if (params.length !== n) return null;
  const target = insertTarget(host, pi);
  if (target === null) return null;
  const { t, cols } = target;
  const kinds: number[] = new Array(n);
  const values: (number | string | boolean | null)[] = new Array(n);
  // A parameter used twice or not at all: the general path.
  if (!pi.eachOnce) return null;
  for (let k = 0; k < n; k++) {
    const slot = pi.slots[k]!;
    const v = params[slot];
    if (v === null || v === undefined) {
      kinds[k] = LIT_NULL;
      values[k] = null;
      continue;
    }
    const c = cols === undefined ? k : t.schema.findIndex((f) => f.name === cols[k]!.ResTarget.name);
    const ct = t.schema[c]?.type;
    if (ct === undefined) return null;
    const name = ct.name;
    // A string into varchar(n) or char(n) is read with the modifier, as the general path reads a
    // parameter typed as its column; no other modifier is taken here.
    const sized = typeof v === 'string' && (name === 'varchar' || name === 'bpchar');
    if (ct.typmod !== -1 && !sized) return null;
    const fits =
      (typeof v === 'number' && (name === 'int2' || name === 'int4' || name === 'int8' || name === 'float8')) ||
      (typeof v === 'string' && name === 'text') ||
      sized ||
      (typeof v === 'boolean' && name === 'bool');
    if (!fits) return null;
    let value: Value;
    try {
      value = jsToValue(v, ct, 'UTC');
    } catch {
      return null;
    }
    // int8 beyond 2^53 is stored as the general path stores it.
    if (typeof value === 'bigint') return null;
    kinds[k] = COLUMN_VALUE;
    values[k] = value as number | string | boolean;
  }
  return runLiteralInsert(host, { prefix: pi.prefix, rows: [{ kinds, values, locations: [] }] }, now);
}
