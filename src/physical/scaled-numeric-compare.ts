/**
 * `numeric column <op> numeric constant` (`price > 100.5`) over a scaledNumericColumn (column.ts),
 * decided on its unscaled doubles: the general predicate would build a Numeric per row to compare.
 *
 * A row's value is u / 10^s, with u a whole number below 2^53 in magnitude. The constant c is brought
 * to the column's scale exactly (BigInt), as T = c·10^s, and each operator becomes one comparison of u
 * with the whole number floor(T): u > T ⇔ u > ⌊T⌋, u ≤ T ⇔ u ≤ ⌊T⌋, and where T is not whole, u ≥ T ⇔
 * u > ⌊T⌋, u < T ⇔ u ≤ ⌊T⌋, u = T never. A ⌊T⌋ beyond ±2^53 decides every row alike, so it is clamped
 * there, where doubles are still exact. NULL rows are never selected, as a comparison with NULL is not
 * true. A column of another form, a NaN or infinite constant, or a constant that cannot be computed
 * (its cast fails) leave the batch to the general predicate, errors included.
 */
import { Numeric } from '../common/numeric.js';
import { scaledNumbers, type Batch } from '../common/column.js';
import type { CompareOp, Expr } from '../logical/expr.js';
import type { ExecContext } from '../execution/context.js';

/** The batch's selected rows, or null when the general predicate has to decide them. */
export type ScaledCompare = (batch: Batch, ctx: ExecContext, out: Uint32Array | undefined) => { sel: Uint32Array; n: number } | null;

const LIMIT = 2n ** 53n;

/** The fast form of `e`, or null when it is not such a comparison. */
export function scaledNumericCompare(e: Expr, evalConstant: (e: Expr, ctx: ExecContext) => unknown): ScaledCompare | null {
  if (e.kind !== 'compare' || e.left.type.name !== 'numeric' || e.right.type.name !== 'numeric') return null;
  let op = e.op;
  let col: Expr = e.left;
  let konst: Expr = e.right;
  if (col.kind !== 'column') {
    [col, konst] = [konst, col];
    op = FLIPPED[op];
  }
  if (col.kind !== 'column' || !isConstant(konst)) return null;
  const index = col.index;
  /** undefined: not computed yet; null: the general predicate decides every batch. */
  let value: Numeric | null | undefined;
  let cachedScale = -1;
  let bound = 0;
  let whole = false;
  return (batch, ctx, out) => {
    const c = batch.columns[index]!;
    const sn = scaledNumbers(c);
    if (sn === null) return null;
    if (value === undefined) value = constantValue(konst, ctx, evalConstant);
    if (value === null) return null;
    if (sn.scale !== cachedScale) {
      [bound, whole] = atScale(value, sn.scale);
      cachedScale = sn.scale;
    }
    const n = batch.length;
    const sel = out !== undefined && out.length >= n ? out : new Uint32Array(n);
    return { sel, n: select(sn.unscaled, c.nulls, n, op, bound, whole, sel) };
  };
}

const FLIPPED: Record<CompareOp, CompareOp> = { '=': '=', '<>': '<>', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

function isConstant(e: Expr): boolean {
  return e.kind === 'const' || (e.kind === 'cast' && e.arg.kind === 'const');
}

/** The constant as a finite Numeric, or null (NULL, NaN, infinity, or its evaluation failed: the general path reports that). */
function constantValue(e: Expr, ctx: ExecContext, evalConstant: (e: Expr, ctx: ExecContext) => unknown): Numeric | null {
  let v: unknown;
  try {
    v = evalConstant(e, ctx);
  } catch {
    return null;
  }
  return v instanceof Numeric && v.isFinite() ? v : null;
}

/** ⌊c·10^s⌋ clamped to ±2^53, and whether c·10^s is a whole number. */
function atScale(c: Numeric, s: number): [number, boolean] {
  let t: bigint;
  let whole = true;
  if (c.scale <= s) t = c.coef * 10n ** BigInt(s - c.scale);
  else {
    const d = 10n ** BigInt(c.scale - s);
    t = c.coef / d;
    const r = c.coef % d;
    if (r !== 0n) {
      whole = false;
      // BigInt division truncates toward zero: a negative remainder means the floor is one lower.
      if (r < 0n) t -= 1n;
    }
  }
  if (t > LIMIT) return [Number(LIMIT), whole];
  if (t < -LIMIT) return [-Number(LIMIT), whole];
  return [Number(t), whole];
}

function select(u: Float64Array, nulls: Uint8Array | null, n: number, op: CompareOp, f: number, whole: boolean, sel: Uint32Array): number {
  let k = 0;
  // Branch-free append (as the general predicate does); NULL rows are never kept.
  switch (op) {
    case '>':
      for (let i = 0; i < n; i++) {
        sel[k] = i;
        k += +(u[i]! > f);
      }
      break;
    case '<=':
      for (let i = 0; i < n; i++) {
        sel[k] = i;
        k += +(u[i]! <= f);
      }
      break;
    case '>=':
      if (whole)
        for (let i = 0; i < n; i++) {
          sel[k] = i;
          k += +(u[i]! >= f);
        }
      else
        for (let i = 0; i < n; i++) {
          sel[k] = i;
          k += +(u[i]! > f);
        }
      break;
    case '<':
      if (whole)
        for (let i = 0; i < n; i++) {
          sel[k] = i;
          k += +(u[i]! < f);
        }
      else
        for (let i = 0; i < n; i++) {
          sel[k] = i;
          k += +(u[i]! <= f);
        }
      break;
    case '=':
      if (whole)
        for (let i = 0; i < n; i++) {
          sel[k] = i;
          k += +(u[i]! === f);
        }
      break;
    case '<>':
      for (let i = 0; i < n; i++) {
        sel[k] = i;
        k += +(!whole || u[i]! !== f);
      }
      break;
  }
  if (nulls === null) return k;
  let m = 0;
  for (let j = 0; j < k; j++) {
    const i = sel[j]!;
    sel[m] = i;
    m += 1 - nulls[i]!;
  }
  return m;
}
