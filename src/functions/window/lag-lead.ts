/**
 * lag(x [, offset [, default]]) / lead(...): x at `offset` rows before / after the current row within the
 * partition (not the frame). The offset is read per row (NULL gives NULL; negative flips direction); rows
 * outside the partition give `default`, evaluated on the current row, or NULL.
 */
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
