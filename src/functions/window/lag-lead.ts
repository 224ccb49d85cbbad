/**
 * lag(x [, offset [, default]]) / lead(...): x at `offset` rows before / after the current row within the
 * partition (not the frame). The offset is read per row (NULL gives NULL; negative flips direction); rows
 * outside the partition give `default`, evaluated on the current row, or NULL.
 */
import type { Column } from '../../common/column.js';
import { valueAt, type ResultColumn, type WindowBlock, type WindowEvaluator } from './window-function.js';

export class LagLead implements WindowEvaluator {
  readonly usesFrame = false;
  constructor(
    private readonly lead: boolean,
    private readonly valueCol: number,
    private readonly offsetCol: number | null,
    private readonly defaultCol: number | null,
  ) {}
  evaluate(b: WindowBlock, ps: number, pe: number, _f: null, out: ResultColumn): void {
    const val = b.columns[this.valueCol]!;
    const offs = this.offsetCol === null ? null : b.columns[this.offsetCol]!;
    const def = this.defaultCol === null ? null : b.columns[this.defaultCol]!;
    const sign = this.lead ? 1 : -1;
    const od = out.data;
    const vd = val.data;
    const k = constantOffset(offs, ps, pe);
    if (k !== null && !Array.isArray(vd) && !Array.isArray(od) && od.constructor === vd.constructor && (def === null || !Array.isArray(def.data))) {
      // The same offset on every row (the usual lag(x) / lead(x, 2, 0)) over typed storage of one kind:
      // the rows that read inside the partition are one block copy, the rest take the default.
      const shift = sign * k;
      const lo = Math.min(pe, Math.max(ps, ps - shift));
      const hi = Math.max(lo, Math.min(pe, pe - shift));
      if (hi > lo) (od as Float64Array).set((vd as Float64Array).subarray(lo + shift, hi + shift), lo);
      const vn = val.nulls;
      if (vn !== null) for (let i = lo; i < hi; i++) if (vn[i + shift] === 1) out.setNull(i);
      for (let i = ps; i < lo; i++) outside(out, def, i);
      for (let i = hi; i < pe; i++) outside(out, def, i);
      return;
    }
    for (let i = ps; i < pe; i++) {
      let off = 1;
      if (offs !== null) {
        const o = valueAt(offs, i);
        if (o === null) {
          out.setNull(i);
          continue;
        }
        off = o as number;
      }
      const j = i + sign * off;
      if (j >= ps && j < pe) out.set(i, valueAt(val, j));
      else out.set(i, def === null ? null : valueAt(def, i));
    }
  }
}

/** A row whose offset row lies outside the partition: the default, evaluated on the row, or NULL. */
function outside(out: ResultColumn, def: Column | null, i: number): void {
  if (def === null) out.setNull(i);
  else out.set(i, valueAt(def, i));
}

/** The offset when it is the same non-NULL value on every row of [ps, pe) (1 without an offset argument). */
function constantOffset(offs: Column | null, ps: number, pe: number): number | null {
  if (offs === null) return 1;
  const d = offs.data;
  if (!(d instanceof Int32Array) || offs.nulls !== null || pe <= ps) return null;
  const k = d[ps]!;
  for (let i = ps + 1; i < pe; i++) if (d[i] !== k) return null;
  return k;
}
