/**
 * PostgreSQL's float8_accum state {N, Sx, Sxx} (Youngs-Cramer), used by avg, variance and stddev of
 * float4/float8. avg() goes through the same state as variance in PostgreSQL, so it also raises the
 * same overflow errors (e.g. avg of 1e200 and -1e200 overflows in Sxx); we replicate that exactly.
 */
import type { Value } from '../../common/types.js';
import type { Column } from '../../common/column.js';
import { floatOverflow } from '../scalar/support/float.js';
import type { GroupedAccumulator, InlineCode, InlineStep, SlidingAccumulator } from './aggregate-function.js';
import { growF64 } from './support.js';
import { anchorShape } from '../../common/shape-anchor.js';

export type FloatFinal = 'avg' | 'var_pop' | 'var_samp' | 'stddev_pop' | 'stddev_samp';

export function floatFinal(kind: FloatFinal, n: number, sx: number, sxx: number): Value {
  switch (kind) {
    case 'avg':
      return n === 0 ? null : sx / n;
    case 'var_pop':
      return n === 0 ? null : sxx / n;
    case 'var_samp':
      return n <= 1 ? null : sxx / (n - 1);
    case 'stddev_pop':
      return n === 0 ? null : Math.sqrt(sxx / n);
    case 'stddev_samp':
      return n <= 1 ? null : Math.sqrt(sxx / (n - 1));
  }
}

export class GroupedFloatAccum implements GroupedAccumulator {
  private n = new Float64Array(0);
  private sx = new Float64Array(0);
  private sxx = new Float64Array(0);
  constructor(private readonly kind: FloatFinal) {}

  grow(groups: number): void {
    this.n = growF64(this.n, groups);
    this.sx = growF64(this.sx, groups);
    this.sxx = growF64(this.sxx, groups);
  }

  update(gids: Int32Array, count: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data as Float64Array;
    const nulls = c.nulls;
    const N = this.n;
    const SX = this.sx;
    const SXX = this.sxx;
    for (let k = 0; k < count; k++) {
      const g = gids[k]!;
      if (g < 0 || (nulls !== null && nulls[k] === 1)) continue;
      step(N, SX, SXX, g, d[k]!);
    }
  }

  updateSel(gids: Int32Array, sel: Uint32Array, count: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data as Float64Array;
    const nulls = c.nulls;
    const N = this.n;
    const SX = this.sx;
    const SXX = this.sxx;
    if (nulls === null) {
      for (let k = 0; k < count; k++) step(N, SX, SXX, gids[k]!, d[sel[k]!]!);
      return;
    }
    for (let k = 0; k < count; k++) {
      const i = sel[k]!;
      if (nulls[i] === 1) continue;
      step(N, SX, SXX, gids[k]!, d[i]!);
    }
  }

  /** update() for rows 0..n-1 all in group g (no GROUP BY): the same steps in the same order. */
  updateGroup(g: number, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data as Float64Array;
    const nulls = c.nulls;
    const N = this.n;
    const SX = this.sx;
    const SXX = this.sxx;
    if (nulls === null) for (let k = 0; k < n; k++) step(N, SX, SXX, g, d[k]!);
    else for (let k = 0; k < n; k++) if (nulls[k] === 0) step(N, SX, SXX, g, d[k]!);
  }

  /** updateGroup() over the rows sel[0..n). */
  updateGroupSel(g: number, sel: Uint32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const d = c.data as Float64Array;
    const nulls = c.nulls;
    const N = this.n;
    const SX = this.sx;
    const SXX = this.sxx;
    if (nulls === null) for (let k = 0; k < n; k++) step(N, SX, SXX, g, d[sel[k]!]!);
    else {
      for (let k = 0; k < n; k++) {
        const i = sel[k]!;
        if (nulls[i] === 0) step(N, SX, SXX, g, d[i]!);
      }
    }
  }

  /** step() as a statement (NULL rows are skipped, as update() skips them). */
  inlineStep(args: readonly Column[]): InlineStep | null {
    const c = args[0]!;
    if (!(c.data instanceof Float64Array)) return null;
    return { refs: [this.n, this.sx, this.sxx], code: accumStep, skipsNulls: c.nulls !== null };
  }

  result(g: number): Value {
    return floatFinal(this.kind, this.n[g]!, this.sx[g]!, this.sxx[g]!);
  }
}

/** step()'s common path: both results finite (a first value, n0 = 0, gives NaN and goes to update()). */
function accumStep(ref: (i: number) => string, g: string, v: string, t: string): InlineCode {
  const [N, SX, SXX] = [ref(0), ref(1), ref(2)];
  return {
    compute: `const ${t}n0 = ${N}[${g}]; const ${t}n1 = ${t}n0 + 1; const ${t}sx = ${SX}[${g}] + ${v}; const ${t}d = ${v} * ${t}n1 - ${t}sx;
const ${t}sxx = ${SXX}[${g}] + (${t}d * ${t}d) / (${t}n1 * ${t}n0);`,
    // One test for both: x - x is 0 for a finite x and NaN otherwise, and NaN + anything is NaN.
    ok: `(${t}sxx - ${t}sxx) + (${t}sx - ${t}sx) === 0`,
    store: `${N}[${g}] = ${t}n1; ${SX}[${g}] = ${t}sx; ${SXX}[${g}] = ${t}sxx;`,
  };
}

