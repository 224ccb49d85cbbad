/**
 * Signatures of the non-aggregate window functions (PostgreSQL's pg_proc entries with prokind 'w').
 * Aggregates used with OVER are resolved through the aggregate registry instead.
 */
import { QuireError, positionOf } from '../../common/errors.js';
import { T, type DataType } from '../../common/types.js';
import type { Expr } from '../../logical/expr.js';

const NAMES = new Set([
  'row_number',
  'rank',
  'dense_rank',
  'percent_rank',
  'cume_dist',
  'ntile',
  'lag',
  'lead',
  'first_value',
  'last_value',
  'nth_value',
]);

export function isWindowFunctionName(name: string): boolean {
  return NAMES.has(name);
}

const NUMERIC_RANK: Partial<Record<DataType['name'], number>> = { int2: 1, int4: 2, int8: 3, numeric: 4, float4: 5, float8: 6 };

/** The anycompatible resolution for the cases that matter here: numeric promotion; otherwise the first type. */
function commonType(a: DataType, b: DataType): DataType {
  if (b.name === 'unknown' || a.name === b.name) return a;
  const ra = NUMERIC_RANK[a.name];
  const rb = NUMERIC_RANK[b.name];
  if (ra !== undefined && rb !== undefined) return rb > ra ? T[b.name as 'numeric'] : a;
  if ((a.name === 'varchar' || a.name === 'bpchar') && b.name === 'text') return T.text;
  return a;
}

type Coerce = (e: Expr, t: DataType) => Expr;

function argError(name: string, args: Expr[], loc: number | undefined): QuireError {
  return new QuireError('42883', `function ${name}(${args.map((a) => (a.type.name === 'unknown' ? 'unknown' : a.type.name)).join(', ')}) does not exist`, {
    position: positionOf(loc),
    hint: 'No function matches the given name and argument types. You might need to add explicit type casts.',
  });
}

/** Checks arity, coerces arguments and returns the result type. */
export function windowFunctionType(name: string, args: Expr[], coerce: Coerce, loc: number | undefined): { args: Expr[]; type: DataType } {
  const valueType = (e: Expr): DataType => (e.type.name === 'unknown' ? T.text : e.type);
  switch (name) {
    case 'row_number':
    case 'rank':
    case 'dense_rank':
      if (args.length !== 0) throw argError(name, args, loc);
      return { args, type: T.int8 };
    case 'percent_rank':
    case 'cume_dist':
      if (args.length !== 0) throw argError(name, args, loc);
      return { args, type: T.float8 };
    case 'ntile':
      if (args.length !== 1) throw argError(name, args, loc);
      return { args: [coerce(args[0]!, T.int4)], type: T.int4 };
    case 'lag':
    case 'lead': {
      if (args.length < 1 || args.length > 3) throw argError(name, args, loc);
      // lag(anycompatible, integer, anycompatible): value and default resolve to their common type, so
      // lag(int_col, 1, 0.7) is numeric.
      const t = args.length === 3 ? commonType(valueType(args[0]!), args[2]!.type) : valueType(args[0]!);
      const out = [coerce(args[0]!, t)];
      if (args.length >= 2) out.push(coerce(args[1]!, T.int4));
      if (args.length === 3) out.push(coerce(args[2]!, t));
      return { args: out, type: t };
    }
    case 'first_value':
    case 'last_value': {
      if (args.length !== 1) throw argError(name, args, loc);
      const t = valueType(args[0]!);
      return { args: [coerce(args[0]!, t)], type: t };
    }
    case 'nth_value': {
      if (args.length !== 2) throw argError(name, args, loc);
      const t = valueType(args[0]!);
      return { args: [coerce(args[0]!, t), coerce(args[1]!, T.int4)], type: t };
    }
    default:
      throw argError(name, args, loc);
  }
}
