/**
 * The slice of pg_catalog and information_schema that PostgreSQL clients read: psql's \d and \dt,
 * drivers' type lookups, DBeaver's connect-time probes. These are real (virtual) tables: each scan
 * computes its rows from the live catalog, so they answer ordinary SQL (joins, filters, ORDER BY)
 * through the engine instead of canned answers to exact query strings.
 *
 * They live in a per-connection catalog *view* (see `systemCatalogView`) rather than in the shared
 * Catalog, so library users, the CLI's \dt and the REST server never see them, and so pg_settings
 * can show the connection's own session.
 *
 * Engine types stand in for PostgreSQL's system types: oid, regproc and int2vector columns are int4
 * (or text), name and "char" are text; arrays (reloptions, indkey …) are text and always null or empty.
 */
import type { Node } from '@pgsql/types';
import { T, TYPE_OID, category as typeCategory, typeDisplayName, type DataType, type Field, type TypeName, type Value } from '../../common/types.js';
import { ColumnBuilder, type Batch } from '../../common/column.js';
import { registerScalar } from '../../functions/registry.js';
import type { EvalContext } from '../../functions/eval-context.js';
import type { TableSource } from '../../logical/plan.js';
import { Catalog, isTempTableKey, tempTableKey, type RoutineType } from '../../storage/catalog.js';
import { catalogSequences, type Sequence } from '../../storage/sequence.js';
import type { Session } from '../../api/session.js';
import { TYPE_LEN, oidOf } from './types.js';
import { constraintDef, constraintRows, informationSchemaRows, pgConstraintRow, PG_CONSTRAINT_COLS } from './constraints.js';
import { ACCESS_METHODS, indexDefColumn, indexRows, pgIndexRow, PG_INDEX_COLS, type IndexRow } from './indexes.js';
import { searchPath } from '../../functions/scalar/support/search-path.js';

export const NS_PG_CATALOG = 11;
export const NS_PUBLIC = 2200;
export const NS_INFORMATION_SCHEMA = 13183;
const FIRST_USER_OID = 16384;
export const DATABASE_OID = 16383;
const OWNER_OID = 10;

/** OIDs for user relations, stable for the server's lifetime (psql looks a table up by name, then by oid). */
export class OidRegistry {
  private byName = new Map<string, number>();
  private next = FIRST_USER_OID;
  of(name: string): number {
    let o = this.byName.get(name);
    if (o === undefined) {
      o = this.next;
      // Each relation also owns a row type (pg_class.reltype), as in PostgreSQL.
      this.next += 2;
      this.byName.set(name, o);
    }
    return o;
  }
}

// name where PostgreSQL's catalogs have name (relname, attname, …), so clients see OID 19 there as from PostgreSQL.
type ColType = 'int4' | 'int2' | 'int8' | 'text' | 'name' | 'bool' | 'float4' | 'timestamptz' | '_text' | '_int4';
type Col = [string, ColType];

interface SystemTableDef {
  name: string;
  cols: Col[];
  rows: (env: SystemEnv) => Value[][];
}

export interface SystemEnv {
  catalog: Catalog;
  session: () => Session;
  oids: OidRegistry;
  user: string;
  database: string;
}

const TYPE_ROWS: { oid: number; name: string; len: number; cat: string; t: DataType | null }[] = [
  ...(Object.keys(TYPE_OID) as TypeName[])
    .filter((n) => n !== 'unknown')
    .map((n) => ({ oid: TYPE_OID[n], name: n, len: TYPE_LEN[n], cat: category(n), t: T[n] })),
  { oid: 705, name: 'unknown', len: -2, cat: 'X', t: T.unknown },
  { oid: 18, name: 'char', len: 1, cat: 'Z', t: null },
  { oid: 114, name: 'json', len: -1, cat: 'U', t: null },
];

/** pg_type.typcategory of an engine type: the engine's own mapping (common/types.ts). */
function category(n: TypeName): string {
  return typeCategory(T[n]);
}

interface Rel {
  oid: number;
  name: string;
  ns: number;
  kind: 'r' | 'v';
  fields: readonly Field[];
  rows: number | undefined;
  notNull: boolean[];
  source: TableSource | null;
  viewSql: string | null;
  /** pg_class.relpersistence: 't' for the session's TEMP tables. */
  persistence?: 't';
}

function userRelations(env: SystemEnv): Rel[] {
  const out: Rel[] = [];
  for (const [key, t] of env.catalog.tables) {
    // Other sessions' TEMP tables are theirs alone.
    const temp = isTempTableKey(key);
    if (temp && key !== tempTableKey(env.session().id, t.name)) continue;
    const meta = (t as { meta?: { notNull: boolean }[] }).meta;
    out.push({ oid: env.oids.of(key), name: t.name, ns: NS_PUBLIC, kind: 'r', fields: t.schema, rows: t.rowCount(), notNull: t.schema.map((_, i) => meta?.[i]?.notNull ?? false), source: t, viewSql: null, ...(temp ? { persistence: 't' as const } : {}) });
  }
  for (const v of env.catalog.views.values()) {
    out.push({ oid: env.oids.of(v.name), name: v.name, ns: NS_PUBLIC, kind: 'v', fields: viewFields(env, v.name), rows: undefined, notNull: [], source: null, viewSql: v.sql });
  }
  return out.sort((a, b) => a.oid - b.oid);
}

/** The session's sequences (its own TEMP ones, the shared ones, those of serial/identity columns). */
function sequenceRelations(env: SystemEnv): { oid: number; key: string; seq: Sequence; temp: boolean }[] {
  const mine = tempTableKey(env.session().id, '');
  return catalogSequences(env.catalog.sequences, env.catalog.tables)
    .filter(({ key }) => !isTempTableKey(key) || key.startsWith(mine))
    .map(({ key, seq }) => ({ oid: env.oids.of(key), key, seq, temp: isTempTableKey(key) }))
    .sort((a, b) => a.oid - b.oid);
}

/** A view's columns come from binding it; the wire connection registers a resolver for that. */
const viewColumnResolvers = new WeakMap<Catalog, (name: string) => readonly Field[]>();
function viewFields(env: SystemEnv, name: string): readonly Field[] {
  try {
    return viewColumnResolvers.get(env.catalog)?.(name) ?? [];
  } catch {
    // A view whose definition no longer binds (a dropped table) just shows no columns.
    return [];
  }
}
export function setViewColumnResolver(c: Catalog, f: (name: string) => readonly Field[]): void {
  viewColumnResolvers.set(c, f);
}

