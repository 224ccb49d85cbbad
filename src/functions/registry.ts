/**
 * The function catalog: scalar functions and operators by name, each with PostgreSQL-style overloads.
 * The binder resolves a call to one overload (exact match first, then implicit casts by type category,
 * as PostgreSQL's func_select_candidate does); the expression compiler calls `fn` positionally.
 */
import type { DataType, TypeName, Value } from '../common/types.js';
import type { EvalContext } from './eval-context.js';

/**
 * Implementations take the evaluation context and their (already coerced) arguments. Strict functions
 * are never called with a null argument. Parameters are declared with their concrete value types in
 * each implementation; `never[]` here lets any such signature be registered.
 */
export type ScalarImpl = (ctx: EvalContext, ...args: never[]) => Value;

/**
 * 'anynonarray' is 'any' except arrays, as PostgreSQL's textanycat needs. 'anyelement' and 'anyarray'
 * are resolved together with PostgreSQL's anycompatible rules: the anyelement arguments and the
 * elements of the anyarray arguments take their common type T, and anyarray means T[].
 */
export type ArgType = TypeName | 'any' | 'anyelement' | 'anynonarray' | 'anyarray';

export interface ScalarOverload {
  readonly args: readonly ArgType[];
  /** When set, the last parameter repeats (e.g. concat(variadic "any")). */
  readonly variadic?: boolean;
  /** `f(VARIADIC NULL::t[])` calls f with no variadic arguments (format) rather than giving NULL. */
  readonly nullVariadicArrayIsEmpty?: boolean;
  /** Result type: fixed, or computed from the resolved argument types (for anyelement-style functions). */
  readonly returns: DataType | ((args: readonly DataType[]) => DataType);
  /** Default true: a null argument yields null without calling fn. */
  readonly strict?: boolean;
  /** Volatile functions (random, clock_timestamp) are never constant-folded. */
  readonly volatile?: boolean;
  readonly fn: ScalarImpl;
  /**
   * For 'any'-typed parameters whose formatting depends on the SQL type (concat, format, ||): returns
   * an implementation specialised to the resolved argument types. Preferred over `fn` when present.
   */
  readonly specialize?: (argTypes: readonly DataType[]) => ScalarImpl;
}

export interface ScalarFunction {
  readonly name: string;
  readonly overloads: readonly ScalarOverload[];
}

const scalars = new Map<string, ScalarOverload[]>();

/** Register overloads under a (lower-case) function or operator name such as 'abs', '+', '||', '~~'. */
export function registerScalar(name: string, ...overloads: ScalarOverload[]): void {
  const key = name.toLowerCase();
  const list = scalars.get(key);
  if (list) list.push(...overloads);
  else scalars.set(key, [...overloads]);
}

export function lookupScalar(name: string): readonly ScalarOverload[] | undefined {
  return scalars.get(name.toLowerCase());
}

/**
 * A built-in function's parameter names, for calls in named notation (`make_interval(days => 3)`), and
 * the value of each parameter that has a default (undefined: required).
 */
export interface ParamNames {
  readonly names: readonly string[];
  readonly defaults: readonly (Value | undefined)[];
}

const paramNames = new Map<string, ParamNames>();

export function registerParamNames(name: string, names: readonly string[], defaults: readonly (Value | undefined)[] = []): void {
  paramNames.set(name.toLowerCase(), { names, defaults });
}

export function lookupParamNames(name: string): ParamNames | undefined {
  return paramNames.get(name.toLowerCase());
}

export function scalarNames(): string[] {
  return [...scalars.keys()].sort();
}
