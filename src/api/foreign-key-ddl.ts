/**
 * FOREIGN KEY definitions: a column's REFERENCES or a table's FOREIGN KEY (…) REFERENCES in CREATE
 * TABLE, and ALTER TABLE … ADD / DROP CONSTRAINT. Checked as PostgreSQL checks them: the referenced
 * columns must be the parent's PRIMARY KEY or one of its UNIQUE keys (42830), the column types must
 * be comparable (42804), and omitted referenced columns mean the primary key.
 */
import { checkStorageParameters } from './storage-parameters.js';
import type { Node } from '@pgsql/types';
import { QuireError, positionOf } from '../common/errors.js';
import { typeDisplayName, type DataType, type Field } from '../common/types.js';
import { nodeBody, nodeTag, strings, type AnyNode } from '../sql/ast.js';
import type { ForeignKey, ReferentialAction } from '../storage/foreign-key.js';
import { MemoryTable } from '../storage/memory-table.js';
import { chooseForeignKeyName } from './constraint-names.js';
import { checkExistingRows, linkOf, matchingKey } from './foreign-key-checks.js';
import type { QueryResult } from './database.js';
import { relName, result } from './statement-support.js';
import type { UtilityHost } from './utility.js';

const pos = positionOf;

/** The referencing table as far as a definition needs it (in CREATE TABLE, before it exists). */
export interface ChildShape {
  readonly name: string;
  readonly fields: readonly Field[];
  readonly uniqueKeys: readonly (readonly number[])[];
  readonly primaryKey: boolean;
  readonly uniqueNames: readonly string[];
}

/** Type families whose members compare within one btree operator family (PostgreSQL's integer_ops, float_ops, …). */
function family(t: DataType): string {
  switch (t.name) {
    case 'int2':
    case 'int4':
    case 'int8':
      return 'integer';
    case 'float4':
    case 'float8':
      return 'float';
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'name':
      return 'string';
    case 'date':
    case 'timestamp':
    case 'timestamptz':
      return 'datetime';
    default:
      return t.name;
  }
}

/**
 * Whether a referencing column of type `child` can reference one of type `parent`: the same operator
 * family, or an implicit cast of the child type to the parent's (integer to numeric, to float).
 */
function comparable(child: DataType, parent: DataType): boolean {
  const c = family(child);
  const p = family(parent);
  return c === p || (p === 'numeric' && c === 'integer') || (p === 'float' && (c === 'integer' || c === 'numeric'));
}

function columnIndex(fields: readonly Field[], name: string, location: number | undefined): number {
  const i = fields.findIndex((f) => f.name === name);
  if (i < 0) throw new QuireError('42703', `column "${name}" referenced in foreign key constraint does not exist`, { position: pos(location) });
  return i;
}

/** Every constraint name in use: unique keys and foreign keys of all tables. */
export function constraintNames(host: UtilityHost): Set<string> {
  const taken = new Set<string>();
  for (const t of host.catalog.tables.values()) {
    if (!(t instanceof MemoryTable)) continue;
    for (const n of t.uniqueNames) taken.add(n);
    for (const fk of t.foreignKeys) taken.add(fk.name);
  }
  return taken;
}

/**
 * The foreign key a Constraint node defines on `child`: `column` is the column a REFERENCES clause
 * is written on (null for a table constraint). `names` holds constraint names in use, the chosen one
 * added. A parent named like the child is the child itself (a self-reference).
 */
