/** cume_dist(): rows up to and including the current peer group, divided by the partition's rows. */
import type { ResultColumn, WindowBlock, WindowEvaluator } from './window-function.js';
import { anchorShape } from '../../common/shape-anchor.js';

export class CumeDist implements WindowEvaluator {
  readonly usesFrame = false;
  evaluate(b: WindowBlock, ps: number, pe: number, _f: null, out: ResultColumn): void {
    const d = out.data as Float64Array;
    const en = b.peerEnd;
    const n = pe - ps;
    for (let i = ps; i < pe; i++) d[i] = (en[i]! - ps) / n;
  }
}

// Keeps the evaluator's shape, which the window operator's optimized call site checks (see shape-anchor.ts).
anchorShape(new CumeDist());
