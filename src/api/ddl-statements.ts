/** CREATE TABLE [AS], SELECT INTO, CREATE VIEW, DROP TABLE/VIEW/SEQUENCE, sequence DDL and CREATE AGGREGATE's probe. */
import type { Node, SelectStmt } from '@pgsql/types';
import { QuireError, positionOf } from '../common/errors.js';
import { T, type DataType, type Field } from '../common/types.js';
import type { Batch } from '../common/column.js';
import { nodeBody, nodeTag, strings, type AnyNode } from '../sql/ast.js';
import { resolveTypeName } from '../sql/type-name.js';
import { tempTableKey } from '../storage/catalog.js';
import { MemoryTable, type ColumnMeta } from '../storage/memory-table.js';
import { aggregateProbe, createAggregate } from './routine-ddl.js';
import { alterSequence, createSequence, dropSequence, identityCounter } from './sequence-ddl.js';
import type { QueryResult } from './database.js';
import type { UtilityHost } from './utility.js';
import { binderFor, relName, result } from './statement-support.js';

const pos = positionOf;

export function defineAggregate(host: UtilityHost, b: AnyNode, sql: string): void {
  const before = host.catalog.aggregates.get(strings(b.defnames as Node[]).pop()!);
  const def = createAggregate(host.catalog, b, sql);
  const probe = aggregateProbe(def);
  if (probe === null) return;
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
      case 'CONSTR_FOREIGN':
        throw new QuireError('0A000', `${cb.contype === 'CONSTR_CHECK' ? 'CHECK' : 'FOREIGN KEY'} constraints are not supported`, { position: pos(cb.location as number) });
      default:
        break;
    }
  }
  return { meta, unique, primary };
}

export function createTable(host: UtilityHost, b: AnyNode): QueryResult {
  const rv = b.relation as AnyNode;
  const name = relName(rv);
  if (b.inhRelations) throw new QuireError('0A000', 'table inheritance is not supported');
  const fields: Field[] = [];
  const meta: ColumnMeta[] = [];
  const uniques: number[][] = [];
  for (const e of (b.tableElts as Node[] | undefined) ?? []) {
    const tag = nodeTag(e);
    const eb = nodeBody<AnyNode>(e);
    if (tag === 'ColumnDef') {
      const cname = eb.colname as string;
      if (fields.some((f) => f.name === cname)) throw new QuireError('42701', `column "${cname}" specified more than once`, { position: pos(eb.location as number) });
      const type = resolveTypeName(eb.typeName as never);
      const m = columnMetaFrom(eb, type);
      fields.push({ name: cname, type, table: name });
      meta.push(m.meta);
      if (m.unique || m.primary) uniques.push([fields.length - 1]);
    } else if (tag === 'Constraint') {
      const ct = eb.contype as string;
      if (ct === 'CONSTR_PRIMARY' || ct === 'CONSTR_UNIQUE') {
        const cols = strings(eb.keys as Node[]).map((k) => {
          const i = fields.findIndex((f) => f.name === k);
          if (i < 0) throw new QuireError('42703', `column "${k}" named in key does not exist`, { position: pos(eb.location as number) });
          if (ct === 'CONSTR_PRIMARY') meta[i]!.notNull = true;
          return i;
        });
        uniques.push(cols);
      } else if (ct === 'CONSTR_CHECK' || ct === 'CONSTR_FOREIGN') {
        throw new QuireError('0A000', `${ct === 'CONSTR_CHECK' ? 'CHECK' : 'FOREIGN KEY'} constraints are not supported`, { position: pos(eb.location as number) });
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
  const t = new MemoryTable(name, fields, meta);
  t.uniqueKeys = uniques;
  const temp = (b.relation as AnyNode).relpersistence === 't';
  const created = host.catalog.addTable(t, b.if_not_exists === true, temp ? tempTableKey(host.session.id, name) : name);
  if (created && temp) host.addTemp(name);
  return result('CREATE TABLE', 'CREATE TABLE', { notices: created ? [] : [`relation "${name}" already exists, skipping`] });
}

export async function materialize(host: UtilityHost, stmt: SelectStmt, params: readonly unknown[]): Promise<{ fields: Field[]; batches: Batch[] }> {
  const prepared = host.prepareSelect(stmt, params);
  const ctx = host.execContext(prepared.paramTypes, params, false);
  const op = await host.physical(prepared.plan, ctx);
  const batches = await host.collectBatches(op, ctx);
  return { fields: prepared.columns.map((c) => ({ name: c.name, type: c.type })), batches };
}

async function createTableFromQuery(host: UtilityHost, into: AnyNode, query: SelectStmt, params: readonly unknown[], ifNotExists: boolean, withData: boolean): Promise<QueryResult> {
  const rv = into.rel as AnyNode;
  const name = relName(rv);
  const temp = rv.relpersistence === 't';
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
  // Bind once now so errors surface at CREATE time, as in PostgreSQL.
  host.prepareSelect(nodeBody<SelectStmt>(query), []);
  host.catalog.addView({ name, query, columnNames: b.aliases ? strings(b.aliases as Node[]) : null, sql }, b.replace === true);
  return result('CREATE VIEW', 'CREATE VIEW');
}

/** CREATE SEQUENCE / ALTER SEQUENCE (src/api/sequence-ddl.ts). */
export function sequenceStatement(host: UtilityHost, tag: 'CreateSeqStmt' | 'AlterSeqStmt', b: AnyNode): QueryResult {
  return tag === 'CreateSeqStmt' ? createSequence(host, b) : alterSequence(host, b);
}

export function drop(host: UtilityHost, b: AnyNode): QueryResult {
  const type = b.removeType as string;
  if (type === 'OBJECT_SEQUENCE') return dropSequence(host, b);
  const kind = type === 'OBJECT_VIEW' ? 'view' : type === 'OBJECT_TABLE' ? 'table' : type === 'OBJECT_INDEX' ? 'index' : null;
  if (kind === null) throw new QuireError('0A000', `DROP ${type.replace('OBJECT_', '')} is not supported`);
  const notices: string[] = [];
  const tagName = kind === 'view' ? 'DROP VIEW' : kind === 'index' ? 'DROP INDEX' : 'DROP TABLE';
  if (kind === 'index') return result(tagName, tagName);
  const names = ((b.objects as Node[]) ?? []).map((o) => strings(nodeBody<AnyNode>(o).items as Node[]).pop()!);
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
  for (const n of names) {
    if (kind === 'view') host.catalog.views.delete(n);
    else {
      const key = host.tempKey(n);
      if (key !== undefined) {
        host.catalog.tables.delete(key);
        host.dropTemp(n);
      } else host.catalog.tables.delete(n);
    }
  }
  return result(tagName, tagName, { notices });
}
