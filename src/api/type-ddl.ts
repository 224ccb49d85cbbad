/**
 * CREATE TYPE name AS (field type, …) and DROP TYPE: named composite types in the catalog. A type in use
 * (by a column, a routine's signature, an aggregate's state or another type's field) is only dropped with
 * CASCADE, which drops the routines and types that use it, as PostgreSQL's dependency tracking does.
 */
import type { Node, TypeName as PgTypeName } from '@pgsql/types';
import { QuireError, positionOf } from '../common/errors.js';
import { typeDisplayName, type CompositeType, type DataType, type Field } from '../common/types.js';
import { nodeBody, strings, type AnyNode } from '../sql/ast.js';
import { resolveTypeName } from '../sql/type-name.js';
import type { Catalog, RoutineType } from '../storage/catalog.js';
import { routineTypeName } from './routine-ddl.js';

// Type OIDs are only shown (pg_typeof's regtype, the wire protocol): unique for the process is enough.
// Each type takes two: its row type and its array type, as in PostgreSQL.
let nextTypeOid = 90000;

/** The name a statement gives, checked to be in the schemas Quire has (public, pg_temp). */
function objectName(parts: string[], loc: number | undefined): string {
  if (parts.length > 2 || (parts.length === 2 && parts[0] !== 'public')) {
    throw new QuireError('3F000', `schema "${parts[0]}" does not exist`, { position: positionOf(loc) });
  }
  return parts[parts.length - 1]!;
}

export function createCompositeType(catalog: Catalog, b: AnyNode): void {
  const rv = nodeBody<AnyNode>({ RangeVar: b.typevar } as unknown as Node);
  const name = objectName([rv.schemaname as string | undefined, rv.relname as string].filter((x): x is string => x !== undefined), rv.location as number | undefined);
  if (catalog.types.has(name) || resolvesToBuiltin(name)) throw new QuireError('42710', `type "${name}" already exists`);
  // A table or view has a row type of its own name, as in PostgreSQL.
  if (catalog.tables.has(name) || catalog.views.has(name)) throw new QuireError('42710', `type "${name}" already exists`);
  const fields: Field[] = [];
  for (const c of (b.coldeflist as Node[] | undefined) ?? []) {
    const cd = nodeBody<AnyNode>(c);
    const fname = cd.colname as string;
    if (fields.some((f) => f.name === fname)) throw new QuireError('42701', `column "${fname}" specified more than once`);
    const t = resolveTypeName(cd.typeName as PgTypeName, catalog.types);
    if (t.name === 'unknown' || (t.name === 'record' && t.composite === undefined)) throw new QuireError('42P16', `column "${fname}" has pseudo-type ${typeDisplayName(t)}`);
    fields.push({ name: fname, type: t });
  }
  const oid = nextTypeOid;
  nextTypeOid += 2;
  catalog.types.set(name, { name, oid, fields });
}

function resolvesToBuiltin(name: string): boolean {
  try {
    resolveTypeName({ names: [{ String: { sval: name } }], typemod: -1 } as unknown as PgTypeName);
    return true;
  } catch {
    return false;
  }
}

function usesType(t: DataType | RoutineType | 'void' | undefined, c: CompositeType): boolean {
  return typeof t === 'object' && t.composite === c;
}

/** Objects that depend on a type, as PostgreSQL names them in DROP's messages. */
interface Dependent {
  readonly description: string;
  readonly drop: (() => void) | null;
}

function dependentsOf(catalog: Catalog, c: CompositeType): Dependent[] {
  const out: Dependent[] = [];
  for (const [tname, other] of catalog.types) {
    if (other === c) continue;
    for (const f of other.fields) {
      if (usesType(f.type, c)) out.push({ description: `column ${f.name} of composite type ${tname}`, drop: null });
    }
  }
  for (const t of catalog.tables.values()) {
    for (const f of t.schema) {
      if (usesType(f.type, c)) out.push({ description: `column ${f.name} of table ${t.name}`, drop: null });
    }
  }
  for (const [fname, defs] of catalog.functions) {
    for (const fn of defs) {
      const types = fn.params.map((p) => p.type);
      const declared = (fn.plpgsql?.declared ?? []).some((d) => typeof d.type !== 'number' && usesType(d.type, c));
      if (!declared && !types.some((t) => usesType(t, c)) && !usesType(fn.returns, c) && !(fn.columns ?? []).some((f) => usesType(f.type, c))) continue;
      out.push({
        description: `function ${fname}(${types.map(routineTypeName).join(',')})`,
        drop: () => {
          const rest = (catalog.functions.get(fname) ?? []).filter((x) => x !== fn);
          if (rest.length === 0) catalog.functions.delete(fname);
          else catalog.functions.set(fname, rest);
        },
      });
    }
  }
  for (const [aname, defs] of catalog.aggregates) {
    for (const a of defs) {
      if (!a.args.some((t) => usesType(t, c)) && !usesType(a.stype, c)) continue;
      out.push({
        description: `function ${aname}(${a.args.map(routineTypeName).join(',')})`,
        drop: () => {
          const rest = (catalog.aggregates.get(aname) ?? []).filter((x) => x !== a);
          if (rest.length === 0) catalog.aggregates.delete(aname);
          else catalog.aggregates.set(aname, rest);
        },
      });
    }
  }
  return out;
}

/** DROP TYPE [IF EXISTS] name, … [CASCADE]; returns the notices. */
export function dropTypes(catalog: Catalog, b: AnyNode): string[] {
  const notices: string[] = [];
  const cascade = b.behavior === 'DROP_CASCADE';
  const victims: { name: string; c: CompositeType; deps: Dependent[] }[] = [];
  for (const o of (b.objects as Node[] | undefined) ?? []) {
    const tn = nodeBody<PgTypeName>(o);
    const parts = strings((tn.names ?? []) as Node[]);
    if (parts[0] === 'pg_catalog' || (parts.length === 1 && !catalog.types.has(parts[0]!) && resolvesToBuiltin(parts[0]!))) {
      const shown = typeDisplayName(resolveTypeName(tn));
      throw new QuireError('2BP01', `cannot drop type ${shown} because it is required by the database system`);
    }
    const name = objectName(parts, tn.location);
    const c = catalog.types.get(name);
    if (c === undefined) {
      if (b.missing_ok === true) {
        notices.push(`type "${name}" does not exist, skipping`);
        continue;
      }
      throw new QuireError('42704', `type "${name}" does not exist`, { position: positionOf(tn.location) });
    }
    victims.push({ name, c, deps: dependentsOf(catalog, c) });
  }
  for (const v of victims) {
    const deps = v.deps.filter((d) => !(d.drop === null && victims.some((w) => d.description.endsWith(`of composite type ${w.name}`))));
    if (deps.length === 0) continue;
    if (!cascade) {
      throw new QuireError('2BP01', `cannot drop type ${v.name} because other objects depend on it`, {
        detail: deps.map((d) => `${d.description} depends on type ${v.name}`).join('\n'),
        hint: 'Use DROP ... CASCADE to drop the dependent objects too.',
      });
    }
    const stuck = deps.find((d) => d.drop === null);
    if (stuck !== undefined) throw new QuireError('0A000', `DROP TYPE … CASCADE cannot drop ${stuck.description}`);
  }
  for (const v of victims) {
    const deps = v.deps.filter((d) => d.drop !== null);
    if (deps.length === 1) notices.push(`drop cascades to ${deps[0]!.description}`);
    else if (deps.length > 1) notices.push(`drop cascades to ${deps.length} other objects`);
    for (const d of deps) d.drop!();
    catalog.types.delete(v.name);
  }
  return notices;
}
