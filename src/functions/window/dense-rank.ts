/** dense_rank(): ordinal of the current peer group, from 1 (no gaps). */
import type { ResultColumn, WindowBlock, WindowEvaluator } from './window-function.js';
import { anchorShape } from '../../common/shape-anchor.js';

export class DenseRank implements WindowEvaluator {
  readonly usesFrame = false;
  evaluate(b: WindowBlock, ps: number, pe: number, _f: null, out: ResultColumn): void {
    const d = out.data as Float64Array;
    const g = b.group;
    for (let i = ps; i < pe; i++) d[i] = g[i]! + 1;
  }
}

// Keeps the evaluator's shape, which the window operator's optimized call site checks (see shape-anchor.ts).
anchorShape(new DenseRank());
