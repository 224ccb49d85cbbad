/** CREATE TABLE [AS], SELECT INTO, CREATE VIEW, DROP TABLE/VIEW/SEQUENCE, sequence DDL and CREATE AGGREGATE's probe. */
import type { Node, SelectStmt } from '@pgsql/types';
import { storeFor } from '../storage/persist/index.js';
import { QuireError, positionOf } from '../common/errors.js';
import { isFieldRecord, T, typeDisplayName, type DataType, type Field } from '../common/types.js';
import type { Batch } from '../common/column.js';
import { nodeBody, nodeTag, strings, type AnyNode } from '../sql/ast.js';
import { resolveTypeName } from '../sql/type-name.js';
import { tempTableKey } from '../storage/catalog.js';
import { MemoryTable, type ColumnMeta } from '../storage/memory-table.js';
import { aggregateProbe, createAggregate, routineTypeName } from './routine-ddl.js';
import { internalFunctions } from '../sql/internal-functions.js';
import { lookupScalar } from '../functions/registry.js';
import { alterSequence, createSequence, dropSequence, identityCounter } from './sequence-ddl.js';
import type { QueryResult } from './database.js';
import type { UtilityHost } from './utility.js';
import { binderFor, checkRelationSchema, relName, result } from './statement-support.js';
import { chooseIndexName, nameKeys, type KeySpec } from './constraint-names.js';
import { checkUniqueKeys } from '../storage/unique-index.js';
import type { ForeignKey } from '../storage/foreign-key.js';
import { constraintNames, defineForeignKey, referencingTables } from './foreign-key-ddl.js';
import { checkStorageParameters } from './storage-parameters.js';
import { createInertIndex, createSecondaryIndex, dropSecondaryIndex, secondaryIndexNames, sortedAccessMethod } from './index-ddl.js';
import { matchingKey } from './foreign-key-checks.js';

const pos = positionOf;

export function defineAggregate(host: UtilityHost, b: AnyNode, sql: string): void {
  const before = host.catalog.aggregates.get(strings(b.defnames as Node[]).pop()!);
  const def = createAggregate(host.catalog, b, sql);
  const probe = aggregateProbe(def);
  if (probe === null) {
    // A polymorphic aggregate is bound per call; its support functions must exist all the same.
    for (const f of [def.sfunc, def.finalfunc]) {
      if (f === null || host.catalog.functions.has(f) || internalFunctions(f) !== undefined || lookupScalar(f) !== undefined) continue;
      const shown = [...(f === def.sfunc ? [def.stype] : []), ...(f === def.sfunc ? def.args : [def.stype])].map(routineTypeName).join(', ');
      host.catalog.aggregates.set(def.name, before ?? []);
      if (before === undefined) host.catalog.aggregates.delete(def.name);
      throw new QuireError('42883', `function ${f}(${shown}) does not exist`);
    }
    return;
  }
  try {
    const type = binderFor(host).bindQuery(nodeBody<SelectStmt>(probe), null).plan.schema[0]!.type;
    const list = host.catalog.aggregates.get(def.name) ?? [];
    host.catalog.aggregates.set(def.name, list.map((d) => (d === def ? { ...def, returns: type } : d)));
  } catch (e) {
    if (before === undefined) host.catalog.aggregates.delete(def.name);
    else host.catalog.aggregates.set(def.name, before);
    throw e;
  }
}