/**
 * One float8_accum step of group g with v. The common case (a group that already has rows, every value
 * finite) commits after one test of its results; everything else goes to accumulate(), which is
 * float8_accum as written. The common path computes the same operations in the same order, so when both
 * results are finite it stores what accumulate() would store: accumulate() differs only where n0 is 0
 * (then tmp is 0 and 0 / 0 is NaN here, which sends the step there) or a result is infinite or NaN
 * (sent there too). Testing each result once instead of each operand against both infinities halves the
 * cost of avg(float8).
 */
function step(N: Float64Array, SX: Float64Array, SXX: Float64Array, g: number, v: number): void {
  const n0 = N[g]!;
  const n1 = n0 + 1;
  const sx1 = SX[g]! + v;
  const tmp = v * n1 - sx1;
  const sxx = SXX[g]! + (tmp * tmp) / (n1 * n0);
  // x - x is 0 exactly when x is finite (NaN otherwise, and a NaN term makes the sum NaN): one branch
  if (sxx - sxx + (sx1 - sx1) === 0) {
    N[g] = n1;
    SX[g] = sx1;
    SXX[g] = sxx;
  } else accumulate(N, SX, SXX, g, v);
}

/** One float8_accum step of group g with v, every case. */
function accumulate(N: Float64Array, SX: Float64Array, SXX: Float64Array, g: number, v: number): void {
  const n0 = N[g]!;
  const sx0 = SX[g]!;
  const n1 = n0 + 1;
  const sx1 = sx0 + v;
  let sxx = SXX[g]!;
  if (n0 > 0) {
    const tmp = v * n1 - sx1;
    sxx += (tmp * tmp) / (n1 * n0);
    if (sx1 === Infinity || sx1 === -Infinity || sxx === Infinity || sxx === -Infinity) {
      if (sx0 !== Infinity && sx0 !== -Infinity && v !== Infinity && v !== -Infinity) floatOverflow();
      sxx = NaN;
    }
  } else if (v !== v || v === Infinity || v === -Infinity) {
    // A lone Inf/NaN input must not report variance 0.
    sxx = NaN;
  }
  N[g] = n1;
  SX[g] = sx1;
  SXX[g] = sxx;
}

export class SlidingFloatAccum implements SlidingAccumulator {
  n = 0;
  sx = 0;
  sxx = 0;
  constructor(private readonly kind: FloatFinal) {}

  add(args: readonly Value[]): void {
    const x = args[0];
    if (x === null) return;
    const v = x as number;
    const n0 = this.n;
    const sx0 = this.sx;
    const n1 = n0 + 1;
    const sx1 = sx0 + v;
    let sxx = this.sxx;
    if (n0 > 0) {
      const tmp = v * n1 - sx1;
      sxx += (tmp * tmp) / (n1 * n0);
      if (sx1 === Infinity || sx1 === -Infinity || sxx === Infinity || sxx === -Infinity) {
        if (sx0 !== Infinity && sx0 !== -Infinity && v !== Infinity && v !== -Infinity) floatOverflow();
        sxx = NaN;
      }
    } else if (!Number.isFinite(v)) {
      sxx = NaN;
    }
    this.n = n1;
    this.sx = sx1;
    this.sxx = sxx;
  }

  /** float8_combine. */
  merge(other: SlidingAccumulator): void {
    const o = other as SlidingFloatAccum;
    if (o.n === 0) return;
    if (this.n === 0) {
      this.n = o.n;
      this.sx = o.sx;
      this.sxx = o.sxx;
      return;
    }
    const n = this.n + o.n;
    const sx = this.sx + o.sx;
    if ((sx === Infinity || sx === -Infinity) && Number.isFinite(this.sx) && Number.isFinite(o.sx)) floatOverflow();
    const tmp = this.sx / this.n - o.sx / o.n;
    const sxx = this.sxx + o.sxx + (this.n * o.n * tmp * tmp) / n;
    if ((sxx === Infinity || sxx === -Infinity) && Number.isFinite(this.sxx) && Number.isFinite(o.sxx)) floatOverflow();
    this.n = n;
    this.sx = sx;
    this.sxx = sxx;
  }

  value(): Value {
    return floatFinal(this.kind, this.n, this.sx, this.sxx);
  }

  reset(): void {
    this.n = this.sx = this.sxx = 0;
  }
}

// Long-lived instances keep the shapes the optimized update/result loops check, so code optimized by
// one query serves the next (see shape-anchor.ts).
anchorShape(new GroupedFloatAccum('avg'));
anchorShape(new SlidingFloatAccum('avg'));
