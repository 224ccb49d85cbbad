/**
 * nth_value(x, n): x on the n-th row (from 1) of the frame after EXCLUDE; NULL when the frame is shorter
 * or n is NULL. n is read per row; n <= 0 is PostgreSQL's error 22016.
 */
import { QuireError } from '../../common/errors.js';
import { frameParts, valueAt, type FrameBounds, type ResultColumn, type WindowBlock, type WindowEvaluator } from './window-function.js';

export class NthValue implements WindowEvaluator {
  readonly usesFrame = true;
  private readonly parts = new Int32Array(6);
  constructor(
    private readonly valueCol: number,
    private readonly nthCol: number,
  ) {}
  evaluate(b: WindowBlock, ps: number, pe: number, f: FrameBounds, out: ResultColumn): void {
    const val = b.columns[this.valueCol]!;
    const nth = b.columns[this.nthCol]!;
    const parts = this.parts;
    for (let i = ps; i < pe; i++) {
      const nv = valueAt(nth, i);
      if (nv === null) {
        out.setNull(i);
        continue;
      }
      const n = nv as number;
      if (n <= 0) throw new QuireError('22016', 'argument of nth_value must be greater than zero');
      const k = frameParts(f, b, i, parts);
      let left = n - 1;
      let row = -1;
      for (let r = 0; r < k; r++) {
        const len = parts[2 * r + 1]! - parts[2 * r]!;
        if (left < len) {
          row = parts[2 * r]! + left;
          break;
        }
        left -= len;
      }
      out.set(i, row < 0 ? null : valueAt(val, row));
    }
  }
}