function columnMetaFrom(def: AnyNode, type: DataType): { meta: ColumnMeta; unique: boolean; primary: boolean } {
  const meta: ColumnMeta = { notNull: false, defaultExpr: null, sequence: null };
  let unique = false;
  let primary = false;
  const tn = strings(((def.typeName as AnyNode).names as Node[]) ?? []).pop() ?? '';
  if (/^(small|big)?serial[248]?$/.test(tn)) {
    meta.sequence = { next: 1 };
    meta.notNull = true;
  }
  for (const c of (def.constraints as Node[] | undefined) ?? []) {
    const cb = nodeBody<AnyNode>(c);
    switch (cb.contype) {
      case 'CONSTR_NOTNULL':
        meta.notNull = true;
        break;
      case 'CONSTR_NULL':
        break;
      case 'CONSTR_DEFAULT':
        meta.defaultExpr = cb.raw_expr as Node;
        break;
      case 'CONSTR_PRIMARY':
        primary = true;
        meta.notNull = true;
        break;
      case 'CONSTR_UNIQUE':
        unique = true;
        break;
      case 'CONSTR_IDENTITY':
        if (type.name !== 'int2' && type.name !== 'int4' && type.name !== 'int8') {
          throw new QuireError('22023', 'identity column type must be smallint, integer, or bigint', { position: pos(cb.location as number) });
        }
        meta.sequence = identityCounter(type.name, cb.options as Node[] | undefined);
        meta.identity = cb.generated_when === 'a' ? 'always' : 'by default';
        meta.notNull = true;
        break;
      case 'CONSTR_CHECK':
        throw new QuireError('0A000', 'CHECK constraints are not supported', { position: pos(cb.location as number) });
      default:
        break;
    }
  }
  return { meta, unique, primary };
}

/**
 * A database directory keeps no named composite types (they live in the process), so it keeps no such
 * columns either; a record with field names (a Parquet group) describes itself and is kept.
 */
function refuseStoredComposite(host: UtilityHost, column: string, t: DataType): void {
  if (t.composite !== undefined && !isFieldRecord(t.composite) && storeFor(host.catalog) !== undefined) {
    throw new QuireError('0A000', `column "${column}" of composite type ${t.composite.name} cannot be stored in a database directory`, { hint: 'Use a TEMP table.' });
  }
}