function systemRelations(): { oid: number; name: string; ns: number; def: SystemTableDef }[] {
  return SYSTEM_TABLES.map((def, i) => {
    const dot = def.name.indexOf('.');
    return { oid: 1000 + i, name: dot < 0 ? def.name : def.name.slice(dot + 1), ns: dot < 0 ? NS_PG_CATALOG : NS_INFORMATION_SCHEMA, def };
  });
}

function formatType(oid: number | null, typmod: number | null): string | null {
  if (oid === null) return null;
  const row = TYPE_ROWS.find((r) => r.oid === oid);
  if (row === undefined) return '???';
  if (row.t === null) return row.name === 'char' ? '"char"' : row.name;
  return typeDisplayName(typmod !== null && typmod >= 0 ? { name: row.t.name, typmod } : row.t);
}

const b = (x: boolean): boolean => x;

const SYSTEM_TABLES: SystemTableDef[] = [
  {
    name: 'pg_namespace',
    cols: [['oid', 'int4'], ['nspname', 'name'], ['nspowner', 'int4'], ['nspacl', 'text']],
    rows: () => [
      [NS_PG_CATALOG, 'pg_catalog', OWNER_OID, null],
      [NS_PUBLIC, 'public', OWNER_OID, null],
      [NS_INFORMATION_SCHEMA, 'information_schema', OWNER_OID, null],
    ],
  },
  {
    name: 'pg_class',
    cols: [
      ['oid', 'int4'], ['relname', 'name'], ['relnamespace', 'int4'], ['reltype', 'int4'], ['reloftype', 'int4'], ['relowner', 'int4'],
      ['relam', 'int4'], ['relfilenode', 'int4'], ['reltablespace', 'int4'], ['relpages', 'int4'], ['reltuples', 'float4'],
      ['relallvisible', 'int4'], ['reltoastrelid', 'int4'], ['relhasindex', 'bool'], ['relisshared', 'bool'], ['relpersistence', 'text'],
      ['relkind', 'text'], ['relnatts', 'int2'], ['relchecks', 'int2'], ['relhasrules', 'bool'], ['relhastriggers', 'bool'],
      ['relhassubclass', 'bool'], ['relrowsecurity', 'bool'], ['relforcerowsecurity', 'bool'], ['relispopulated', 'bool'],
      ['relreplident', 'text'], ['relispartition', 'bool'], ['relrewrite', 'int4'], ['relfrozenxid', 'int4'], ['relminmxid', 'int4'],
      ['relacl', 'text'], ['reloptions', 'text'], ['relpartbound', 'text'],
    ],
    rows: (env) => {
      // A table on either side of a foreign key has triggers in PostgreSQL (psql's \d then lists the keys).
      const triggered = new Set<number>();
      for (const c of constraintRows(env.catalog, env.session().id, (k) => env.oids.of(k))) {
        if (c.type !== 'f') continue;
        triggered.add(c.tableOid);
        if (c.parentOid !== undefined) triggered.add(c.parentOid);
      }
      const row = (oid: number, name: string, ns: number, kind: string, natts: number, tuples: number, am: number, persistence = 'p'): Value[] => [
        oid, name, ns, oid + 1, 0, OWNER_OID, am, oid, 0, 0, tuples, 0, 0, b(false), b(false), persistence, kind, natts, 0, b(kind === 'v'), b(triggered.has(oid)),
        b(false), b(false), b(false), b(true), 'd', b(false), 0, 0, 0, null, null, null,
      ];
      const indexes = envIndexes(env);
      const indexed = new Set(indexes.map((i) => i.tableOid));
      return [
        ...systemRelations().map((s) => row(s.oid, s.name, s.ns, 'r', s.def.cols.length, -1, 2)),
        ...userRelations(env).map((r) => {
          const out = row(r.oid, r.name, r.ns, r.kind, r.fields.length, r.rows ?? -1, r.kind === 'r' ? 2 : 0, r.persistence);
          // relhasindex: psql's \d looks for "Indexes:" only when it is set.
          out[13] = b(indexed.has(r.oid));
          return out;
        }),
        ...indexes.map((i) => row(i.oid, i.name, NS_PUBLIC, 'i', i.cols.length, -1, ACCESS_METHODS[i.method] ?? 403, i.persistence)),
        // A sequence is a relation of kind 'S' with three columns (last_value, log_cnt, is_called).
        ...sequenceRelations(env).map((r) => row(r.oid, r.seq.name, NS_PUBLIC, 'S', 3, 1, 0, r.temp ? 't' : 'p')),
      ];
    },
  },
  {
    name: 'pg_attribute',
    cols: [
      ['attrelid', 'int4'], ['attname', 'name'], ['atttypid', 'int4'], ['attstattarget', 'int4'], ['attlen', 'int2'], ['attnum', 'int2'],
      ['attndims', 'int4'], ['attcacheoff', 'int4'], ['atttypmod', 'int4'], ['attbyval', 'bool'], ['attalign', 'text'], ['attstorage', 'text'],
      ['attcompression', 'text'], ['attnotnull', 'bool'], ['atthasdef', 'bool'], ['atthasmissing', 'bool'], ['attidentity', 'text'],
      ['attgenerated', 'text'], ['attisdropped', 'bool'], ['attislocal', 'bool'], ['attinhcount', 'int4'], ['attcollation', 'int4'],
      ['attacl', 'text'], ['attoptions', 'text'], ['attfdwoptions', 'text'], ['attmissingval', 'text'],
    ],
    rows: (env) => {
      const out: Value[][] = [];
      const add = (rel: number, i: number, name: string, t: DataType, notNull: boolean): void => {
        const shown = t.name === 'unknown' ? T.text : t;
        const len = TYPE_LEN[shown.name];
        out.push([
          rel, name, oidOf(shown), -1, len, i + 1, 0, -1, shown.typmod, b(len > 0 && len <= 8), len === 8 ? 'd' : len === 2 ? 's' : len === 1 ? 'c' : 'i',
          len === -1 ? 'x' : 'p', '', b(notNull), b(false), b(false), '', '', b(false), b(true), 0, category(shown.name) === 'S' ? 100 : 0, null, null, null, null,
        ]);
      };
      for (const s of systemRelations()) s.def.cols.forEach(([n, t], i) => add(s.oid, i, n, T[t], false));
      for (const r of userRelations(env)) r.fields.forEach((f, i) => add(r.oid, i, f.name, f.type, r.notNull[i] ?? false));
      return out;
    },
  },
  {
    name: 'pg_type',
    cols: [
      ['oid', 'int4'], ['typname', 'name'], ['typnamespace', 'int4'], ['typowner', 'int4'], ['typlen', 'int2'], ['typbyval', 'bool'],
      ['typtype', 'text'], ['typcategory', 'text'], ['typispreferred', 'bool'], ['typisdefined', 'bool'], ['typdelim', 'text'],
      ['typrelid', 'int4'], ['typsubscript', 'int4'], ['typelem', 'int4'], ['typarray', 'int4'], ['typinput', 'text'], ['typoutput', 'text'],
      ['typreceive', 'text'], ['typsend', 'text'], ['typmodin', 'text'], ['typmodout', 'text'], ['typanalyze', 'text'], ['typalign', 'text'],
      ['typstorage', 'text'], ['typnotnull', 'bool'], ['typbasetype', 'int4'], ['typtypmod', 'int4'], ['typndims', 'int4'],
      ['typcollation', 'int4'], ['typdefaultbin', 'text'], ['typdefault', 'text'], ['typacl', 'text'],
    ],
    rows: (env) => [
      ...TYPE_ROWS.map((r) => [
        r.oid, r.name, NS_PG_CATALOG, OWNER_OID, r.len, b(r.len > 0 && r.len <= 8), r.name === 'unknown' ? 'p' : 'b', r.cat,
        b(['bool', 'float8', 'text', 'timestamptz', 'interval', 'oid'].includes(r.name)), b(true), ',', 0, 0,
        r.name.startsWith('_') ? (TYPE_OID as Record<string, number>)[r.name.slice(1)] ?? 0 : 0, (TYPE_OID as Record<string, number>)[`_${r.name}`] ?? 0, r.cat === 'A' ? 'array_in' : `${r.name}in`, r.cat === 'A' ? 'array_out' : `${r.name}out`,
        r.cat === 'A' ? 'array_recv' : `${r.name}recv`, r.cat === 'A' ? 'array_send' : `${r.name}send`, '-', '-', '-', r.len === 8 ? 'd' : r.len === 2 ? 's' : r.len === 1 ? 'c' : 'i', r.len === -1 ? 'x' : 'p',
        b(false), 0, -1, 0, r.cat === 'S' ? 100 : 0, null, null, null,
      ]),
      // Named composite types (CREATE TYPE … AS) and their array types.
      ...[...env.catalog.types.values()].flatMap((c) => [
        [
          c.oid, c.name, NS_PUBLIC, OWNER_OID, -1, b(false), 'c', 'C', b(false), b(true), ',', 0, 0, 0, c.oid + 1, 'record_in', 'record_out',
          'record_recv', 'record_send', '-', '-', '-', 'd', 'x', b(false), 0, -1, 0, 0, null, null, null,
        ],
        [
          c.oid + 1, `_${c.name}`, NS_PUBLIC, OWNER_OID, -1, b(false), 'b', 'A', b(false), b(true), ',', 0, 0, c.oid, 0, 'array_in', 'array_out',
          'array_recv', 'array_send', '-', '-', '-', 'd', 'x', b(false), 0, -1, 0, 0, null, null, null,
        ],
      ]),
      // Each relation's row type, as PostgreSQL has.
      ...userRelations(env).map((r) => [
        r.oid + 1, r.name, r.ns, OWNER_OID, -1, b(false), 'c', 'C', b(false), b(true), ',', r.oid, 0, 0, 0, 'record_in', 'record_out',
        'record_recv', 'record_send', '-', '-', '-', 'd', 'x', b(false), 0, -1, 0, 0, null, null, null,
      ]),
    ],
  },
  {
    name: 'pg_database',
    cols: [
      ['oid', 'int4'], ['datname', 'name'], ['datdba', 'int4'], ['encoding', 'int4'], ['datlocprovider', 'text'], ['datistemplate', 'bool'],
      ['datallowconn', 'bool'], ['datconnlimit', 'int4'], ['datfrozenxid', 'int4'], ['datminmxid', 'int4'], ['dattablespace', 'int4'],
      ['datcollate', 'text'], ['datctype', 'text'], ['daticulocale', 'text'], ['datcollversion', 'text'], ['datacl', 'text'],
    ],
    rows: (env) => [[DATABASE_OID, env.database, OWNER_OID, 6, 'c', b(false), b(true), -1, 0, 1, 1663, 'C', 'C', null, null, null]],
  },
  {
    name: 'pg_settings',
    cols: [
      ['name', 'text'], ['setting', 'text'], ['unit', 'text'], ['category', 'text'], ['short_desc', 'text'], ['extra_desc', 'text'],
      ['context', 'text'], ['vartype', 'text'], ['source', 'text'], ['min_val', 'text'], ['max_val', 'text'], ['enumvals', 'text'],
      ['boot_val', 'text'], ['reset_val', 'text'], ['sourcefile', 'text'], ['sourceline', 'int4'], ['pending_restart', 'bool'],
    ],
    rows: (env) =>
      env
        .session()
        .all()
        .filter(([k]) => !k.startsWith('quire.'))
        .map(([k, v]) => [k, v, null, 'Quire', '', null, 'user', /^(on|off)$/.test(v) ? 'bool' : /^-?\d+$/.test(v) ? 'integer' : 'string', 'default', null, null, null, v, v, null, null, b(false)]),
  },
  {
    name: 'pg_roles',
    cols: [
      ['oid', 'int4'], ['rolname', 'name'], ['rolsuper', 'bool'], ['rolinherit', 'bool'], ['rolcreaterole', 'bool'], ['rolcreatedb', 'bool'],
      ['rolcanlogin', 'bool'], ['rolreplication', 'bool'], ['rolconnlimit', 'int4'], ['rolpassword', 'text'], ['rolvaliduntil', 'timestamptz'],
      ['rolbypassrls', 'bool'], ['rolconfig', 'text'],
    ],
    rows: (env) => roleNames(env).map((n, i) => [OWNER_OID + i, n, b(true), b(true), b(true), b(true), b(true), b(false), -1, '********', null, b(true), null]),
  },
  {
    name: 'pg_user',
    cols: [['usename', 'name'], ['usesysid', 'int4'], ['usecreatedb', 'bool'], ['usesuper', 'bool'], ['userepl', 'bool'], ['usebypassrls', 'bool'], ['passwd', 'text'], ['valuntil', 'timestamptz'], ['useconfig', 'text']],
    rows: (env) => roleNames(env).map((n, i) => [n, OWNER_OID + i, b(true), b(true), b(false), b(true), '********', null, null]),
  },
  {
    name: 'pg_am',
    cols: [['oid', 'int4'], ['amname', 'name'], ['amhandler', 'text'], ['amtype', 'text']],
    rows: () => [
      [2, 'heap', 'heap_tableam_handler', 't'],
      ...Object.entries(ACCESS_METHODS).map(([name, oid]) => [oid, name, `${name === 'btree' ? 'bt' : name}handler`, 'i']),
    ],
  },
  {
    name: 'pg_tablespace',
    cols: [['oid', 'int4'], ['spcname', 'name'], ['spcowner', 'int4'], ['spcacl', 'text'], ['spcoptions', 'text']],
    rows: () => [
      [1663, 'pg_default', OWNER_OID, null, null],
      [1664, 'pg_global', OWNER_OID, null, null],
    ],
  },
  {
    name: 'pg_collation',
    cols: [['oid', 'int4'], ['collname', 'name'], ['collnamespace', 'int4'], ['collowner', 'int4'], ['collprovider', 'text'], ['collisdeterministic', 'bool'], ['collencoding', 'int4'], ['collcollate', 'text'], ['collctype', 'text']],
    rows: () => [
      [100, 'default', NS_PG_CATALOG, OWNER_OID, 'd', b(true), -1, null, null],
      [950, 'C', NS_PG_CATALOG, OWNER_OID, 'c', b(true), -1, 'C', 'C'],
    ],
  },
  { name: 'pg_index', cols: PG_INDEX_COLS, rows: (env) => envIndexes(env).map(pgIndexRow) },
  {
    name: 'pg_indexes',
    cols: [['schemaname', 'name'], ['tablename', 'name'], ['indexname', 'name'], ['tablespace', 'name'], ['indexdef', 'text']],
    rows: (env) => envIndexes(env).map((i) => [i.persistence === 't' ? `pg_temp_${env.session().id}` : 'public', i.table.name, i.name, null, i.def]),
  },
  // Quire has no CHECK constraints, defaults catalogued, comments, inheritance, rules, triggers or
  // extensions: these exist so that clients' joins against them bind and find nothing.
  {
    name: 'pg_constraint',
    cols: PG_CONSTRAINT_COLS,
    rows: (env) => constraintRows(env.catalog, env.session().id, (k) => env.oids.of(k)).map((c) => pgConstraintRow(c, NS_PUBLIC)),
  },
  empty('pg_depend', [['classid', 'int4'], ['objid', 'int4'], ['objsubid', 'int4'], ['refclassid', 'int4'], ['refobjid', 'int4'], ['refobjsubid', 'int4'], ['deptype', 'text']]),
  empty('pg_attrdef', [['oid', 'int4'], ['adrelid', 'int4'], ['adnum', 'int2'], ['adbin', 'text']]),
  empty('pg_description', [['objoid', 'int4'], ['classoid', 'int4'], ['objsubid', 'int4'], ['description', 'text']]),
  empty('pg_shdescription', [['objoid', 'int4'], ['classoid', 'int4'], ['description', 'text']]),
  empty('pg_inherits', [['inhrelid', 'int4'], ['inhparent', 'int4'], ['inhseqno', 'int4'], ['inhdetachpending', 'bool']]),
  empty('pg_rewrite', [['oid', 'int4'], ['rulename', 'text'], ['ev_class', 'int4'], ['ev_type', 'text'], ['ev_enabled', 'text'], ['is_instead', 'bool']]),
  empty('pg_trigger', [['oid', 'int4'], ['tgrelid', 'int4'], ['tgname', 'text'], ['tgfoid', 'int4'], ['tgtype', 'int2'], ['tgenabled', 'text'], ['tgisinternal', 'bool']]),
  empty('pg_extension', [['oid', 'int4'], ['extname', 'text'], ['extowner', 'int4'], ['extnamespace', 'int4'], ['extrelocatable', 'bool'], ['extversion', 'text']]),
  empty('pg_enum', [['oid', 'int4'], ['enumtypid', 'int4'], ['enumsortorder', 'float4'], ['enumlabel', 'text']]),
  {
    // Built-in functions live in the engine's registry, not here; user-defined SQL functions (language
    // sql, oid 14), window functions over built-in symbols (prokind 'w', language internal, oid 12) and
    // aggregates (prokind 'a', language internal) are listed.
    name: 'pg_proc',
    cols: [['oid', 'int4'], ['proname', 'name'], ['pronamespace', 'int4'], ['proowner', 'int4'], ['prolang', 'int4'], ['prokind', 'text'], ['prorettype', 'int4'], ['proargtypes', 'text'], ['prosrc', 'text']],
    rows: (env) => {
      const typeOid = (t: RoutineType | 'void'): number => (t === 'void' ? 2278 : t === 'anyelement' ? 2283 : t === 'anyarray' ? 2277 : TYPE_OID[t.name]);
      const out: Value[][] = [];
      for (const [name, fns] of env.catalog.functions) {
        fns.forEach((f, i) => {
          const argTypes = f.params.map((p) => typeOid(p.type));
          const internal = f.internalWindow !== undefined;
          out.push([env.oids.of(`function ${name}(${argTypes.join(' ')})#${i}`), name, NS_PUBLIC, OWNER_OID, internal ? 12 : 14, internal ? 'w' : 'f', f.columns !== null ? 2249 : typeOid(f.returns), argTypes.join(' '), f.source]);
        });
      }
      for (const [name, aggs] of env.catalog.aggregates) {
        aggs.forEach((a, i) => {
          const argTypes = a.args.map(typeOid);
          out.push([env.oids.of(`aggregate ${name}(${argTypes.join(' ')})#${i}`), name, NS_PUBLIC, OWNER_OID, 12, 'a', typeOid(a.returns ?? a.stype), argTypes.join(' '), 'aggregate_dummy']);
        });
      }
      return out;
    },
  },
  empty('pg_policy', [['oid', 'int4'], ['polname', 'text'], ['polrelid', 'int4'], ['polcmd', 'text'], ['polpermissive', 'bool'], ['polroles', '_int4'], ['polqual', 'text'], ['polwithcheck', 'text']]),
  empty('pg_statistic_ext', [['oid', 'int4'], ['stxrelid', 'int4'], ['stxname', 'text'], ['stxnamespace', 'int4'], ['stxowner', 'int4'], ['stxstattarget', 'int4'], ['stxkeys', 'text'], ['stxkind', 'text']]),
  empty('pg_publication', [['oid', 'int4'], ['pubname', 'text'], ['pubowner', 'int4'], ['puballtables', 'bool'], ['pubinsert', 'bool'], ['pubupdate', 'bool'], ['pubdelete', 'bool'], ['pubtruncate', 'bool'], ['pubviaroot', 'bool']]),
  empty('pg_publication_rel', [['oid', 'int4'], ['prpubid', 'int4'], ['prrelid', 'int4']]),
  empty('pg_foreign_table', [['ftrelid', 'int4'], ['ftserver', 'int4'], ['ftoptions', 'text']]),
  empty('pg_partitioned_table', [['partrelid', 'int4'], ['partstrat', 'text'], ['partnatts', 'int2']]),
  empty('pg_event_trigger', [['oid', 'int4'], ['evtname', 'text'], ['evtevent', 'text'], ['evtowner', 'int4'], ['evtfoid', 'int4'], ['evtenabled', 'text']]),
  empty('pg_sequence', [['seqrelid', 'int4'], ['seqtypid', 'int4'], ['seqstart', 'int8'], ['seqincrement', 'int8'], ['seqmax', 'int8'], ['seqmin', 'int8'], ['seqcache', 'int8'], ['seqcycle', 'bool']]),
  {
    name: 'pg_tables',
    cols: [['schemaname', 'name'], ['tablename', 'name'], ['tableowner', 'name'], ['tablespace', 'name'], ['hasindexes', 'bool'], ['hasrules', 'bool'], ['hastriggers', 'bool'], ['rowsecurity', 'bool']],
    rows: (env) => {
      const indexed = new Set(envIndexes(env).map((i) => i.tableOid));
      return userRelations(env).filter((r) => r.kind === 'r').map((r) => ['public', r.name, env.user, null, b(indexed.has(r.oid)), b(false), b(false), b(false)]);
    },
  },
  {
    name: 'pg_views',
    cols: [['schemaname', 'name'], ['viewname', 'name'], ['viewowner', 'name'], ['definition', 'text']],
    rows: (env) => userRelations(env).filter((r) => r.kind === 'v').map((r) => ['public', r.name, env.user, r.viewSql]),
  },
  {
    // The session's PREPARE'd statements. Every EXECUTE binds and plans with its argument values,
    // which is what PostgreSQL counts as a custom plan; there are no generic plans.
    name: 'pg_prepared_statements',
    cols: [['name', 'text'], ['statement', 'text'], ['prepare_time', 'timestamptz'], ['parameter_types', '_text'], ['result_types', '_text'], ['from_sql', 'bool'], ['generic_plans', 'int8'], ['custom_plans', 'int8']],
    rows: (env) =>
      env
        .session()
        .prepared.list()
        .map((p) => [p.name, p.stmt.text, p.prepareTime * 1000, p.paramTypes.map((t) => typeDisplayName(t)), p.columns === null ? null : p.columns.map((c) => typeDisplayName(c.type)), b(true), 0, p.executions]),
  },
  {
    name: 'pg_stat_activity',
    cols: [['datid', 'int4'], ['datname', 'name'], ['pid', 'int4'], ['usename', 'name'], ['application_name', 'text'], ['client_addr', 'text'], ['state', 'text'], ['query', 'text']],
    rows: () => [],
  },
  {
    name: 'information_schema.schemata',
    cols: [['catalog_name', 'name'], ['schema_name', 'name'], ['schema_owner', 'name'], ['default_character_set_catalog', 'name'], ['default_character_set_schema', 'name'], ['default_character_set_name', 'name'], ['sql_path', 'text']],
    rows: (env) => ['pg_catalog', 'public', 'information_schema'].map((s) => [env.database, s, env.user, null, null, null, null]),
  },
  {
    name: 'information_schema.sequences',
    cols: [
      ['sequence_catalog', 'name'], ['sequence_schema', 'name'], ['sequence_name', 'name'], ['data_type', 'text'], ['numeric_precision', 'int4'],
      ['numeric_precision_radix', 'int4'], ['numeric_scale', 'int4'], ['start_value', 'text'], ['minimum_value', 'text'], ['maximum_value', 'text'],
      ['increment', 'text'], ['cycle_option', 'text'],
    ],
    rows: (env) =>
      sequenceRelations(env).map(({ seq }) => {
        const o = seq.options;
        const [type, precision] = o.type === 'int2' ? ['smallint', 16] : o.type === 'int4' ? ['integer', 32] : ['bigint', 64];
        return [env.database, 'public', seq.name, type, precision, 2, 0, String(o.start), String(o.min), String(o.max), String(o.increment), o.cycle ? 'YES' : 'NO'];
      }),
  },
  {
    name: 'information_schema.table_constraints',
    cols: [
      ['constraint_catalog', 'name'], ['constraint_schema', 'name'], ['constraint_name', 'name'], ['table_catalog', 'name'], ['table_schema', 'name'],
      ['table_name', 'name'], ['constraint_type', 'text'], ['is_deferrable', 'text'], ['initially_deferred', 'text'], ['enforced', 'text'], ['nulls_distinct', 'text'],
    ],
    rows: (env) => constraintViews(env).tableConstraints,
  },
  {
    name: 'information_schema.referential_constraints',
    cols: [
      ['constraint_catalog', 'name'], ['constraint_schema', 'name'], ['constraint_name', 'name'], ['unique_constraint_catalog', 'name'],
      ['unique_constraint_schema', 'name'], ['unique_constraint_name', 'name'], ['match_option', 'text'], ['update_rule', 'text'], ['delete_rule', 'text'],
    ],
    rows: (env) => constraintViews(env).referential,
  },
  {
    name: 'information_schema.key_column_usage',
    cols: [
      ['constraint_catalog', 'name'], ['constraint_schema', 'name'], ['constraint_name', 'name'], ['table_catalog', 'name'], ['table_schema', 'name'],
      ['table_name', 'name'], ['column_name', 'name'], ['ordinal_position', 'int4'], ['position_in_unique_constraint', 'int4'],
    ],
    rows: (env) => constraintViews(env).keyColumns,
  },
  {
    name: 'information_schema.tables',
    cols: [
      ['table_catalog', 'name'], ['table_schema', 'name'], ['table_name', 'name'], ['table_type', 'text'], ['self_referencing_column_name', 'name'],
      ['reference_generation', 'text'], ['user_defined_type_catalog', 'name'], ['user_defined_type_schema', 'name'], ['user_defined_type_name', 'name'],
      ['is_insertable_into', 'text'], ['is_typed', 'text'], ['commit_action', 'text'],
    ],
    rows: (env) =>
      userRelations(env).map((r) => [env.database, 'public', r.name, r.kind === 'r' ? 'BASE TABLE' : 'VIEW', null, null, null, null, null, r.kind === 'r' ? 'YES' : 'NO', 'NO', null]),
  },
  {
    name: 'information_schema.columns',
    cols: [
      ['table_catalog', 'name'], ['table_schema', 'name'], ['table_name', 'name'], ['column_name', 'name'], ['ordinal_position', 'int4'],
      ['column_default', 'text'], ['is_nullable', 'text'], ['data_type', 'text'], ['character_maximum_length', 'int4'],
      ['character_octet_length', 'int4'], ['numeric_precision', 'int4'], ['numeric_precision_radix', 'int4'], ['numeric_scale', 'int4'],
      ['datetime_precision', 'int4'], ['interval_type', 'text'], ['interval_precision', 'int4'], ['udt_catalog', 'name'],
      ['udt_schema', 'name'], ['udt_name', 'name'], ['is_identity', 'text'], ['is_generated', 'text'], ['is_updatable', 'text'],
    ],
    rows: (env) => {
      const out: Value[][] = [];
      for (const r of userRelations(env)) {
        r.fields.forEach((f, i) => {
          const t = f.type.name === 'unknown' ? T.text : f.type;
          // information_schema gives money no precision, radix or scale (only the integer, float and numeric types).
          const numeric = category(t.name) === 'N' && t.name !== 'money';
          const charLen = (t.name === 'varchar' || t.name === 'bpchar') && t.typmod >= 4 ? t.typmod - 4 : null;
          const prec = t.name === 'int2' ? 16 : t.name === 'int4' ? 32 : t.name === 'int8' ? 64 : t.name === 'float4' ? 24 : t.name === 'float8' ? 53 : t.name === 'numeric' && t.typmod >= 4 ? ((t.typmod - 4) >> 16) & 0xffff : null;
          const scale = t.name === 'numeric' && t.typmod >= 4 ? (t.typmod - 4) & 0xffff : t.name.startsWith('int') ? 0 : null;
          out.push([
            env.database, 'public', r.name, f.name, i + 1, null, r.notNull[i] ? 'NO' : 'YES', typeDisplayName({ name: t.name, typmod: -1 }), charLen,
            charLen !== null ? charLen * 4 : category(t.name) === 'S' ? 1073741824 : null, numeric ? prec : null, numeric ? (t.name === 'numeric' ? 10 : 2) : null,
            numeric ? scale : null, category(t.name) === 'D' ? (t.name === 'date' ? 0 : 6) : null, null, null, env.database, 'pg_catalog', t.name, 'NO', 'NEVER',
            r.kind === 'r' ? 'YES' : 'NO',
          ]);
        });
      }
      return out;
    },
  },
];

