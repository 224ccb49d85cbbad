/**
 * Signatures of the non-aggregate window functions (PostgreSQL's pg_proc entries with prokind 'w').
 * Aggregates used with OVER are resolved through the aggregate registry instead.
 */
import { QuireError, positionOf } from '../../common/errors.js';
import { commonSupertype } from '../../common/cast.js';
import { T, type, typeDisplayName, type DataType } from '../../common/types.js';

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

/**
 * PostgreSQL's C symbols of its built-in window functions (pg_proc.prosrc), which
 * `CREATE FUNCTION … LANGUAGE internal WINDOW AS 'symbol'` names: the function each runs and the
 * number of arguments the symbol reads.
 */
const SYMBOLS: ReadonlyMap<string, { readonly name: string; readonly arity: number }> = new Map([
  ['window_row_number', { name: 'row_number', arity: 0 }],
  ['window_rank', { name: 'rank', arity: 0 }],
  ['window_dense_rank', { name: 'dense_rank', arity: 0 }],
  ['window_percent_rank', { name: 'percent_rank', arity: 0 }],
  ['window_cume_dist', { name: 'cume_dist', arity: 0 }],
  ['window_ntile', { name: 'ntile', arity: 1 }],
  ['window_lag', { name: 'lag', arity: 1 }],
  ['window_lag_with_offset', { name: 'lag', arity: 2 }],
  ['window_lag_with_offset_and_default', { name: 'lag', arity: 3 }],
  ['window_lead', { name: 'lead', arity: 1 }],
  ['window_lead_with_offset', { name: 'lead', arity: 2 }],
  ['window_lead_with_offset_and_default', { name: 'lead', arity: 3 }],
  ['window_first_value', { name: 'first_value', arity: 1 }],
  ['window_last_value', { name: 'last_value', arity: 1 }],
  ['window_nth_value', { name: 'nth_value', arity: 2 }],
]);

export function windowFunctionForSymbol(symbol: string): { readonly name: string; readonly arity: number } | undefined {
  return SYMBOLS.get(symbol);
}

/** The type without its modifier: a polymorphic function's result has none. */
function plainType(t: DataType): DataType {
  return type(t.name);
}

/** A bound argument: the binder's expressions, of which only the type is read here. */
interface Typed {
  readonly type: DataType;
}

function argError(name: string, args: readonly Typed[], loc: number | undefined): QuireError {
  return new QuireError('42883', `function ${name}(${args.map((a) => typeDisplayName(a.type)).join(', ')}) does not exist`, {
    position: positionOf(loc),
    hint: 'No function matches the given name and argument types. You might need to add explicit type casts.',
  });
}

/** Checks arity, coerces arguments and returns the result type. */
export function windowFunctionType<E extends Typed>(name: string, args: E[], coerce: (e: E, t: DataType) => E, loc: number | undefined): { args: E[]; type: DataType } {
  // anyelement / anycompatible arguments: an untyped literal resolves to text.
  const valueType = (e: E): DataType => (e.type.name === 'unknown' ? T.text : e.type);
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
      // lag(int_col, 1, 0.7) is numeric; no common type means no such function. A polymorphic result
      // keeps no type modifier, so a default wider than numeric(6,2) or varchar(2) comes back as given.
      let t = valueType(args[0]!);
      if (args.length === 3) {
        const common = commonSupertype([t, args[2]!.type]);
        if (common === null) throw argError(name, args, loc);
        t = common;
      }
      t = plainType(t);
      const out = [coerce(args[0]!, t)];
      if (args.length >= 2) out.push(coerce(args[1]!, T.int4));
      if (args.length === 3) out.push(coerce(args[2]!, t));
      return { args: out, type: t };
    }
    case 'first_value':
    case 'last_value': {
      if (args.length !== 1) throw argError(name, args, loc);
      const t = plainType(valueType(args[0]!));
      return { args: [coerce(args[0]!, t)], type: t };
    }
    case 'nth_value': {
      if (args.length !== 2) throw argError(name, args, loc);
      const t = plainType(valueType(args[0]!));
      return { args: [coerce(args[0]!, t), coerce(args[1]!, T.int4)], type: t };
    }
    default:
      throw argError(name, args, loc);
  }
}
