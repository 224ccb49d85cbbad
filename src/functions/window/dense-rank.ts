/** dense_rank(): ordinal of the current peer group, from 1 (no gaps). */
import type { ResultColumn, WindowBlock, WindowEvaluator } from './window-function.js';

export class DenseRank implements WindowEvaluator {
  readonly usesFrame = false;
  evaluate(b: WindowBlock, ps: number, pe: number, _f: null, out: ResultColumn): void {
    const d = out.data as Float64Array;
    const g = b.group;
    for (let i = ps; i < pe; i++) d[i] = g[i]! + 1;
  }
}