export function defineForeignKey(host: UtilityHost, child: ChildShape, con: AnyNode, column: number | null, names: Set<string>, existing: readonly ForeignKey[]): ForeignKey {
  const at = con.location as number | undefined;
  if (con.fk_matchtype === 'p') throw new QuireError('0A000', 'MATCH PARTIAL not yet implemented', { position: pos(at) });
  if (con.initdeferred === true) throw new QuireError('0A000', 'INITIALLY DEFERRED foreign keys are not supported', { position: pos(at), hint: 'Quire checks foreign keys at the end of each statement.' });
  const cols = column !== null ? [column] : strings(con.fk_attrs as Node[]).map((n) => columnIndex(child.fields, n, at));
  const rv = con.pktable as AnyNode;
  const pname = relName(rv);
  const self = pname === child.name && (rv.schemaname === undefined || rv.schemaname === 'public');
  const parent: ChildShape = self ? child : shapeOf(host.catalog.getMemoryTableIn(rv.schemaname as string | undefined, pname, pos(rv.location as number)));
  let parentCols: number[];
  const pkAttrs = (con.pk_attrs as Node[] | undefined) ?? [];
  if (pkAttrs.length === 0) {
    if (!parent.primaryKey || parent.uniqueKeys.length === 0) throw new QuireError('42704', `there is no primary key for referenced table "${parent.name}"`);
    parentCols = [...parent.uniqueKeys[0]!];
  } else parentCols = strings(pkAttrs).map((n) => columnIndex(parent.fields, n, at));
  if (parentCols.length !== cols.length) throw new QuireError('42830', 'number of referencing and referenced columns for foreign key disagree');
  if (pkAttrs.length > 0 && matchingKey(parent, parentCols) === undefined) {
    throw new QuireError('42830', `there is no unique constraint matching given keys for referenced table "${parent.name}"`);
  }
  const written = con.conname as string | undefined;
  if (written !== undefined && (existing.some((f) => f.name === written) || child.uniqueNames.includes(written))) {
    throw new QuireError('42710', `constraint "${written}" for relation "${child.name}" already exists`);
  }
  const name = written ?? chooseForeignKeyName(child.name, cols.map((c) => child.fields[c]!.name), names);
  names.add(name);
  cols.forEach((c, k) => {
    const ct = child.fields[c]!.type;
    const pt = parent.fields[parentCols[k]!]!.type;
    if (!comparable(ct, pt)) {
      throw new QuireError('42804', `foreign key constraint "${name}" cannot be implemented`, {
        detail: `Key columns "${child.fields[c]!.name}" of the referencing table and "${parent.fields[parentCols[k]!]!.name}" of the referenced table are of incompatible types: ${typeDisplayName(ct)} and ${typeDisplayName(pt)}.`,
      });
    }
  });
  const setCols = (con.fk_del_set_cols as Node[] | undefined) ?? [];
  const deleteSetCols = strings(setCols).map((n) => {
    const i = columnIndex(child.fields, n, at);
    if (!cols.includes(i)) throw new QuireError('42P10', `column "${n}" referenced in ON DELETE SET action must be part of foreign key`);
    return i;
  });
  return {
    name,
    cols,
    parent: pname,
    parentCols,
    onUpdate: ((con.fk_upd_action as string | undefined) ?? 'a') as ReferentialAction,
    onDelete: ((con.fk_del_action as string | undefined) ?? 'a') as ReferentialAction,
    match: con.fk_matchtype === 'f' ? 'f' : 's',
    ...(deleteSetCols.length > 0 ? { deleteSetCols } : {}),
  };
}

function shapeOf(t: MemoryTable): ChildShape {
  return { name: t.name, fields: t.schema, uniqueKeys: t.uniqueKeys, primaryKey: t.primaryKey, uniqueNames: t.uniqueNames };
}

/** The tables whose foreign keys reference `name`, other than `name` itself. */
export function referencingTables(host: UtilityHost, name: string): { table: MemoryTable; fk: ForeignKey }[] {
  const out: { table: MemoryTable; fk: ForeignKey }[] = [];
  for (const t of host.catalog.tables.values()) {
    if (!(t instanceof MemoryTable) || t.name === name) continue;
    for (const fk of t.foreignKeys) if (fk.parent === name) out.push({ table: t, fk });
  }
  return out;
}

/**
 * ALTER TABLE: ADD [CONSTRAINT name] FOREIGN KEY (checking the rows already there) and DROP
 * CONSTRAINT of a foreign key; other subcommands are not supported.
 */
