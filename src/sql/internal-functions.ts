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
  ['booland_statefunc', ['bool', 'bool'], 'bool', true, 'SELECT $1 AND $2'],
  ['boolor_statefunc', ['bool', 'bool'], 'bool', true, 'SELECT $1 OR $2'],
  // Youngs-Cramer states of the float8 variance and regression aggregates: {N, Sx, Sxx} and
  // {N, Sx, Sxx, Sy, Syy, Sxy}, with sums of squares kept about the running mean.
  [
    'float8_accum',
    ['_float8', 'float8'],
    '_float8',
    true,
    `SELECT ARRAY[n + 1, sx + x, CASE WHEN n > 0 THEN sxx + (x * (n + 1) - (sx + x)) * (x * (n + 1) - (sx + x)) / (n * (n + 1)) ELSE 0 END]
       FROM (SELECT $1[1] AS n, $1[2] AS sx, $1[3] AS sxx, $2 AS x) s`,
  ],
  [
    'float8_regr_accum',
    ['_float8', 'float8', 'float8'],
    '_float8',
    true,
    `SELECT ARRAY[n + 1, sx + x, CASE WHEN n > 0 THEN sxx + tx * tx / (n * (n + 1)) ELSE 0 END,
                  sy + y, CASE WHEN n > 0 THEN syy + ty * ty / (n * (n + 1)) ELSE 0 END,
                  CASE WHEN n > 0 THEN sxy + tx * ty / (n * (n + 1)) ELSE 0 END]
       FROM (SELECT *, x * (n + 1) - (sx + x) AS tx, y * (n + 1) - (sy + y) AS ty
               FROM (SELECT $1[1] AS n, $1[2] AS sx, $1[3] AS sxx, $1[4] AS sy, $1[5] AS syy, $1[6] AS sxy, $2 AS y, $3 AS x) a) s`,
  ],
  [
    'float8_combine',
    ['_float8', '_float8'],
    '_float8',
    true,
    `SELECT CASE WHEN n1 = 0 THEN $2 WHEN n2 = 0 THEN $1
                 ELSE ARRAY[n1 + n2, sx1 + sx2, sxx1 + sxx2 + n1 * n2 * (sx1 / n1 - sx2 / n2) * (sx1 / n1 - sx2 / n2) / (n1 + n2)] END
       FROM (SELECT $1[1] AS n1, $1[2] AS sx1, $1[3] AS sxx1, $2[1] AS n2, $2[2] AS sx2, $2[3] AS sxx2) s`,
  ],
  [
    'float8_regr_combine',
    ['_float8', '_float8'],
    '_float8',
    true,
    `SELECT CASE WHEN n1 = 0 THEN $2 WHEN n2 = 0 THEN $1
                 ELSE ARRAY[n1 + n2, sx1 + sx2, sxx1 + sxx2 + n1 * n2 * dx * dx / (n1 + n2),
                            sy1 + sy2, syy1 + syy2 + n1 * n2 * dy * dy / (n1 + n2), sxy1 + sxy2 + n1 * n2 * dx * dy / (n1 + n2)] END
       FROM (SELECT *, sx1 / nullif(n1, 0) - sx2 / nullif(n2, 0) AS dx, sy1 / nullif(n1, 0) - sy2 / nullif(n2, 0) AS dy
               FROM (SELECT $1[1] AS n1, $1[2] AS sx1, $1[3] AS sxx1, $1[4] AS sy1, $1[5] AS syy1, $1[6] AS sxy1,
                            $2[1] AS n2, $2[2] AS sx2, $2[3] AS sxx2, $2[4] AS sy2, $2[5] AS syy2, $2[6] AS sxy2) a) s`,
  ],
];

/**
 * Parsed on first use, one name at a time: every call of a function that is not a built-in scalar
 * (count, sum, min, …) asks here, and parsing all the bodies for that cost the first query of a
 * process about 25 ms.
 */
const defs = new Map<string, readonly SqlFunctionDef[]>();
let names: Set<string> | null = null;

function typeOf(name: string): RoutineType {
  if (name === 'anyelement') return 'anyelement';
  return resolveTypeName({ names: [{ String: { sval: name } }], typemod: -1 } as unknown as PgTypeName);
}

/** The internal function of that name, if it is one. */
export function internalFunctions(name: string): readonly SqlFunctionDef[] | undefined {
  names ??= new Set(DEFS.map((d) => d[0]));
  if (!names.has(name)) return undefined;
  let found = defs.get(name);
  if (found === undefined) {
    const list: SqlFunctionDef[] = [];
    for (const [n, params, returns, strict, body] of DEFS) {
      if (n !== name) continue;
      list.push({
        name: n,
        params: params.map((p) => ({ name: null, type: typeOf(p), defaultExpr: null })),
        returns: typeOf(returns),
        columns: null,
        returnsSet: false,
        body: parseStatements(body).map((s) => s.stmt),
        strict,
        volatility: 'immutable',
        source: body,
        sql: body,
      });
    }
    defs.set(name, (found = list));
  }
  return found;
}
