/**
 * `CAST(x AS numeric(p, s))` of a double or an integer, computed as unscaled doubles (a
 * scaledNumericColumn) instead of one Numeric per row: sum, avg, min, max, comparisons and Top-N read
 * those doubles, and the Numerics are built only for rows that are shown. Building a Numeric from a
 * double (its 15 significant digits, as PostgreSQL's float8_numeric prints them) and rounding it to the
 * typmod was most of what `sum(CAST(v AS numeric(12,2)))` cost.
 *
 * PostgreSQL rounds twice: the double to 15 significant digits D, then D to s places (half away from
 * zero). Here t = |v| * 10^s is rounded once. D differs from v by at most half a unit in the 15th
 * digit, and t carries one rounding error of its own; both together stay far below t * 1e-13. So when
 * t's fraction is further than that from one half, the two roundings of D * 10^s and t fall on the
 * same side and agree. A row closer to a half (v = 1.005, whose D is exactly 1.005) takes PostgreSQL's
 * exact path (castValue) and its coefficient. Typmods are taken with 0 <= s <= p <= 15, so every result is
 * a whole number below 10^15, exact in a double. A batch holding NaN, an infinity, a value the
 * precision cannot hold or an int8 beyond 2^53 is cast the general way, which keeps its NaN or raises
 * PostgreSQL's error.
 */
import { castValue } from '../common/cast.js';
import { scaledNumericColumn, type Column } from '../common/column.js';
import { decodeNumericTypmod, Numeric } from '../common/numeric.js';
import type { Kernel } from './compile-expr.js';
import type { Expr } from '../logical/expr.js';

const MAX_PRECISION = 15;
const POW10 = Array.from({ length: MAX_PRECISION + 1 }, (_, i) => 10 ** i);
/** Relative distance from a half within which the single rounding may disagree with PostgreSQL's two. */
const HALF_MARGIN = 1e-13;

/**
 * A kernel for `e` when it is such a cast (its argument computed by `argKernel`), else null.
 * `general` computes the whole cast the ordinary way, for batches the fast path does not take.
 */
export function scaledNumericCastKernel(e: Expr, argKernel: (a: Expr) => Kernel, general: () => Kernel): Kernel | null {
  if (e.kind !== 'cast' || e.type.name !== 'numeric' || e.type.typmod < 0) return null;
  const from = e.arg.type.name;
  if (from !== 'float8' && from !== 'int2' && from !== 'int4' && from !== 'int8') return null;
  const { precision, scale } = decodeNumericTypmod(e.type.typmod);
  if (scale < 0 || scale > precision || precision > MAX_PRECISION) return null;
  const arg = argKernel(e.arg);
  let fallback: Kernel | null = null;
  const type = e.type;
  const pow = POW10[scale]!;
  const limit = POW10[precision]!;
  const exact = (v: number, ctx: Parameters<Kernel['run']>[1]): number => {
    const n = castValue(v, e.arg.type, type, ctx.eval, true) as Numeric;
    return Number(n.coef);
  };
  return {
    slots: arg.slots,
    run(batch, ctx, S): Column {
      const col = arg.run(batch, ctx, S);
      const n = batch.length;
      const data = col.data;
      const nulls = col.nulls;
      const out = new Float64Array(n);
      let ok = true;
      if (data instanceof Float64Array && from === 'float8') {
        for (let i = 0; i < n; i++) {
          if (nulls !== null && nulls[i] === 1) continue;
          const v = data[i]!;
          const t = (v < 0 ? -v : v) * pow;
          // NaN and the infinities fail this too.
          if (!(t < limit)) {
            ok = false;
            break;
          }
          const fl = Math.floor(t);
          const d = t - fl - 0.5;
          const margin = t * HALF_MARGIN;
          // Too near a half to round on the double: rare, so a branch the processor predicts.
          if (!(d > margin || -d > margin)) {
            out[i] = exact(v, ctx);
            continue;
          }
          // Up or down without a branch: which one is as random as the values' fractions, and a
          // branch on it was mispredicted on every other row.
          const u = fl + +(d > 0);
          // Rounding up may reach 10^p: the general way words that error.
          if (u >= limit) {
            ok = false;
            break;
          }
          // 0 - u: a negative value rounding to zero is a plain 0, as numeric has no -0.
          out[i] = v < 0 ? 0 - u : u;
        }
      } else if (data instanceof Int32Array || (data instanceof Float64Array && from === 'int8')) {
        const max = limit / pow;
        for (let i = 0; i < n; i++) {
          if (nulls !== null && nulls[i] === 1) continue;
          const v = data[i]!;
          if (!(v < max && v > -max)) {
            ok = false;
            break;
          }
          out[i] = v * pow + 0;
        }
      } else ok = false;
      if (!ok) {
        fallback ??= general();
        return fallback.run(batch, ctx, S);
      }
      return scaledNumericColumn(type, out, scale, nulls === null ? null : nulls.length === n ? nulls : nulls.slice(0, n));
    },
  };
}
