/**
 * Exact accumulation of numeric inputs as PostgreSQL's NumericAggState does it: finite values are summed
 * exactly, NaN and ±Infinity are only counted, and the result display scale is the largest input scale.
 * The per-scale counts exist for remove(): PostgreSQL's inverse transition gives up (and recomputes)
 * when the last value of the largest scale leaves the frame, so the result scale always reflects the
 * rows currently in the frame; we get the same answer by rescaling the exact sum.
 */
import { Numeric } from '../../common/numeric.js';

export class NumericAccum {
  /** Finite inputs only. */
  n = 0;
  nan = 0;
  pinf = 0;
  ninf = 0;
  sum: Numeric = Numeric.ZERO;
  /** Only maintained when sumX2 is wanted (variance/stddev). */
  sum2: Numeric = Numeric.ZERO;
  private scaleCounts: Map<number, number> | null = null;

  constructor(
    private readonly withSquares: boolean,
    /** Track scales so remove() keeps the result scale right (sliding accumulators only). */
    private readonly invertible: boolean,
  ) {}

  get total(): number {
    return this.n + this.nan + this.pinf + this.ninf;
  }

  add(x: Numeric): void {
    if (!x.isFinite()) {
      if (x.isNaN()) this.nan++;
      else if (x.sign() > 0) this.pinf++;
      else this.ninf++;
      return;
    }
    this.n++;
    this.sum = this.sum.add(x);
    if (this.withSquares) this.sum2 = this.sum2.add(x.mul(x));
    if (this.invertible) {
      const m = (this.scaleCounts ??= new Map());
      m.set(x.scale, (m.get(x.scale) ?? 0) + 1);
    }
  }

  remove(x: Numeric): void {
    if (!x.isFinite()) {
      if (x.isNaN()) this.nan--;
      else if (x.sign() > 0) this.pinf--;
      else this.ninf--;
      return;
    }
    this.n--;
    this.sum = this.sum.sub(x);
    if (this.withSquares) this.sum2 = this.sum2.sub(x.mul(x));
    const m = this.scaleCounts;
    if (m !== null) {
      const c = (m.get(x.scale) ?? 0) - 1;
      if (c <= 0) m.delete(x.scale);
      else m.set(x.scale, c);
    }
  }

  merge(o: NumericAccum): void {
    this.n += o.n;
    this.nan += o.nan;
    this.pinf += o.pinf;
    this.ninf += o.ninf;
    this.sum = this.sum.add(o.sum);
    if (this.withSquares) this.sum2 = this.sum2.add(o.sum2);
    if (this.invertible && o.scaleCounts !== null) {
      const m = (this.scaleCounts ??= new Map());
      for (const [s, c] of o.scaleCounts) m.set(s, (m.get(s) ?? 0) + c);
    }
  }

  reset(): void {
    this.n = this.nan = this.pinf = this.ninf = 0;
    this.sum = Numeric.ZERO;
    this.sum2 = Numeric.ZERO;
    this.scaleCounts = null;
  }

  private maxScale(): number {
    let s = 0;
    if (this.scaleCounts !== null) for (const k of this.scaleCounts.keys()) if (k > s) s = k;
    return s;
  }

  /** sumX at the current frame's scale (exact: removed values only ever lowered it). */
  sumX(): Numeric {
    return this.invertible ? this.sum.round(this.maxScale()) : this.sum;
  }

  sumX2(): Numeric {
    return this.invertible ? this.sum2.round(2 * this.maxScale()) : this.sum2;
  }

  /** NaN/Infinity outcome of sum and avg (numeric_sum / numeric_avg), or null when all inputs were finite. */
  special(): Numeric | null {
    if (this.nan > 0) return Numeric.NaN;
    if (this.pinf > 0 && this.ninf > 0) return Numeric.NaN;
    if (this.pinf > 0) return Numeric.POSITIVE_INFINITY;
    if (this.ninf > 0) return Numeric.NEGATIVE_INFINITY;
    return null;
  }
}
