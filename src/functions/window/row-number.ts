/** row_number(): position of the row in its partition, from 1. Ignores the frame and peers. */
import type { ResultColumn, WindowBlock, WindowEvaluator } from './window-function.js';
import { anchorShape } from '../../common/shape-anchor.js';

export class RowNumber implements WindowEvaluator {
  readonly usesFrame = false;
  evaluate(_b: WindowBlock, ps: number, pe: number, _f: null, out: ResultColumn): void {
    const d = out.data as Float64Array;
    for (let i = ps; i < pe; i++) d[i] = i - ps + 1;
  }
}

// Keeps the evaluator's shape, which the window operator's optimized call site checks (see shape-anchor.ts).
anchorShape(new RowNumber());