function empty(name: string, cols: Col[]): SystemTableDef {
  return { name, cols, rows: () => [] };
}

function roleNames(env: SystemEnv): string[] {
  return env.user === 'quire' ? ['quire'] : ['quire', env.user];
}

class SystemTable implements TableSource {
  readonly schema: readonly Field[];
  constructor(
    readonly def: SystemTableDef,
    private readonly env: SystemEnv,
  ) {
    this.schema = def.cols.map(([n, t]) => ({ name: n, type: T[t], table: def.name }));
  }
  get name(): string {
    return this.def.name;
  }
  rowCount(): number | undefined {
    return undefined;
  }
  async *scan(): AsyncGenerator<Batch> {
    const rows = this.def.rows(this.env);
    if (rows.length === 0) return;
    const builders = this.schema.map((f) => new ColumnBuilder(f.type, rows.length));
    for (const r of rows) for (let c = 0; c < builders.length; c++) builders[c]!.push(r[c] ?? null);
    yield { columns: builders.map((x) => x.finish()), length: rows.length };
  }
}

/**
 * A Catalog for one connection: the shared catalog's tables and views (same Map objects, so DDL
 * from any connection is seen by all), with the system tables behind them. The object delegates to
 * the shared catalog through its prototype; only getTable is its own.
 */
