/** Type coercion at bind time: literals are parsed once, parameters take the type their context needs. */
import { QuireError } from '../common/errors.js';
import { canCoerceImplicitly, castContext, castValue, commonSupertype, selectCommonType } from '../common/cast.js';
import { parseValue } from '../common/parse-value.js';
import { category, isArrayType, type DataType, T, typeDisplayName, type TypeName } from '../common/types.js';
import type { EvalContext } from '../functions/eval-context.js';
import type { Expr } from '../logical/expr.js';
import { rowConstructor } from '../functions/scalar/row-constructor.js';

export interface CoerceEnv {
  readonly evalCtx: EvalContext;
  /** Parameter types, inferred from use ($1 = index 0); unknown until a context fixes them. */
  readonly paramTypes: DataType[];
}

export type CoercionMode = 'implicit' | 'assignment' | 'explicit';

function sameType(a: DataType, b: DataType): boolean {
  return a.name === b.name && a.typmod === b.typmod && a.composite === b.composite;
}

export function canCoerce(from: DataType, to: DataType, mode: CoercionMode): boolean {
  if (from.name === to.name) return true;
  if (from.name === 'unknown') return true;
  const c = castContext(from.name, to.name);
  if (c === null) return false;
  if (mode === 'explicit') return true;
  if (mode === 'assignment') return c === 'implicit' || c === 'assignment';
  return c === 'implicit';
}

function withPosition<X>(position: number, f: () => X): X {
  try {
    return f();
  } catch (e) {
    if (e instanceof QuireError && e.position === 0) e.position = position;
    throw e;
  }
}

/** Coerce `e` to `to`; throws 42804/42846 when the coercion is not allowed in `mode`. */
export function coerce(e: Expr, to: DataType, mode: CoercionMode, env: CoerceEnv, position = 0, what?: string): Expr {
  if (sameType(e.type, to)) return e;
  if (to.name === 'unknown') return e;
  if (e.kind === 'const' && (e.type.name === 'unknown' || e.value === null)) {
    if (e.value === null) return { kind: 'const', value: null, type: to };
    return withPosition(e.position ?? position, () => {
      // The clock is read only by 'now', 'today' and the like: a plan without them does not depend on it
      // (see api/file-plan-cache.ts).
      const tz = {
        timezone: env.evalCtx.timezone,
        ...(env.evalCtx.dateStyle !== undefined ? { dateStyle: env.evalCtx.dateStyle } : {}),
        get now() {
          return env.evalCtx.statementTime;
        },
      };
      // An explicit cast of a literal to varchar(n)/char(n)/bit(n) truncates; input with the modifier would reject.
      if (mode === 'explicit' && to.typmod !== -1 && (to.name === 'varchar' || to.name === 'bpchar' || to.name === '_varchar' || to.name === '_bpchar' || to.name === 'bit' || to.name === 'varbit')) {
        const base = stripMod(to);
        return { kind: 'const', value: castValue(parseValue(e.value as string, base, tz), base, to, tz, true), type: to };
      }
      return { kind: 'const', value: parseValue(e.value as string, to, tz), type: to };
    });
  }
  if (e.kind === 'param' && e.type.name === 'unknown') {
    env.paramTypes[e.index] = to;
    return { ...e, type: to };
  }
  if (e.type.name === to.name && e.type.composite !== to.composite) {
    // A row (or another composite) as a named composite type: fields convert at run time. A named
    // composite goes to an anonymous record (a function taking record) unchanged.
    if (to.composite === undefined) return e;
    if (e.type.composite !== undefined) {
      throw new QuireError('42846', `cannot cast type ${typeDisplayName(e.type)} to ${typeDisplayName(to)}`, { position });
    }
    if (e.kind === 'call' && e.overload === rowConstructor) return rowAsComposite(e, to, env, position);
    return foldCast({ kind: 'cast', arg: e, type: to, explicit: mode === 'explicit' }, env, position);
  }
  if (e.type.name === to.name) {
    // Same type, different modifier (varchar(5) -> text, numeric(10,2) -> numeric): dropping a modifier
    // changes no value, so the expression is relabelled, except a cast, whose type is what it applies
    // (lag(s::varchar(2)) must still cut s to two characters).
    if (to.typmod === -1) return e.kind === 'cast' ? e : ({ ...e, type: to } as Expr);
    return foldCast({ kind: 'cast', arg: e, type: to, explicit: mode === 'explicit' }, env, position);
  }
  if (!canCoerce(e.type, to, mode)) {
    // A named target (a column, LIMIT's argument) reports the mismatch the same way whether a cast
    // exists in another context or not at all, as PostgreSQL's transformAssignedExpr and
    // coerce_to_specific_type do.
    if (what?.startsWith('argument of ')) {
      throw new QuireError('42804', `${what} must be type ${typeDisplayName(to)}, not type ${typeDisplayName(e.type)}`, { position });
    }
    if (what) {
      throw new QuireError('42804', `${what} is of type ${typeDisplayName(to)} but expression is of type ${typeDisplayName(e.type)}`, {
        position,
        hint: 'You will need to rewrite or cast the expression.',
      });
    }
    if (castContext(e.type.name, to.name) === null) {
      throw new QuireError('42846', `cannot cast type ${typeDisplayName(e.type)} to ${typeDisplayName(to)}`, { position });
    }
    throw new QuireError('42804', `cannot coerce type ${typeDisplayName(e.type)} to ${typeDisplayName(to)} implicitly`, {
      position,
      hint: 'You will need to rewrite or cast the expression.',
    });
  }
  return foldCast({ kind: 'cast', arg: e, type: to, explicit: mode === 'explicit' }, env, position);
}

