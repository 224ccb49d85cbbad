/** rank(): row_number() of the first row of the current peer group (gaps after ties). */
import type { ResultColumn, WindowBlock, WindowEvaluator } from './window-function.js';
import { anchorShape } from '../../common/shape-anchor.js';

export class Rank implements WindowEvaluator {
  readonly usesFrame = false;
  evaluate(b: WindowBlock, ps: number, pe: number, _f: null, out: ResultColumn): void {
    const d = out.data as Float64Array;
    const st = b.peerStart;
    for (let i = ps; i < pe; i++) d[i] = st[i]! - ps + 1;
  }
}

// Keeps the evaluator's shape, which the window operator's optimized call site checks (see shape-anchor.ts).
anchorShape(new Rank());