export function createTable(host: UtilityHost, b: AnyNode): QueryResult {
  const rv = b.relation as AnyNode;
  const name = relName(rv);
  // The table's row type would take the name of an existing composite type.
  // A composite type is a relation in PostgreSQL's catalog too: the name is taken as a relation's.
  if (host.catalog.types.has(name) && rv.relpersistence !== 't') throw new QuireError('42P07', `relation "${name}" already exists`);
  if (b.partbound !== undefined) throw new QuireError('0A000', 'CREATE TABLE … PARTITION OF is not supported', { position: pos(rv.location as number) });
  checkStorageParameters(b.options as Node[] | undefined, 'create');
  const fields: Field[] = [];
  const meta: ColumnMeta[] = [];
  const uniques: KeySpec[] = [];
  const notices: string[] = [];
  const foreign: { con: AnyNode; col: number | null }[] = [];
  /** A column's PRIMARY KEY or UNIQUE constraints, with the names written for them. */
  const columnKeys = (col: number, def: AnyNode): void => {
    for (const c of (def.constraints as Node[] | undefined) ?? []) {
      const cb = nodeBody<AnyNode>(c);
      if (cb.contype === 'CONSTR_PRIMARY' || cb.contype === 'CONSTR_UNIQUE') {
        uniques.push({ cols: [col], primary: cb.contype === 'CONSTR_PRIMARY', name: cb.conname as string | undefined, location: cb.location as number | undefined });
      } else if (cb.contype === 'CONSTR_FOREIGN') foreign.push({ con: cb, col });
    }
  };
  const parents = inheritedColumns(host, (b.inhRelations as Node[] | undefined) ?? [], name, fields, meta);
  const inherited = fields.length;
  for (const e of (b.tableElts as Node[] | undefined) ?? []) {
    const tag = nodeTag(e);
    const eb = nodeBody<AnyNode>(e);
    if (tag === 'ColumnDef') {
      const cname = eb.colname as string;
      const type = resolveTypeName(eb.typeName as never, host.catalog.types);
      if (rv.relpersistence !== 't') refuseStoredComposite(host, cname, type);
      const m = columnMetaFrom(eb, type);
      const same = fields.findIndex((f) => f.name === cname);
      if (same >= 0 && same < inherited) {
        // A column the parents already have merges with theirs when the types agree.
        if (fields[same]!.type.name !== type.name || fields[same]!.type.typmod !== type.typmod) {
          throw new QuireError('42804', `column "${cname}" has a type conflict`, { detail: `${typeDisplayName(fields[same]!.type)} versus ${typeDisplayName(type)}`, position: pos(eb.location as number) });
        }
        notices.push(`merging column "${cname}" with inherited definition`);
        const old = meta[same]!;
        meta[same] = { ...m.meta, notNull: old.notNull || m.meta.notNull, defaultExpr: m.meta.defaultExpr ?? old.defaultExpr };
        columnKeys(same, eb);
        continue;
      }
      if (same >= 0) throw new QuireError('42701', `column "${cname}" specified more than once`, { position: pos(eb.location as number) });
      fields.push({ name: cname, type, table: name });
      meta.push(m.meta);
      columnKeys(fields.length - 1, eb);
    } else if (tag === 'Constraint') {
      const ct = eb.contype as string;
      if (ct === 'CONSTR_PRIMARY' || ct === 'CONSTR_UNIQUE') {
        const cols = strings(eb.keys as Node[]).map((k) => {
          const i = fields.findIndex((f) => f.name === k);
          if (i < 0) throw new QuireError('42703', `column "${k}" named in key does not exist`, { position: pos(eb.location as number) });
          if (ct === 'CONSTR_PRIMARY') meta[i]!.notNull = true;
          return i;
        });
        uniques.push({ cols, primary: ct === 'CONSTR_PRIMARY', name: eb.conname as string | undefined, location: eb.location as number | undefined });
      } else if (ct === 'CONSTR_FOREIGN') {
        foreign.push({ con: eb, col: null });
      } else if (ct === 'CONSTR_CHECK') {
        throw new QuireError('0A000', 'CHECK constraints are not supported', { position: pos(eb.location as number) });
      }
    } else if (tag === 'TableLikeClause') {
      const src = host.catalog.getTable(relName(eb.relation as AnyNode));
      if (!src) throw new QuireError('42P01', `relation "${relName(eb.relation as AnyNode)}" does not exist`);
      for (const f of src.schema) {
        fields.push({ name: f.name, type: f.type, table: name });
        meta.push({ notNull: false, defaultExpr: null, sequence: null });
      }
    }
  }
  if (host.catalog.sequences.has(name)) throw new QuireError('42P07', `relation "${name}" already exists`, { position: pos(rv.location as number) });
  const taken = tableAndKeyNames(host);
  const named = nameKeys(name, fields.map((f) => f.name), uniques, taken);
  const t = new MemoryTable(name, fields, meta);
  t.uniqueKeys = named.keys;
  t.uniqueNames = named.names;
  // nameKeys puts the primary key first.
  t.primaryKey = uniques.some((u) => u.primary);
  if (foreign.length > 0) {
    const shape = { name, fields, uniqueKeys: t.uniqueKeys, primaryKey: t.primaryKey, uniqueNames: t.uniqueNames };
    const names = constraintNames(host);
    for (const n of named.names) names.add(n);
    const fks: ForeignKey[] = [];
    for (const f of foreign) fks.push(defineForeignKey(host, shape, f.con, f.col, names, fks));
    t.foreignKeys = fks;
  }
  const temp = (b.relation as AnyNode).relpersistence === 't';
  const created = host.catalog.addTable(t, b.if_not_exists === true, temp ? tempTableKey(host.session.id, name) : name);
  if (created && temp) host.addTemp(name);
  if (created) {
    t.inheritance.parents = parents.map((p) => p.name);
    for (const p of parents) p.inheritance.children = [...p.inheritance.children, name];
  }
  return result('CREATE TABLE', 'CREATE TABLE', { notices: created ? notices : [`relation "${name}" already exists, skipping`] });
}

/**
 * INHERITS (p, …): the parents' columns come first, in order, a name two parents share merged into one
 * column (their types must agree); NOT NULL and defaults are inherited, as in PostgreSQL.
 */
