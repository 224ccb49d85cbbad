/**
 * ntile(n): splits the partition into n buckets whose sizes differ by at most one, larger buckets first.
 * Follows PostgreSQL's window_ntile step by step: the argument is read on the partition's rows until it is
 * non-NULL (rows before that get NULL), then fixed for the partition; counting starts at that row while
 * the bucket size comes from the whole partition.
 */
import { QuireError } from '../../common/errors.js';
import type { Column } from '../../common/column.js';
import { valueAt, type ResultColumn, type WindowBlock, type WindowEvaluator } from './window-function.js';
import { anchorShape } from '../../common/shape-anchor.js';

export class Ntile implements WindowEvaluator {
  readonly usesFrame = false;
  constructor(private readonly argCol: number) {}
  evaluate(b: WindowBlock, ps: number, pe: number, _f: null, out: ResultColumn): void {
    const arg: Column = b.columns[this.argCol]!;
    const total = pe - ps;
    let started = false;
    let ntile = 0;
    let rowsPerBucket = 0;
    let boundary = 0;
    let remainder = 0;
    const d = out.data as Int32Array;
    for (let i = ps; i < pe; i++) {
      if (!started) {
        const v = valueAt(arg, i);
        if (v === null) {
          out.setNull(i);
          continue;
        }
        const buckets = v as number;
        if (buckets <= 0) throw new QuireError('22014', 'argument of ntile must be greater than zero');
        started = true;
        ntile = 1;
        rowsPerBucket = 0;
        boundary = Math.trunc(total / buckets);
        if (boundary <= 0) boundary = 1;
        else {
          remainder = total % buckets;
          if (remainder !== 0) boundary++;
        }
      }
      rowsPerBucket++;
      if (boundary < rowsPerBucket) {
        if (remainder !== 0 && ntile === remainder) {
          remainder = 0;
          boundary -= 1;
        }
        ntile += 1;
        rowsPerBucket = 1;
      }
      d[i] = ntile;
    }
  }
}

// Keeps the evaluator's shape, which the window operator's optimized call site checks (see shape-anchor.ts).
anchorShape(new Ntile(0));
