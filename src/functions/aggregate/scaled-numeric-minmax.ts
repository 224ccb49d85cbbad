/**
 * min() and max() of numeric per group, comparing a scaledNumericColumn's doubles (column.ts) without
 * building its Numerics.
 *
 * A group's state is either a coefficient (a whole double below 2^53) with its scale, while the values
 * that reached it were of that scale, or a Numeric. Values of one scale order as their coefficients, so
 * a scaled row of the state's scale is one double comparison; anything else (another scale, a NaN or
 * infinity, a column of Numerics) moves the state to a Numeric and compares as compareValues does. A
 * tie keeps the newer value, as PostgreSQL's numeric_larger/numeric_smaller do; a tie between two
 * coefficients of one scale is the same value, so no order of rows can show.
 */
import { Numeric } from '../../common/numeric.js';
import { T, type Value } from '../../common/types.js';
import { compareValues } from '../../common/compare.js';
import { scaledNumbers, takeColumn, type Column, type ScaledNumbers } from '../../common/column.js';
import type { GroupedAccumulator, InlineCode, InlineStep } from './aggregate-function.js';
import { growArr, growF64 } from './support.js';

const LIMIT = 2 ** 53;

export class GroupedNumericMinMax implements GroupedAccumulator {
  /** The group's best coefficient, at scale scales[g]. */
  private best = new Float64Array(0);
  /** Scale of best[g]; -1 when the state is objs[g] (or the group has no value yet). */
  private scales = new Float64Array(0);
  private readonly objs: (Numeric | null)[] = [];

  constructor(private readonly isMax: boolean) {}

  grow(groups: number): void {
    this.best = growF64(this.best, groups);
    this.scales = growF64(this.scales, groups, -1);
    growArr(this.objs, groups, null);
  }

  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const sn = scaledNumbers(c);
    if (sn !== null) {
      this.updateScaled(gids, null, n, sn, c.nulls);
      return;
    }
    const d = c.data as (Numeric | null)[];
    const nulls = c.nulls;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0 || (nulls !== null && nulls[k] === 1)) continue;
      const v = d[k];
      if (v !== null && v !== undefined) this.addNumeric(g, v);
    }
  }

  updateSel(gids: Int32Array, sel: Uint32Array, n: number, args: readonly Column[]): void {
    const c = args[0]!;
    const sn = scaledNumbers(c);
    if (sn !== null) this.updateScaled(gids, sel, n, sn, c.nulls);
    else this.update(gids, n, [takeColumn(c, sel, n)]);
  }

  /** A scaled column without NULLs: one comparison of coefficients in a group whose state has the column's scale. */
  inlineStep(args: readonly Column[]): InlineStep | null {
    const c = args[0]!;
    const sn = scaledNumbers(c);
    if (sn === null || c.nulls !== null) return null;
    return { refs: [this.best, this.scales, sn.scale], code: this.isMax ? maxStep : minStep };
  }

  /** Rows k (or sel[k]) of a scaled column: a double comparison each while the group's state has their scale. */
  private updateScaled(gids: Int32Array, sel: Uint32Array | null, n: number, sn: ScaledNumbers, nulls: Uint8Array | null): void {
    const u = sn.unscaled;
    const vs = sn.scale;
    const best = this.best;
    const scales = this.scales;
    const isMax = this.isMax;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      const i = sel === null ? k : sel[k]!;
      if (g < 0 || (nulls !== null && nulls[i] === 1)) continue;
      const x = u[i]!;
      if (scales[g] === vs) {
        const cur = best[g]!;
        if (isMax ? x >= cur : x <= cur) best[g] = x;
        continue;
      }
      this.addScaled(g, x, vs);
    }
  }

  /** x / 10^vs into a group whose state is not a coefficient of scale vs. */
  private addScaled(g: number, x: number, vs: number): void {
    const o = this.objs[g]!;
    if (this.scales[g]! < 0) {
      if (o === null) {
        this.best[g] = x;
        this.scales[g] = vs;
        return;
      }
      // A Numeric state of this scale goes back to a coefficient, so the next rows compare as doubles.
      if (o.special === 0 && o.scale === vs) {
        const c = Number(o.coef);
        if (c < LIMIT && c > -LIMIT) {
          const keepNew = this.isMax ? x >= c : x <= c;
          this.best[g] = keepNew ? x : c;
          this.scales[g] = vs;
          this.objs[g] = null;
          return;
        }
      }
    }
    this.addNumeric(g, Numeric.of(BigInt(x), vs));
  }

  /** A Numeric into the group's state, which becomes (or stays) a Numeric. */
  private addNumeric(g: number, v: Numeric): void {
    let cur = this.objs[g]!;
    const s = this.scales[g]!;
    if (s >= 0) {
      cur = Numeric.of(BigInt(this.best[g]!), s);
      this.scales[g] = -1;
    }
    this.objs[g] = cur === null || compareValues(cur, v, T.numeric) * (this.isMax ? 1 : -1) <= 0 ? v : cur;
  }

  result(g: number): Value {
    const s = this.scales[g]!;
    return s >= 0 ? Numeric.of(BigInt(this.best[g]!), s) : this.objs[g]!;
  }
}

/** updateScaled()'s common case as inline text (inline-aggregate-loop.ts); ref(2) is the column's scale. */
function minMaxStep(ref: (i: number) => string, g: string, v: string, better: string): InlineCode {
  const [best, scales, scale] = [ref(0), ref(1), ref(2)];
  return { compute: '', ok: `${scales}[${g}] === ${scale}`, store: `if (${v} ${better} ${best}[${g}]) ${best}[${g}] = ${v};` };
}
const maxStep = (ref: (i: number) => string, g: string, v: string): InlineCode => minMaxStep(ref, g, v, '>=');
const minStep = (ref: (i: number) => string, g: string, v: string): InlineCode => minMaxStep(ref, g, v, '<=');