function inheritedColumns(host: UtilityHost, rels: readonly Node[], name: string, fields: Field[], meta: ColumnMeta[]): MemoryTable[] {
  const parents: MemoryTable[] = [];
  for (const r of rels) {
    const rv = nodeBody<AnyNode>(r);
    const pname = relName(rv);
    const p = host.catalog.getMemoryTableIn(rv.schemaname as string | undefined, pname, pos(rv.location as number));
    if (parents.includes(p)) throw new QuireError('42P07', `relation "${pname}" would be inherited from more than once`, { position: pos(rv.location as number) });
    if (pname === name) throw new QuireError('42P07', `relation "${name}" would be inherited from more than once`);
    parents.push(p);
    p.schema.forEach((f, i) => {
      const at = fields.findIndex((x) => x.name === f.name);
      if (at >= 0) {
        if (fields[at]!.type.name !== f.type.name || fields[at]!.type.typmod !== f.type.typmod) {
          throw new QuireError('42804', `inherited column "${f.name}" has a type conflict`, { detail: `${typeDisplayName(fields[at]!.type)} versus ${typeDisplayName(f.type)}` });
        }
        return;
      }
      fields.push({ name: f.name, type: f.type, table: name });
      const pm = p.meta[i]!;
      meta.push({ notNull: pm.notNull, defaultExpr: pm.defaultExpr, sequence: null });
    });
  }
  return parents;
}

export async function materialize(host: UtilityHost, stmt: SelectStmt, params: readonly unknown[]): Promise<{ fields: Field[]; batches: Batch[] }> {
  const prepared = host.prepareSelect(stmt, params);
  const ctx = host.execContext(prepared.paramTypes, params, false);
  const op = await host.physical(prepared.plan, ctx);
  const batches = await host.collectBatches(op, ctx);
  return { fields: prepared.columns.map((c) => ({ name: c.name, type: c.type })), batches };
}

async function createTableFromQuery(host: UtilityHost, into: AnyNode, query: SelectStmt, params: readonly unknown[], ifNotExists: boolean, withData: boolean): Promise<QueryResult> {
  checkStorageParameters(into.options as Node[] | undefined, 'create');
  const rv = into.rel as AnyNode;
  const name = relName(rv);
  const temp = rv.relpersistence === 't';
  if (!temp && host.catalog.types.has(name)) throw new QuireError('42P07', `relation "${name}" already exists`);
  const exists = temp ? host.tempKey(name) !== undefined : host.catalog.tables.has(name) || host.catalog.views.has(name);
  if (exists) {
    if (ifNotExists) return result('CREATE TABLE AS', 'CREATE TABLE AS', { notices: [`relation "${name}" already exists, skipping`] });
    throw new QuireError('42P07', `relation "${name}" already exists`);
  }
  const { fields, batches } = await materialize(host, query, params);
  const colNames = into.colNames ? strings(into.colNames as Node[]) : [];
  if (colNames.length > fields.length) throw new QuireError('42601', 'too many column names were specified');
  const seen = new Set<string>();
  const tfields = fields.map((f, i) => {
    const n = colNames[i] ?? f.name;
    if (seen.has(n)) throw new QuireError('42701', `column "${n}" specified more than once`);
    seen.add(n);
    // An anonymous record has no stored form (PostgreSQL stores only named composite types).
    if (f.type.name === 'record' && f.type.composite === undefined) throw new QuireError('42P16', `column "${n}" has pseudo-type record`);
    if (!temp) refuseStoredComposite(host, n, f.type);
    return { name: n, type: f.type.name === 'unknown' ? T.text : f.type, table: name };
  });
  const t = new MemoryTable(name, tfields);
  let n = 0;
  if (withData) {
    t.replaceAll(batches);
    n = t.rowCount();
  }
  host.catalog.addTable(t, false, temp ? tempTableKey(host.session.id, name) : name);
  if (temp) host.addTemp(name);
  return result('SELECT', `SELECT ${n}`, { rowCount: n });
}

