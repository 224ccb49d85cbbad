/** last_value(x): x on the last row of the frame (after EXCLUDE), NULL for an empty frame. */
import { frameParts, valueAt, type FrameBounds, type ResultColumn, type WindowBlock, type WindowEvaluator } from './window-function.js';
import { anchorShape } from '../../common/shape-anchor.js';

export class LastValue implements WindowEvaluator {
  readonly usesFrame = true;
  private readonly parts = new Int32Array(6);
  constructor(private readonly valueCol: number) {}
  evaluate(b: WindowBlock, ps: number, pe: number, f: FrameBounds, out: ResultColumn): void {
    const val = b.columns[this.valueCol]!;
    for (let i = ps; i < pe; i++) {
      if (f.exclude === 'no-others') {
        const e = f.fe[i]!;
        out.set(i, f.fs[i]! < e ? valueAt(val, e - 1) : null);
        continue;
      }
      const k = frameParts(f, b, i, this.parts);
      out.set(i, k === 0 ? null : valueAt(val, this.parts[2 * k - 1]! - 1));
    }
  }
}

// Keeps the evaluator's shape, which the window operator's optimized call site checks (see shape-anchor.ts).
anchorShape(new LastValue(0));