/** ROW(…)::t: each field converted to its column's type at bind time, as PostgreSQL's coerce_record_to_complex. */
function rowAsComposite(row: Expr & { kind: 'call' }, to: DataType, env: CoerceEnv, position: number): Expr {
  const fields = to.composite!.fields;
  const fail = (detail: string): QuireError => new QuireError('42846', `cannot cast type record to ${typeDisplayName(to)}`, { position, detail });
  if (row.args.length !== fields.length) throw fail(`Input has too ${row.args.length < fields.length ? 'few' : 'many'} columns.`);
  const args = row.args.map((a, i) => {
    const ft = fields[i]!.type;
    if (a.kind === 'const' && a.value === null) return { kind: 'const', value: null, type: ft } as Expr;
    if (!canCoerce(a.type, ft, 'assignment')) throw fail(`Cannot cast type ${typeDisplayName(a.type)} to ${typeDisplayName(ft)} in column ${i + 1}.`);
    return coerce(a, ft, 'assignment', env, position);
  });
  return { ...row, args, type: to };
}

function foldCast(c: Expr & { kind: 'cast' }, env: CoerceEnv, position: number): Expr {
  if (c.arg.kind === 'const') {
    const arg = c.arg;
    return withPosition(position, () => ({
      kind: 'const',
      // The session's TimeZone and output settings: a date cast to text prints in its DateStyle.
      value: castValue(arg.value, arg.type, c.type, env.evalCtx, c.explicit),
      type: c.type,
    }));
  }
  return c;
}

const NUMERIC_RANK: Partial<Record<TypeName, number>> = { int2: 1, int4: 2, int8: 3, numeric: 4, float4: 5, float8: 6 };
const DATETIME_RANK: Partial<Record<TypeName, number>> = { date: 1, timestamp: 2, timestamptz: 3 };

/** Types without btree operators: no comparison, ORDER BY, GROUP BY or DISTINCT (json, point). */
export function hasNoEquality(t: DataType): boolean {
  return t.name === 'json' || t.name === 'point';
}

/** The type both sides of a comparison are brought to, or null when PostgreSQL has no such operator. */
export function comparisonType(a: DataType, b: DataType): DataType | null {
  // json has no comparison operators at all (jsonb would).
  if (a.name === 'json' || b.name === 'json' || a.name === '_json' || b.name === '_json') return null;
  // point has no btree operators either (its ~= is not equality).
  if (a.name === 'point' || b.name === 'point' || a.name === '_point' || b.name === '_point') return null;
  if (a.name === 'unknown' && b.name === 'unknown') return T.text;
  if (a.name === 'unknown') return stripMod(b);
  if (b.name === 'unknown') return stripMod(a);
  if (a.name === b.name) return stripMod(a);
  // Array comparison is anyarray op anyarray: both sides must already be one array type.
  if (isArrayType(a) || isArrayType(b)) return null;
  const ca = category(a);
  const cb = category(b);
  // oid meets the integers as oid (they cast to it implicitly) and has no operators with the others.
  if (a.name === 'oid' || b.name === 'oid') return castContext(a.name, b.name) === 'implicit' ? T.oid : castContext(b.name, a.name) === 'implicit' ? T.oid : null;
  // money is in the numeric category but has operators only with itself.
  if (a.name === 'money' || b.name === 'money') return null;
  if (ca === 'N' && cb === 'N') return NUMERIC_RANK[a.name]! >= NUMERIC_RANK[b.name]! ? stripMod(a) : stripMod(b);
  if (ca === 'S' && cb === 'S') return T.text;
  if (ca === 'D' && cb === 'D' && DATETIME_RANK[a.name] !== undefined && DATETIME_RANK[b.name] !== undefined) return DATETIME_RANK[a.name]! >= DATETIME_RANK[b.name]! ? stripMod(a) : stripMod(b);
  if (castContext(a.name, b.name) === 'implicit') return stripMod(b);
  if (castContext(b.name, a.name) === 'implicit') return stripMod(a);
  return null;
}

export function stripMod(t: DataType): DataType {
  if (t.typmod === -1) return t;
  if (t.name === 'bpchar') return T.bpchar;
  return T[t.name];
}

/** UNION / CASE / VALUES / COALESCE type resolution; 42804 when the branches cannot be unified. */
export function unifyTypes(types: DataType[], context: string, position = 0): DataType {
  if (types.every((t) => t.name === 'unknown')) return T.text;
  const known = types.filter((t) => t.name !== 'unknown');
  // An untyped literal joins without the others' modifier: COALESCE(varchar(3) column, 'longer') is varchar.
  if (known.length === types.length && known.every((t) => t.name === known[0]!.name && t.typmod === known[0]!.typmod)) return known[0]!;
  const t = commonSupertype(types);
  if (t === null) {
    // Same category but no implicit cast to the chosen type: PostgreSQL fails converting that input.
    const chosen = selectCommonType(types);
    const stray = chosen === null ? undefined : known.find((x) => !canCoerceImplicitly(x, chosen));
    if (chosen !== null && stray !== undefined) {
      throw new QuireError('42846', `${context === 'CASE' ? 'CASE/WHEN' : context} could not convert type ${typeDisplayName(stray)} to ${typeDisplayName(chosen)}`, { position });
    }
    const a = known[0]!;
    const b = known.find((x) => x.name !== a.name) ?? a;
    throw new QuireError('42804', `${context} types ${typeDisplayName(a)} and ${typeDisplayName(b)} cannot be matched`, { position });
  }
  return t;
}
