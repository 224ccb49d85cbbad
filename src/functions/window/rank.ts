/** rank(): row_number() of the first row of the current peer group (gaps after ties). */
import type { ResultColumn, WindowBlock, WindowEvaluator } from './window-function.js';

export class Rank implements WindowEvaluator {
  readonly usesFrame = false;
  evaluate(b: WindowBlock, ps: number, pe: number, _f: null, out: ResultColumn): void {
    const d = out.data as Float64Array;
    const st = b.peerStart;
    for (let i = ps; i < pe; i++) d[i] = st[i]! - ps + 1;
  }
}