export function systemCatalogView(env: Omit<SystemEnv, 'catalog'>, base: Catalog): Catalog {
  const view = Object.create(base) as Catalog;
  const fullEnv: SystemEnv = { ...env, catalog: base };
  const system = new Map<string, SystemTable>();
  for (const def of SYSTEM_TABLES) system.set(def.name, new SystemTable(def, fullEnv));
  Object.defineProperty(view, 'getTable', {
    value: (name: string): TableSource | undefined => base.getTable(name) ?? system.get(name),
  });
  return view;
}

/**
 * The binder ignores schema names, so information_schema's generic names (tables, columns) would
 * capture unqualified user names. Qualified references are renamed to the dotted key they are
 * registered under, which no unquoted identifier can spell.
 */
export function qualifySystemNames(node: unknown): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const x of node) qualifySystemNames(x);
    return;
  }
  const o = node as Record<string, unknown>;
  const rv = o.RangeVar as { schemaname?: string; relname?: string } | undefined;
  if (rv && rv.schemaname === 'information_schema' && typeof rv.relname === 'string') {
    rv.relname = `information_schema.${rv.relname}`;
    delete rv.schemaname;
  }
  for (const k in o) qualifySystemNames(o[k]);
}

/** True when every relation the statement names is a system one (pg_* or information_schema). */
export function onlySystemRelations(stmt: Node): boolean {
  let any = false;
  let user = false;
  const walk = (n: unknown): void => {
    if (n === null || typeof n !== 'object') return;
    if (Array.isArray(n)) return n.forEach(walk);
    const o = n as Record<string, unknown>;
    const rf = o.RangeFunction as { functions?: unknown } | undefined;
    if (rf) {
      // FROM pg_get_keywords(), pg_catalog.pg_show_all_settings() …: system when pg_-named.
      const text = JSON.stringify(rf.functions ?? []);
      any = true;
      if (!/"funcname":\[(\{"String":\{"sval":"pg_catalog"\}\},)?\{"String":\{"sval":"pg_/.test(text)) user = true;
    }
    const rv = o.RangeVar as { schemaname?: string; relname?: string } | undefined;
    if (rv && typeof rv.relname === 'string') {
      any = true;
      const sys = rv.schemaname === 'pg_catalog' || rv.schemaname === 'information_schema' || rv.relname.startsWith('pg_') || rv.relname.startsWith('information_schema.');
      if (!sys) user = true;
    }
    for (const k in o) walk(o[k]);
  };
  walk(stmt);
  return any && !user;
}

// ---- functions clients call in catalog queries ----

let registered = false;
/** Registers the catalog functions (idempotent): pg_table_is_visible, format_type, pg_get_userbyid … */
export function registerCatalogFunctions(): void {
  if (registered) return;
  registered = true;
  const nullFn = (): Value => null;
  registerScalar('pg_table_is_visible', { args: ['int4'], returns: T.bool, fn: (c: EvalContext, oid: number) => tableIsVisible(c, oid) });
  for (const name of ['pg_table_size', 'pg_relation_size', 'pg_total_relation_size']) {
    // Quire has no indexes or TOAST, so the three sizes coincide.
    registerScalar(name, { args: ['int4'], returns: T.int8, fn: (c: EvalContext, oid: number) => relationSize(c, oid) });
  }
  registerScalar('pg_type_is_visible', { args: ['int4'], returns: T.bool, fn: () => true });
  registerScalar('pg_function_is_visible', { args: ['int4'], returns: T.bool, fn: () => true });
  registerScalar('pg_get_userbyid', { args: ['int4'], returns: T.text, fn: () => 'quire' });
  registerScalar(
    'format_type',
    { args: ['int4', 'int4'], returns: T.text, strict: false, fn: ((_c: EvalContext, oid: number | null, typmod: number | null) => formatType(oid, typmod)) as never },
  );
  registerScalar('obj_description', { args: ['int4', 'text'], returns: T.text, fn: nullFn }, { args: ['int4'], returns: T.text, fn: nullFn });
  registerScalar('shobj_description', { args: ['int4', 'text'], returns: T.text, fn: nullFn });
  registerScalar('col_description', { args: ['int4', 'int4'], returns: T.text, fn: nullFn });
  registerScalar('pg_get_expr', { args: ['text', 'int4'], returns: T.text, fn: nullFn }, { args: ['text', 'int4', 'bool'], returns: T.text, fn: nullFn });
  registerScalar('pg_get_indexdef', { args: ['int4'], returns: T.text, fn: (c: EvalContext, oid: number) => indexDefOf(c, oid, 0) }, { args: ['int4', 'int4', 'bool'], returns: T.text, fn: (c: EvalContext, oid: number, column: number) => indexDefOf(c, oid, column) });
  registerScalar('pg_get_constraintdef', { args: ['int4'], returns: T.text, fn: (c: EvalContext, oid: number) => constraintDefOf(c, oid) }, { args: ['int4', 'bool'], returns: T.text, fn: (c: EvalContext, oid: number) => constraintDefOf(c, oid) });
  registerScalar('pg_get_partkeydef', { args: ['int4'], returns: T.text, fn: nullFn });
  registerScalar('pg_get_viewdef', { args: ['int4'], returns: T.text, fn: nullFn }, { args: ['int4', 'bool'], returns: T.text, fn: nullFn });
  registerScalar('pg_encoding_to_char', { args: ['int4'], returns: T.text, fn: () => 'UTF8' });
  // Catalog columns that are arrays in PostgreSQL (relacl, datacl …) are text stand-ins here, always
  // null; real text[] arguments take the engine's own array_to_string.
  registerScalar('array_to_string', { args: ['text', 'text'], returns: T.text, fn: (_c: EvalContext, a: string) => a });
  registerScalar('pg_is_in_recovery', { args: [], returns: T.bool, fn: () => false });
  registerScalar('current_database', { args: [], returns: T.text, fn: (c: EvalContext) => c.setting('quire.database') ?? 'quire' });
  registerScalar('pg_backend_pid', { args: [], returns: T.int4, fn: (c: EvalContext) => Number(c.setting('quire.backend_pid') ?? 0) });
  registerScalar('has_table_privilege', { args: ['text', 'text'], returns: T.bool, fn: () => true }, { args: ['int4', 'text'], returns: T.bool, fn: () => true }, { args: ['text', 'text', 'text'], returns: T.bool, fn: () => true });
  registerScalar('has_schema_privilege', { args: ['text', 'text'], returns: T.bool, fn: () => true }, { args: ['text', 'text', 'text'], returns: T.bool, fn: () => true });
  registerScalar('has_database_privilege', { args: ['text', 'text'], returns: T.bool, fn: () => true }, { args: ['text', 'text', 'text'], returns: T.bool, fn: () => true });
  registerScalar('pg_postmaster_start_time', { args: [], returns: T.timestamptz, fn: () => START_MICROS });
}

const START_MICROS = Date.now() * 1000;

/**
 * Catalog functions take only an EvalContext; the connection's catalog environment is found through
 * a per-connection session setting naming it (set by the wire connection, removed at its end).
 */
const envs = new Map<string, SystemEnv>();
export const ENV_SETTING = 'quire.pgwire_connection';
export function registerConnectionEnv(id: string, env: SystemEnv): void {
  envs.set(id, env);
}
export function dropConnectionEnv(id: string): void {
  envs.delete(id);
}
function envOf(c: EvalContext): SystemEnv | undefined {
  const id = c.setting(ENV_SETTING);
  return id === undefined ? undefined : envs.get(id);
}

function constraintViews(env: SystemEnv): ReturnType<typeof informationSchemaRows> {
  return informationSchemaRows(constraintRows(env.catalog, env.session().id, (k) => env.oids.of(k)), env.database);
}

function envIndexes(env: SystemEnv): IndexRow[] {
  return indexRows(env.catalog, env.session().id, (k) => env.oids.of(k));
}

function indexDefOf(c: EvalContext, oid: number, column: number): string | null {
  const env = envOf(c);
  const row = env === undefined ? undefined : envIndexes(env).find((i) => i.oid === oid);
  return row === undefined ? null : indexDefColumn(row, column);
}

function constraintDefOf(c: EvalContext, oid: number): string | null {
  const env = envOf(c);
  if (env === undefined) return null;
  const row = constraintRows(env.catalog, env.session().id, (k) => env.oids.of(k)).find((r) => r.oid === oid);
  return row === undefined ? null : constraintDef(row);
}

/** Namespace of the relation with this OID, or undefined when there is none. */
function relationNamespace(env: SystemEnv, oid: number): number | undefined {
  const sys = systemRelations().find((s) => s.oid === oid);
  if (sys) return sys.ns;
  for (const name of [...env.catalog.tables.keys(), ...env.catalog.views.keys()]) if (env.oids.of(name) === oid) return NS_PUBLIC;
  if (envIndexes(env).some((i) => i.oid === oid)) return NS_PUBLIC;
  return undefined;
}

/**
 * PostgreSQL's RelationIsVisible: the relation's schema is on the effective search path (pg_catalog
 * always is) and no relation of the same name comes earlier on it. Quire's relation names are
 * unique across its schemas, so the first condition decides. Null for an OID naming no relation.
 */
function tableIsVisible(c: EvalContext, oid: number): boolean | null {
  const env = envOf(c);
  if (env === undefined) return null;
  const ns = relationNamespace(env, oid);
  if (ns === undefined) return null;
  if (ns === NS_PG_CATALOG) return true;
  return searchPath(c, true).includes(ns === NS_PUBLIC ? 'public' : 'information_schema');
}

/** Bytes of a table's column data (values, null maps; strings at their UTF-8 length plus a 4-byte header). */
function relationSize(c: EvalContext, oid: number): number | null {
  const env = envOf(c);
  if (env === undefined) return null;
  if (systemRelations().some((s) => s.oid === oid)) return 0;
  for (const [name, t] of env.catalog.tables) {
    if (env.oids.of(name) !== oid) continue;
    const batches = (t as { snapshot?: () => readonly Batch[] }).snapshot?.() ?? [];
    let bytes = 0;
    for (const b of batches) {
      for (const col of b.columns) {
        if (col.nulls) bytes += col.nulls.byteLength;
        const d = col.data as unknown;
        if (ArrayBuffer.isView(d)) bytes += d.byteLength;
        else for (const v of d as readonly unknown[]) bytes += typeof v === 'string' ? Buffer.byteLength(v) + 4 : v === null ? 0 : 16;
      }
    }
    return bytes;
  }
  for (const name of env.catalog.views.keys()) if (env.oids.of(name) === oid) return 0;
  return null;
}

/**
 * psql's \d first reads a table's flags with a query built on arrays and regclass casts, which the
 * engine cannot bind; its answer decides whether psql goes on, so it is answered by an equivalent
 * query over the same pg_class row. Its "Referenced by:" query calls pg_partition_ancestors: answered
 * over pg_constraint alone. Returns replacement SQL, or null for every other statement.
 */
export function rewritePsqlQuery(sql: string): string | null {
  // \d's "Referenced by:" reads the constraints on the table or its partition ancestors (Quire has none).
  const referenced = /^\s*SELECT conname, conrelid::pg_catalog\.regclass AS ontable,[\s\S]*pg_partition_ancestors\('(\d+)'\)/.exec(sql);
  if (referenced !== null) {
    return `SELECT c.conname, r.relname AS ontable, pg_catalog.pg_get_constraintdef(c.oid, true) AS condef
      FROM pg_catalog.pg_constraint c JOIN pg_catalog.pg_class r ON r.oid = c.conrelid
      WHERE c.confrelid = ${referenced[1]} AND c.contype = 'f' ORDER BY c.conname`;
  }
  if (!/^\s*SELECT c\.relchecks, c\.relkind, c\.relhasindex/.test(sql)) return null;
  const m = /WHERE c\.oid = '(\d+)'/.exec(sql);
  if (!m) return null;
  return `SELECT c.relchecks, c.relkind, c.relhasindex, c.relhasrules, c.relhastriggers, c.relrowsecurity, c.relforcerowsecurity,
    false AS relhasoids, c.relispartition, '' AS reloptions, c.reltablespace, '' AS reloftype, c.relpersistence, c.relreplident, am.amname
    FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_am am ON (c.relam = am.oid) WHERE c.oid = ${m[1]}`;
}

const OID_TYPES = new Set(['oid', 'regclass', 'regtype', 'regnamespace', 'regproc', 'regprocedure', 'regrole', 'regoper', 'regoperator', 'regconfig', 'xid', 'cid', 'tid']);

/** OID of a relation, type or schema by name, for 'name'::regclass-style literals; 0 when unknown. */
export function lookupOid(env: Pick<SystemEnv, 'catalog' | 'oids'>, kind: string, text: string): number {
  const name = text.replace(/^(pg_catalog|public|information_schema)\./, '').replace(/^"(.*)"$/, '$1');
  if (kind === 'regclass') {
    const sys = systemRelations().find((s) => s.name === name && s.ns === NS_PG_CATALOG);
    if (sys) return sys.oid;
    return env.catalog.tables.has(name) || env.catalog.views.has(name) ? env.oids.of(name) : 0;
  }
  if (kind === 'regtype') {
    const alias: Record<string, string> = { integer: 'int4', int: 'int4', bigint: 'int8', smallint: 'int2', boolean: 'bool', real: 'float4', 'double precision': 'float8', 'character varying': 'varchar', character: 'bpchar', 'timestamp without time zone': 'timestamp', 'timestamp with time zone': 'timestamptz', 'time without time zone': 'time', 'time with time zone': 'timetz', 'bit varying': 'varbit', '"char"': 'char', 'text[]': '_text', 'name[]': '_name', 'character varying[]': '_text' };
    return TYPE_ROWS.find((r) => r.name === (alias[name] ?? name))?.oid ?? 0;
  }
  if (kind === 'regnamespace') return name === 'pg_catalog' ? NS_PG_CATALOG : name === 'public' ? NS_PUBLIC : name === 'information_schema' ? NS_INFORMATION_SCHEMA : 0;
  return 0;
}

/**
 * PostgreSQL's system types that the engine lacks, rewritten in the statement's tree before binding:
 * oid and the reg* types become int4 (a 'name'::regclass literal becomes that relation's OID) and
 * "char" becomes text. Catalog queries from drivers lean on these casts everywhere.
 */
export function rewriteSystemTypes(node: unknown, oidOf: (kind: string, name: string) => number): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const r = rewriteCast(node[i], oidOf);
      if (r !== null) node[i] = r;
      else rewriteSystemTypes(node[i], oidOf);
    }
    return;
  }
  const o = node as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const r = rewriteCast(o[k], oidOf);
    if (r !== null) o[k] = r;
    else rewriteSystemTypes(o[k], oidOf);
  }
}