export function selectInto(host: UtilityHost, sel: SelectStmt, params: readonly unknown[]): Promise<QueryResult> {
  const into = sel.intoClause as unknown as AnyNode;
  const q = { ...sel, intoClause: undefined } as SelectStmt;
  return createTableFromQuery(host, into, q, params, false, true);
}

export function createTableAs(host: UtilityHost, b: AnyNode, params: readonly unknown[]): Promise<QueryResult> {
  if (b.objtype === 'OBJECT_MATVIEW') throw new QuireError('0A000', 'materialized views are not supported');
  const q = b.query as Node;
  if (nodeTag(q) !== 'SelectStmt') throw new QuireError('0A000', 'CREATE TABLE AS needs a SELECT');
  const into = b.into as AnyNode;
  return createTableFromQuery(host, into, nodeBody<SelectStmt>(q), params, b.if_not_exists === true, into.skipData !== true);
}

export function createView(host: UtilityHost, b: AnyNode, sql: string): QueryResult {
  const rv = b.view as AnyNode;
  const name = relName(rv);
  const query = b.query as Node;
  if (host.catalog.types.has(name) && rv.relpersistence !== 't') throw new QuireError('42P07', `relation "${name}" already exists`);
  // Bind once now so errors surface at CREATE time, as in PostgreSQL.
  host.prepareSelect(nodeBody<SelectStmt>(query), []);
  host.catalog.addView({ name, query, columnNames: b.aliases ? strings(b.aliases as Node[]) : null, sql }, b.replace === true);
  return result('CREATE VIEW', 'CREATE VIEW');
}

/** CREATE SEQUENCE / ALTER SEQUENCE (src/api/sequence-ddl.ts). */
export function sequenceStatement(host: UtilityHost, tag: 'CreateSeqStmt' | 'AlterSeqStmt', b: AnyNode): QueryResult {
  return tag === 'CreateSeqStmt' ? createSequence(host, b) : alterSequence(host, b);
}

/** Names of tables and of their keys' constraints and unique indexes: a new key's name must differ. */
function tableAndKeyNames(host: UtilityHost): Set<string> {
  const taken = new Set<string>();
  for (const [key, other] of host.catalog.tables) {
    taken.add(key);
    if (other instanceof MemoryTable) for (const n of other.uniqueNames) taken.add(n);
  }
  for (const n of secondaryIndexNames(host)) taken.add(n);
  return taken;
}

/**
 * CREATE INDEX checks what PostgreSQL checks (the table, its columns, the name's schema). On a stored
 * table a B-tree (or hash) index becomes a secondary index the planner may read through (index-ddl.ts);
 * other access methods, and tables of other sources, keep nothing: indexes change speed, never results.
 * CREATE UNIQUE INDEX changes results (it refuses duplicates): it becomes one more unique key of the
 * table, checked over the rows already there (23505 names the first duplicate) and then by every
 * write, as the table's constraints are; DROP INDEX removes it. Both are transactional (transaction.ts
 * applies the new key list at COMMIT) and logged in a database directory.
 */
