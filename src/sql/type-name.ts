/** Resolves a SQL type name (as written: `int`, `varchar(10)`, `timestamp with time zone`) to a DataType. */
import type { TypeName as PgTypeName } from '@pgsql/types';
import { QuireError, positionOf } from '../common/errors.js';
import { intervalTypmod } from '../common/interval-typmod.js';
import { arrayTypeOf, compositeType, type, typeDisplayName, type CompositeType, type DataType, type TypeName } from '../common/types.js';
import { nodeBody, strings } from './ast.js';

const ALIASES: Record<string, TypeName> = {
  bool: 'bool',
  boolean: 'bool',
  int2: 'int2',
  smallint: 'int2',
  smallserial: 'int2',
  serial2: 'int2',
  int4: 'int4',
  int: 'int4',
  integer: 'int4',
  serial: 'int4',
  serial4: 'int4',
  int8: 'int8',
  bigint: 'int8',
  bigserial: 'int8',
  serial8: 'int8',
  float4: 'float4',
  real: 'float4',
  float8: 'float8',
  'double precision': 'float8',
  float: 'float8',
  numeric: 'numeric',
  decimal: 'numeric',
  text: 'text',
  varchar: 'varchar',
  'character varying': 'varchar',
  bpchar: 'bpchar',
  char: 'bpchar',
  character: 'bpchar',
  name: 'name',
  date: 'date',
  timestamp: 'timestamp',
  'timestamp without time zone': 'timestamp',
  timestamptz: 'timestamptz',
  'timestamp with time zone': 'timestamptz',
  interval: 'interval',
  time: 'time',
  'time without time zone': 'time',
  timetz: 'timetz',
  'time with time zone': 'timetz',
  json: 'json',
  point: 'point',
  money: 'money',
  oid: 'oid',
  bytea: 'bytea',
  bit: 'bit',
  varbit: 'varbit',
  'bit varying': 'varbit',
  unknown: 'unknown',
};

export function lookupTypeName(name: string): TypeName | undefined {
  const lower = name.toLowerCase();
  const t = ALIASES[lower];
  if (t !== undefined) return t;
  // PostgreSQL's internal array names: _int4 is int4[].
  const elem = lower.startsWith('_') ? ALIASES[lower.slice(1)] : undefined;
  return elem !== undefined && elem !== 'unknown' && lower.slice(1) === elem ? (`_${elem}` as TypeName) : undefined;
}

function intMods(tn: PgTypeName): number[] {
  return (tn.typmods ?? []).map((m) => {
    const c = nodeBody<{ ival?: { ival?: number }; location?: number }>(m);
    if (c.ival === undefined) throw new QuireError('22023', 'type modifiers must be simple constants or identifiers', { position: positionOf(c.location) });
    return c.ival.ival ?? 0;
  });
}

/** Named composite types of the catalog (CREATE TYPE … AS), by name. */
export type UserTypes = ReadonlyMap<string, CompositeType>;

export function resolveTypeName(tn: PgTypeName, userTypes?: UserTypes): DataType {
  const t = resolveScalarTypeName(tn, userTypes);
  if (!tn.arrayBounds || tn.arrayBounds.length === 0) return t;
  // PostgreSQL ignores the number of brackets and any sizes (int[3][] is int[]), and so do we.
  const arr = arrayTypeOf(t);
  if (arr === null || t.name === 'unknown') {
    throw new QuireError('0A000', `arrays of type ${typeDisplayName(t)} are not supported`, { position: positionOf(tn.location) });
  }
  return arr;
}

function resolveScalarTypeName(tn: PgTypeName, userTypes: UserTypes | undefined): DataType {
  let parts = strings(tn.names);
  if (parts.length === 2 && parts[0] === 'pg_catalog') parts = [parts[1]!];
  if (parts.length === 2 && parts[0] === 'public') parts = [parts[1]!];
  const raw = parts.join('.');
  const pos = positionOf(tn.location);
  const name = lookupTypeName(raw);
  const user = name === undefined ? userTypes?.get(raw) : undefined;
  if (user !== undefined) return compositeType(user);
  if (name === undefined) throw new QuireError('42704', `type "${raw}" does not exist`, { position: pos });
  const mods = intMods(tn);
  if (mods.length === 0) {
    if (name === 'bpchar' && raw !== 'bpchar') return type('bpchar', 1 + 4);
    if (raw === 'float' || raw === 'float8') return type('float8');
    return type(name);
  }
  switch (name) {
    case 'varchar':
    case 'bpchar': {
      const n = mods[0]!;
      if (n < 1) throw new QuireError('22023', `length for type ${name === 'varchar' ? 'varchar' : 'char'} must be at least 1`, { position: pos });
      return type(name, n + 4);
    }
    case 'numeric': {
      const p = mods[0]!;
      const s = mods[1] ?? 0;
      if (p < 1 || p > 1000) throw new QuireError('22023', `NUMERIC precision ${p} must be between 1 and 1000`, { position: pos });
      if (s < -1000 || s > 1000) throw new QuireError('22023', `NUMERIC scale ${s} must be between -1000 and 1000`, { position: pos });
      return type('numeric', ((p << 16) | (s & 0xffff)) + 4);
    }
    case 'float8':
      // float(p): 1..24 is real, 25..53 double precision, as in PostgreSQL.
      if (raw === 'float') {
        const p = mods[0]!;
        if (p < 1) throw new QuireError('22023', 'precision for type float must be at least 1 bit', { position: pos });
        if (p > 53) throw new QuireError('22023', 'precision for type float must be less than 54 bits', { position: pos });
        return type(p <= 24 ? 'float4' : 'float8');
      }
      return type('float8');
    case 'timestamp':
    case 'timestamptz': {
      const p = mods[0]!;
      if (mods.length > 1) throw new QuireError('22023', `invalid type modifier`, { position: pos });
      if (p < 0) throw new QuireError('22023', `TIMESTAMP(${p})${name === 'timestamptz' ? ' WITH TIME ZONE' : ''} precision must not be negative`, { position: pos });
      // PostgreSQL reduces a precision above 6 to 6 (with a warning).
      return type(name, Math.min(p, 6));
    }
    case 'interval':
      return type(name, intervalTypmod(mods, pos));
    case 'time':
    case 'timetz': {
      const p = mods[0]!;
      if (mods.length > 1) throw new QuireError('22023', `invalid type modifier`, { position: pos });
      if (p < 0) throw new QuireError('22023', `TIME(${p})${name === 'timetz' ? ' WITH TIME ZONE' : ''} precision must not be negative`, { position: pos });
      // PostgreSQL reduces a precision above 6 to 6 (with a warning).
      return type(name, Math.min(p, 6));
    }
    case 'bit':
    case 'varbit': {
      const n = mods[0]!;
      if (mods.length > 1) throw new QuireError('22023', `invalid type modifier`, { position: pos });
      if (n < 1) throw new QuireError('22023', `length for type ${name} must be at least 1`, { position: pos });
      if (n > 83886080) throw new QuireError('22023', `length for type ${name} cannot exceed 83886080`, { position: pos });
      return type(name, n);
    }
    default:
      throw new QuireError('42601', `type modifier is not allowed for type "${raw}"`, { position: pos });
  }
}

/** numeric(p, s) typmod → [precision, scale]. */
export function numericTypmod(t: DataType): [number, number] | null {
  if (t.name !== 'numeric' || t.typmod < 0) return null;
  const m = t.typmod - 4;
  const p = (m >> 16) & 0xffff;
  let s = m & 0xffff;
  if (s > 0x7fff) s -= 0x10000;
  return [p, s];
}