export function alterTable(host: UtilityHost, b: AnyNode): QueryResult {
  const rv = b.relation as AnyNode;
  const name = relName(rv);
  if (b.objtype !== undefined && b.objtype !== 'OBJECT_TABLE') throw new QuireError('0A000', `ALTER ${String(b.objtype).replace('OBJECT_', '')} is not supported`);
  let t: MemoryTable;
  try {
    t = host.catalog.getMemoryTableIn(rv.schemaname as string | undefined, name, pos(rv.location as number));
  } catch (e) {
    if (b.missing_ok === true && e instanceof QuireError && e.code === '42P01') return result('ALTER TABLE', 'ALTER TABLE', { notices: [`relation "${name}" does not exist, skipping`] });
    throw e;
  }
  const key = host.tempKey(name) ?? name;
  const notices: string[] = [];
  for (const c of (b.cmds as Node[] | undefined) ?? []) {
    const cmd = nodeBody<AnyNode>(c);
    const def = cmd.def as Node | undefined;
    if (cmd.subtype === 'AT_AddConstraint' && def !== undefined && nodeTag(def) === 'Constraint' && nodeBody<AnyNode>(def).contype === 'CONSTR_FOREIGN') {
      const con = nodeBody<AnyNode>(def);
      const fk = defineForeignKey(host, shapeOf(t), con, null, constraintNames(host), t.foreignKeys);
      const next = [...t.foreignKeys, fk];
      // NOT VALID skips the rows already there, as in PostgreSQL (new rows are checked all the same).
      if (con.skip_validation !== true && con.initially_valid !== false) {
        const probe = t.cloneForTransaction();
        probe.foreignKeys = next;
        const link = linkOf(host, key, probe, fk);
        if (link !== null) checkExistingRows(link);
      }
      t.foreignKeys = next;
    } else if (cmd.subtype === 'AT_DropConstraint') {
      const cname = cmd.name as string;
      const k = t.foreignKeys.findIndex((f) => f.name === cname);
      if (k >= 0) {
        t.foreignKeys = t.foreignKeys.filter((_, i) => i !== k);
        continue;
      }
      const u = t.uniqueNames.indexOf(cname);
      if (u >= 0 && !t.indexKeyNames.includes(cname)) {
        dropUniqueConstraint(host, t, u, cmd.behavior === 'DROP_CASCADE', notices);
        continue;
      }
      if (cmd.missing_ok === true) {
        notices.push(`constraint "${cname}" of relation "${t.name}" does not exist, skipping`);
        continue;
      }
      throw new QuireError('42704', `constraint "${cname}" of relation "${t.name}" does not exist`);
    } else if (cmd.subtype === 'AT_SetRelOptions' || cmd.subtype === 'AT_ResetRelOptions') {
      const list = def === undefined ? [] : nodeTag(def) === 'List' ? ((nodeBody<AnyNode>(def).items as Node[] | undefined) ?? []) : [def];
      checkStorageParameters(list, cmd.subtype === 'AT_SetRelOptions' ? 'set' : 'reset');
    } else {
      throw new QuireError('0A000', `ALTER TABLE ${String(cmd.subtype).replace(/^AT_/, '')} is not supported`, { position: pos(rv.location as number) });
    }
  }
  return result('ALTER TABLE', 'ALTER TABLE', { notices });
}

/** DROP CONSTRAINT of a PRIMARY KEY or UNIQUE constraint: foreign keys that need it block it (2BP01) or, with CASCADE, go too. */
function dropUniqueConstraint(host: UtilityHost, t: MemoryTable, k: number, cascade: boolean, notices: string[]): void {
  const cname = t.uniqueNames[k]!;
  const key = t.uniqueKeys[k]!;
  const users = [...referencingTables(host, t.name), ...t.foreignKeys.filter((f) => f.parent === t.name).map((fk) => ({ table: t, fk }))].filter(
    (r) => matchingKey({ uniqueKeys: [key] }, r.fk.parentCols) !== undefined && matchingKey({ uniqueKeys: t.uniqueKeys.filter((_, i) => i !== k) }, r.fk.parentCols) === undefined,
  );
  if (users.length > 0 && !cascade) {
    const r = users[0]!;
    throw new QuireError('2BP01', `cannot drop constraint ${cname} on table ${t.name} because other objects depend on it`, {
      detail: `constraint ${r.fk.name} on table ${r.table.name} depends on index ${cname}`,
      hint: 'Use DROP ... CASCADE to drop the dependent objects too.',
    });
  }
  for (const r of users) {
    notices.push(`drop cascades to constraint ${r.fk.name} on table ${r.table.name}`);
    r.table.foreignKeys = r.table.foreignKeys.filter((f) => f !== r.fk);
  }
  if (k === 0 && t.primaryKey) t.primaryKey = false;
  t.uniqueKeys = t.uniqueKeys.filter((_, i) => i !== k);
  t.uniqueNames = t.uniqueNames.filter((_, i) => i !== k);
}

/**
 * TRUNCATE of a referenced table: the referencing tables must be truncated in the same statement
 * (0A000), or with CASCADE they are added to `emptied` (and theirs in turn).
 */
export function truncateReferencing(host: UtilityHost, emptied: MemoryTable[], cascade: boolean): string[] {
  const notices: string[] = [];
  for (let i = 0; i < emptied.length; i++) {
    const t = emptied[i]!;
    for (const r of referencingTables(host, t.name)) {
      if (emptied.some((e) => e.name === r.table.name)) continue;
      if (!cascade) {
        throw new QuireError('0A000', 'cannot truncate a table referenced in a foreign key constraint', {
          detail: `Table "${r.table.name}" references "${t.name}".`,
          hint: `Truncate table "${r.table.name}" at the same time, or use TRUNCATE ... CASCADE.`,
        });
      }
      notices.push(`truncate cascades to table "${r.table.name}"`);
      emptied.push(r.table);
    }
  }
  return notices;
}