export function createIndex(host: UtilityHost, b: AnyNode, sql: string): QueryResult {
  const rv = b.relation as AnyNode;
  const name = relName(rv);
  const position = pos(rv.location as number);
  const t = host.catalog.getTableIn(rv.schemaname as string | undefined, name);
  if (t === undefined) {
    if (host.catalog.views.has(name)) throw new QuireError('42809', `"${name}" is not a table`, { position });
    throw new QuireError('42P01', `relation "${rv.schemaname !== undefined ? `${rv.schemaname as string}.` : ''}${name}" does not exist`, { position });
  }
  const cols: number[] = [];
  for (const p of (b.indexParams as Node[] | undefined) ?? []) {
    const col = nodeBody<AnyNode>(p).name as string | undefined;
    const c = col === undefined ? -1 : t.schema.findIndex((f) => f.name === col);
    if (col !== undefined && c < 0) throw new QuireError('42703', `column "${col}" does not exist`);
    cols.push(c);
  }
  if (b.unique !== true && b.primary !== true) {
    if (!(t instanceof MemoryTable)) return result('CREATE INDEX', 'CREATE INDEX');
    const sorted = sortedAccessMethod(b);
    if (sorted && cols.some((c) => c < 0)) throw new QuireError('0A000', 'CREATE INDEX on an expression is not supported', { position, hint: 'Index columns by name.' });
    const taken = tableAndKeyNames(host);
    for (const v of host.catalog.views.keys()) taken.add(v);
    for (const q of host.catalog.sequences.keys()) taken.add(q);
    const given = b.idxname as string | undefined;
    if (given !== undefined && taken.has(given)) {
      if (b.if_not_exists === true) return result('CREATE INDEX', 'CREATE INDEX', { notices: [`relation "${given}" already exists, skipping`] });
      throw new QuireError('42P07', `relation "${given}" already exists`);
    }
    const name = given ?? chooseIndexName(t.name, cols.map((c) => (c < 0 ? 'expr' : t.schema[c]!.name)), taken);
    return sorted ? createSecondaryIndex(host, t, b, name, sql) : createInertIndex(t, name, sql);
  }
  if (!(t instanceof MemoryTable)) throw new QuireError('0A000', `CREATE UNIQUE INDEX on "${name}", which is not a stored table, is not supported`, { position });
  if (cols.some((c) => c < 0)) throw new QuireError('0A000', 'CREATE UNIQUE INDEX on an expression is not supported', { position, hint: 'Index columns by name.' });
  if (b.whereClause !== undefined) throw new QuireError('0A000', 'a partial unique index (CREATE UNIQUE INDEX … WHERE) is not supported', { position });
  if (b.nulls_not_distinct === true) throw new QuireError('0A000', 'CREATE UNIQUE INDEX … NULLS NOT DISTINCT is not supported', { position });
  const taken = tableAndKeyNames(host);
  for (const v of host.catalog.views.keys()) taken.add(v);
  for (const q of host.catalog.sequences.keys()) taken.add(q);
  let idx = b.idxname as string | undefined;
  if (idx !== undefined && taken.has(idx)) {
    if (b.if_not_exists === true) return result('CREATE INDEX', 'CREATE INDEX', { notices: [`relation "${idx}" already exists, skipping`] });
    throw new QuireError('42P07', `relation "${idx}" already exists`);
  }
  idx ??= chooseIndexName(t.name, cols.map((c) => t.schema[c]!.name), taken);
  // The rows already there must hold the key: PostgreSQL names the index and the first duplicate.
  const probe = new MemoryTable(t.name, t.schema, t.meta);
  probe.uniqueKeys = [cols];
  probe.uniqueNames = [idx];
  try {
    checkUniqueKeys(probe, [], t.snapshot());
  } catch (e) {
    if (e instanceof QuireError && e.code === '23505') {
      throw new QuireError('23505', `could not create unique index "${idx}"`, { detail: (e.detail ?? '').replace(/ already exists\.$/, ' is duplicated.') });
    }
    throw e;
  }
  t.uniqueKeys = [...t.uniqueKeys, cols];
  t.uniqueNames = [...t.uniqueNames, idx];
  t.indexKeyNames = [...t.indexKeyNames, idx];
  return result('CREATE INDEX', 'CREATE INDEX');
}

function uniqueIndexNames(host: UtilityHost): string[] {
  const out: string[] = [];
  for (const t of host.catalog.tables.values()) if (t instanceof MemoryTable) out.push(...t.uniqueNames);
  return out;
}

