/**
 * PostgreSQL's internal support functions that aggregate definitions name as transition and final
 * functions (CREATE AGGREGATE … (sfunc = int4pl …)). Each is defined by the SQL expression of the
 * operator or built-in it implements, with PostgreSQL's strictness, and is callable like any function.
 */
import type { TypeName as PgTypeName } from '@pgsql/types';
import type { RoutineType, SqlFunctionDef } from '../storage/catalog.js';
import { parseStatements } from './parse.js';
import { resolveTypeName } from './type-name.js';

/** name, parameter types, result type, strict, body. */
const DEFS: [string, string[], string, boolean, string][] = [
  ['int2pl', ['int2', 'int2'], 'int2', true, 'SELECT $1 + $2'],
  ['int4pl', ['int4', 'int4'], 'int4', true, 'SELECT $1 + $2'],
  ['int8pl', ['int8', 'int8'], 'int8', true, 'SELECT $1 + $2'],
  ['float4pl', ['float4', 'float4'], 'float4', true, 'SELECT $1 + $2'],
  ['float8pl', ['float8', 'float8'], 'float8', true, 'SELECT $1 + $2'],
  ['numeric_add', ['numeric', 'numeric'], 'numeric', true, 'SELECT $1 + $2'],
  ['int4mi', ['int4', 'int4'], 'int4', true, 'SELECT $1 - $2'],
  ['int8mi', ['int8', 'int8'], 'int8', true, 'SELECT $1 - $2'],
  ['int4mul', ['int4', 'int4'], 'int4', true, 'SELECT $1 * $2'],
  ['int8mul', ['int8', 'int8'], 'int8', true, 'SELECT $1 * $2'],
  ['float8mul', ['float8', 'float8'], 'float8', true, 'SELECT $1 * $2'],
  ['int4larger', ['int4', 'int4'], 'int4', true, 'SELECT greatest($1, $2)'],
  ['int4smaller', ['int4', 'int4'], 'int4', true, 'SELECT least($1, $2)'],
  ['int8larger', ['int8', 'int8'], 'int8', true, 'SELECT greatest($1, $2)'],
  ['int8smaller', ['int8', 'int8'], 'int8', true, 'SELECT least($1, $2)'],
  ['float8larger', ['float8', 'float8'], 'float8', true, 'SELECT greatest($1, $2)'],
  ['float8smaller', ['float8', 'float8'], 'float8', true, 'SELECT least($1, $2)'],
  ['textcat', ['text', 'text'], 'text', true, 'SELECT $1 || $2'],
  ['int8inc', ['int8'], 'int8', true, 'SELECT $1 + 1'],
  ['int8inc_any', ['int8', 'anyelement'], 'int8', true, 'SELECT $1 + 1'],
  // Not strict in PostgreSQL: a NULL state starts from the first value, a NULL value keeps the state.
  ['int2_sum', ['int8', 'int2'], 'int8', false, 'SELECT CASE WHEN $2 IS NULL THEN $1 ELSE coalesce($1, 0) + $2 END'],
  ['int4_sum', ['int8', 'int4'], 'int8', false, 'SELECT CASE WHEN $2 IS NULL THEN $1 ELSE coalesce($1, 0) + $2 END'],
  // avg's state for small integers: {count, sum}.
  ['int4_avg_accum', ['_int8', 'int4'], '_int8', true, 'SELECT ARRAY[$1[1] + 1, $1[2] + $2]'],
  ['int2_avg_accum', ['_int8', 'int2'], '_int8', true, 'SELECT ARRAY[$1[1] + 1, $1[2] + $2]'],
  ['int8_avg', ['_int8'], 'numeric', true, 'SELECT CASE WHEN $1[1] = 0 THEN NULL ELSE $1[2]::numeric / $1[1] END'],
];

let defs: Map<string, SqlFunctionDef[]> | null = null;

function typeOf(name: string): RoutineType {
  if (name === 'anyelement') return 'anyelement';
  return resolveTypeName({ names: [{ String: { sval: name } }], typemod: -1 } as unknown as PgTypeName);
}

/** The internal function of that name, if it is one. */
export function internalFunctions(name: string): readonly SqlFunctionDef[] | undefined {
  if (defs === null) {
    defs = new Map();
    for (const [n, params, returns, strict, body] of DEFS) {
      const def: SqlFunctionDef = {
        name: n,
        params: params.map((p) => ({ name: null, type: typeOf(p), defaultExpr: null })),
        returns: typeOf(returns),
        columns: null,
        returnsSet: false,
        body: parseStatements(body).map((s) => s.stmt),
        strict,
        volatility: 'immutable',
        sql: body,
      };
      defs.set(n, [...(defs.get(n) ?? []), def]);
    }
  }
  return defs.get(name);
}