function rewriteCast(n: unknown, oidOf: (kind: string, name: string) => number): unknown {
  if (n === null || typeof n !== 'object' || Array.isArray(n)) return null;
  const tc = (n as { TypeCast?: { arg: unknown; typeName: { names: { String?: { sval: string } }[]; arrayBounds?: unknown } } }).TypeCast;
  if (!tc) return null;
  const names = tc.typeName.names.map((x) => x.String?.sval ?? '');
  const last = names[names.length - 1]!;
  if (tc.typeName.arrayBounds) return null;
  if (names.length === 2 && names[0] !== 'pg_catalog') return null;
  if (OID_TYPES.has(last)) {
    rewriteSystemTypes(tc.arg, oidOf);
    const c = (tc.arg as { A_Const?: { sval?: { sval: string }; location?: number } }).A_Const;
    if (c?.sval !== undefined && (last === 'regproc' || last === 'regprocedure')) {
      // pg_type's and pg_proc's regproc columns are function names here (text), so is the literal.
      return { A_Const: { sval: { sval: c.sval.sval.replace(/^pg_catalog\./, '').replace(/\(.*$/, '') }, location: c.location ?? -1 } };
    }
    if (c?.sval !== undefined) {
      const text = c.sval.sval;
      const v = /^\d+$/.test(text) ? Number(text) : oidOf(last, text);
      return { A_Const: { ival: { ival: v }, location: c.location ?? -1 } };
    }
    tc.typeName.names = [{ String: { sval: 'int4' } }];
    return n;
  }
  // An unquoted char reaches the tree as pg_catalog.bpchar; "char" (and pg_catalog."char") is the
  // one-byte system type.
  if (last === 'char') {
    rewriteSystemTypes(tc.arg, oidOf);
    tc.typeName.names = [{ String: { sval: 'text' } }];
    return n;
  }
  return null;
}