/** DROP INDEX of a unique index: its key goes; a constraint's index cannot be dropped alone (2BP01). */
function dropIndexes(host: UtilityHost, b: AnyNode): QueryResult {
  const notices: string[] = [];
  const names = ((b.objects as Node[]) ?? []).map((o) => strings(nodeBody<AnyNode>(o).items as Node[]));
  // PostgreSQL checks every name before dropping any: one unknown name drops nothing.
  for (const parts of names) {
    const n = parts[parts.length - 1]!;
    if (secondaryIndexNames(host).includes(n) || uniqueIndexNames(host).includes(n)) continue;
    if (b.missing_ok === true) notices.push(`index "${n}" does not exist, skipping`);
    else if (host.catalog.tables.has(n)) throw new QuireError('42809', `"${n}" is not an index`, { hint: 'Use DROP TABLE to remove a table.' });
    else if (host.catalog.views.has(n)) throw new QuireError('42809', `"${n}" is not an index`, { hint: 'Use DROP VIEW to remove a view.' });
    else throw new QuireError('42704', `index "${parts.join('.')}" does not exist`);
  }
  for (const parts of names) {
    const n = parts[parts.length - 1]!;
    if (dropSecondaryIndex(host, n)) continue;
    for (const t of host.catalog.tables.values()) {
      if (!(t instanceof MemoryTable)) continue;
      const k = t.uniqueNames.indexOf(n);
      if (k < 0) continue;
      if (!t.indexKeyNames.includes(n)) {
        throw new QuireError('2BP01', `cannot drop index ${n} because constraint ${n} on table ${t.name} requires it`, { hint: `You can drop constraint ${n} on table ${t.name} instead.` });
      }
      const rest = t.uniqueKeys.filter((_, i) => i !== k);
      const needs = [...referencingTables(host, t.name), ...t.foreignKeys.filter((f) => f.parent === t.name).map((fk) => ({ table: t, fk }))].filter(
        (r) => matchingKey({ uniqueKeys: [t.uniqueKeys[k]!] }, r.fk.parentCols) !== undefined && matchingKey({ uniqueKeys: rest }, r.fk.parentCols) === undefined,
      );
      if (needs.length > 0) {
        throw new QuireError('2BP01', `cannot drop index ${n} because other objects depend on it`, {
          detail: needs.map((r) => `constraint ${r.fk.name} on table ${r.table.name} depends on index ${n}`).join('\n'),
          hint: 'Use DROP ... CASCADE to drop the dependent objects too.',
        });
      }
      t.uniqueKeys = rest;
      t.uniqueNames = t.uniqueNames.filter((_, i) => i !== k);
      t.indexKeyNames = t.indexKeyNames.filter((x) => x !== n);
    }
  }
  return result('DROP INDEX', 'DROP INDEX', notices.length > 0 ? { notices } : {});
}

