/** percent_rank(): (rank - 1) / (partition rows - 1), 0 for a one-row partition. */
import type { ResultColumn, WindowBlock, WindowEvaluator } from './window-function.js';
import { anchorShape } from '../../common/shape-anchor.js';

export class PercentRank implements WindowEvaluator {
  readonly usesFrame = false;
  evaluate(b: WindowBlock, ps: number, pe: number, _f: null, out: ResultColumn): void {
    const d = out.data as Float64Array;
    const st = b.peerStart;
    const n = pe - ps;
    for (let i = ps; i < pe; i++) d[i] = n > 1 ? (st[i]! - ps) / (n - 1) : 0;
  }
}

// Keeps the evaluator's shape, which the window operator's optimized call site checks (see shape-anchor.ts).
anchorShape(new PercentRank());
