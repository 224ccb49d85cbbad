/**
 * `numeric → float8` of numeric arithmetic on integers and numeric constants (`(i * 0.5)::float8`, the
 * assignment cast of `INSERT INTO t(float8col) SELECT i * 0.5 …`), computed on doubles without a
 * Numeric per row and per operand.
 *
 * An operand is held as a scaled integer: a double coefficient c and a scale s known when the code is
 * generated (an integer has scale 0, a constant its display scale), the value being c / 10^s. `*`
 * multiplies coefficients and adds scales, `+` and `-` align the scales first, as numeric.c's exact
 * add, sub and mul do. While every coefficient stays below 2^53 each step is exact, so the result is
 * the exact numeric value; one IEEE division by 10^s (exact for s ≤ 22) then rounds it correctly, the
 * same double PostgreSQL's numeric_float8 gets from strtod of the decimal text. A step leaving 2^53, or
 * an int8 held as a bigint, marks the row NaN (never a value here: the operands are integers and finite
 * constants) and that row is computed by the general code instead, errors included.
 */
import { Numeric } from '../common/numeric.js';
import type { Value } from '../common/types.js';
import type { Expr } from '../logical/expr.js';

/** What the generator needs of the expression compiler. */
export interface ScaledGen {
  tmp(): string;
  konst(v: unknown): string;
  gen(e: Expr): [string, string];
  /** The value of a cast of a constant, computed once (undefined when it is not foldable). */
  folded(e: Expr & { kind: 'cast' }): Value | undefined;
}

/** Largest scale whose power of ten is an exact double. */
const MAX_SCALE = 22;
const LIMIT = '9007199254740992';

interface Scaled {
  code: string;
  /** Variable holding the coefficient: null for SQL NULL, NaN when not exact. */
  c: string;
  scale: number;
}

/** Leaves read nothing but a value: recomputing them in the general code costs no side effect. */
function isLeaf(e: Expr): boolean {
  return e.kind === 'column' || e.kind === 'const' || e.kind === 'param' || e.kind === 'outer';
}

function scaled(g: ScaledGen, e: Expr): Scaled | null {
  if (e.type.name !== 'numeric' || e.type.typmod !== -1) return null;
  // A constant, or a cast of one (the binder's CAST('0.5' AS numeric)).
  const v = e.kind === 'const' ? e.value : e.kind === 'cast' ? g.folded(e) : undefined;
  if (v !== undefined) {
    if (!(v instanceof Numeric) || !v.isFinite() || v.scale > MAX_SCALE) return null;
    const c = Number(v.coef);
    if (!(Math.abs(c) < 2 ** 53)) return null;
    const r = g.tmp();
    return { code: `const ${r} = ${g.konst(c)};`, c: r, scale: v.scale };
  }
  if (e.kind === 'cast') {
    const from = e.arg.type.name;
    if ((from !== 'int2' && from !== 'int4' && from !== 'int8') || !isLeaf(e.arg)) return null;
    const [code, v] = g.gen(e.arg);
    const r = g.tmp();
    const c = from === 'int8' ? `${v} === null ? null : typeof ${v} === 'number' ? ${v} : NaN` : v;
    return { code: `${code}\nconst ${r} = ${c};`, c: r, scale: 0 };
  }
  if (e.kind !== 'call' || e.args.length !== 2 || (e.name !== '*' && e.name !== '+' && e.name !== '-')) return null;
  const a = scaled(g, e.args[0]!);
  const b = a === null ? null : scaled(g, e.args[1]!);
  if (a === null || b === null) return null;
  const r = g.tmp();
  if (e.name === '*') {
    const scale = a.scale + b.scale;
    if (scale > MAX_SCALE) return null;
    return {
      code: `${a.code}\n${b.code}\nlet ${r} = (${a.c} === null || ${b.c} === null) ? null : ${a.c} * ${b.c};\nif (${r} !== null && !(${r} < ${LIMIT} && ${r} > -${LIMIT})) ${r} = NaN;`,
      c: r,
      scale,
    };
  }
  const scale = Math.max(a.scale, b.scale);
  // Aligning multiplies by an exact power of ten; each aligned operand is checked like a result.
  const align = (x: Scaled): [string, string] => {
    if (x.scale === scale) return ['', x.c];
    const u = g.tmp();
    return [`let ${u} = ${x.c} === null ? null : ${x.c} * ${pow10(scale - x.scale)};\nif (${u} !== null && !(${u} < ${LIMIT} && ${u} > -${LIMIT})) ${u} = NaN;`, u];
  };
  const [ac, av] = align(a);
  const [bc, bv] = align(b);
  return {
    code: `${a.code}\n${b.code}\n${ac}\n${bc}\nlet ${r} = (${av} === null || ${bv} === null) ? null : ${av} ${e.name} ${bv};\nif (${r} !== null && !(${r} < ${LIMIT} && ${r} > -${LIMIT})) ${r} = NaN;`,
    c: r,
    scale,
  };
}

/** 10^n as a literal of the exact double (n ≤ 22): from its decimal text, not a pow() that may round. */
function pow10(n: number): string {
  return String(Number(`1e${n}`));
}

/**
 * Code computing `e`, a cast of numeric to float8, into a fresh variable; `general(r)` is the code
 * that assigns the cast's value to r the usual way, run for rows the doubles cannot do exactly. Null
 * when the argument is not integer and constant arithmetic the scaled form covers.
 */
export function scaledNumericFloat(g: ScaledGen, e: Expr & { kind: 'cast' }, general: (r: string) => string): [string, string] | null {
  if (e.type.name !== 'float8' || e.arg.type.name !== 'numeric') return null;
  // A lone constant is folded at compile time already.
  if (e.arg.kind === 'const') return null;
  const s = scaled(g, e.arg);
  if (s === null) return null;
  const r = g.tmp();
  // The coefficient is exact: a zero is numeric's zero (it has no -0), anything else one rounding.
  const value = s.scale === 0 ? s.c : `${s.c} / ${pow10(s.scale)}`;
  return [`${s.code}\nlet ${r};\nif (${s.c} === null) ${r} = null; else if (${s.c} !== ${s.c}) { ${general(r)} } else ${r} = ${s.c} === 0 ? 0 : ${value};`, r];
}