export function drop(host: UtilityHost, b: AnyNode): QueryResult {
  const type = b.removeType as string;
  if (type === 'OBJECT_SEQUENCE') return dropSequence(host, b);
  const kind = type === 'OBJECT_VIEW' ? 'view' : type === 'OBJECT_TABLE' ? 'table' : type === 'OBJECT_INDEX' ? 'index' : null;
  if (kind === null) throw new QuireError('0A000', `DROP ${type.replace('OBJECT_', '')} is not supported`);
  const notices: string[] = [];
  const tagName = kind === 'view' ? 'DROP VIEW' : kind === 'index' ? 'DROP INDEX' : 'DROP TABLE';
  if (kind === 'index') return dropIndexes(host, b);
  const names: string[] = [];
  for (const o of (b.objects as Node[]) ?? []) {
    const parts = strings(nodeBody<AnyNode>(o).items as Node[]);
    const n = parts[parts.length - 1]!;
    const schema = parts.length > 1 ? parts[parts.length - 2] : undefined;
    try {
      checkRelationSchema(parts.length > 2 ? parts[0] : undefined, schema, n, 'schema');
    } catch (e) {
      if (b.missing_ok === true && e instanceof QuireError && e.code === '3F000') {
        notices.push(`schema "${schema}" does not exist, skipping`);
        continue;
      }
      throw e;
    }
    // public.x is the permanent relation even when a TEMP x shadows it; pg_temp.x only the TEMP one.
    if (schema === 'public' && kind === 'table' && host.tempKey(n) !== undefined) {
      throw new QuireError('0A000', `DROP TABLE public.${n} while a TEMP table "${n}" shadows it is not supported`, { hint: 'Drop the TEMP table first, or end the session.' });
    }
    if (schema === 'pg_temp' && host.tempKey(n) === undefined) {
      if (b.missing_ok === true) {
        notices.push(`${kind} "${n}" does not exist, skipping`);
        continue;
      }
      throw new QuireError('42P01', `${kind} "${n}" does not exist`);
    }
    names.push(n);
  }
  for (const n of names) {
    const exists = kind === 'view' ? host.catalog.views.has(n) : host.tempKey(n) !== undefined || host.catalog.tables.has(n);
    if (!exists) {
      if (kind === 'table' && host.catalog.views.has(n)) throw new QuireError('42809', `"${n}" is not a table`, { hint: 'Use DROP VIEW to remove a view.' });
      if (b.missing_ok) {
        notices.push(`${kind} "${n}" does not exist, skipping`);
        continue;
      }
      throw new QuireError('42P01', `${kind} "${n}" does not exist`);
    }
  }
  const dropping = kind === 'table' ? withDescendants(host, names.filter((n) => tableNamed(host, n) !== undefined), b.behavior === 'DROP_CASCADE', notices) : names;
  if (kind === 'table') dropReferences(host, dropping, b.behavior === 'DROP_CASCADE', notices);
  for (const n of dropping) {
    if (kind === 'view') host.catalog.views.delete(n);
    else {
      const t = tableNamed(host, n);
      if (t instanceof MemoryTable) {
        for (const pn of t.inheritance.parents) {
          const p = tableNamed(host, pn);
          if (p instanceof MemoryTable) p.inheritance.children = p.inheritance.children.filter((c) => c !== n);
        }
      }
      const key = host.tempKey(n);
      if (key !== undefined) {
        host.catalog.tables.delete(key);
        host.dropTemp(n);
      } else host.catalog.tables.delete(n);
    }
  }
  return result(tagName, tagName, { notices });
}

/**
 * Foreign keys of tables that stay which reference a table being dropped: 2BP01, or with CASCADE
 * the constraint goes (not the referencing table), as in PostgreSQL.
 */
function dropReferences(host: UtilityHost, dropping: readonly string[], cascade: boolean, notices: string[]): void {
  for (const n of dropping) {
    const refs = referencingTables(host, n).filter((r) => !dropping.includes(r.table.name));
    if (refs.length > 0 && !cascade) {
      throw new QuireError('2BP01', `cannot drop table ${n} because other objects depend on it`, {
        detail: refs.map((r) => `constraint ${r.fk.name} on table ${r.table.name} depends on table ${n}`).join('\n'),
        hint: 'Use DROP ... CASCADE to drop the dependent objects too.',
      });
    }
    for (const r of refs) {
      notices.push(`drop cascades to constraint ${r.fk.name} on table ${r.table.name}`);
      r.table.foreignKeys = r.table.foreignKeys.filter((f) => f !== r.fk);
    }
  }
}

function tableNamed(host: UtilityHost, n: string): unknown {
  const key = host.tempKey(n);
  return host.catalog.tables.get(key ?? n);
}

/**
 * The tables DROP TABLE removes: those named and, with CASCADE, every table inheriting from them;
 * without CASCADE an inheriting table not itself named is 2BP01, as PostgreSQL's dependency check.
 */
function withDescendants(host: UtilityHost, names: readonly string[], cascade: boolean, notices: string[]): string[] {
  const out = [...names];
  for (let i = 0; i < out.length; i++) {
    const t = tableNamed(host, out[i]!);
    if (!(t instanceof MemoryTable)) continue;
    for (const c of t.inheritance.children) {
      if (out.includes(c)) continue;
      if (!cascade) {
        throw new QuireError('2BP01', `cannot drop table ${out[i]} because other objects depend on it`, {
          detail: `table ${c} depends on table ${out[i]}`,
          hint: 'Use DROP ... CASCADE to drop the dependent objects too.',
        });
      }
      notices.push(`drop cascades to table ${c}`);
      out.push(c);
    }
  }
  return out;
}
