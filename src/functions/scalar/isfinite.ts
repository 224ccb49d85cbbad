/** isfinite(date | timestamp | timestamptz | interval). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Interval } from '../../common/interval.js';

// A bigint timestamp is a finite one beyond 2^53 microseconds.
const finite = (_c: EvalContext, v: number | bigint): boolean => typeof v === 'bigint' || Number.isFinite(v);

registerScalar(
  'isfinite',
  { args: ['date'], returns: T.bool, fn: finite },
  { args: ['timestamp'], returns: T.bool, fn: finite },
  { args: ['timestamptz'], returns: T.bool, fn: finite },
  { args: ['interval'], returns: T.bool, fn: (_c: EvalContext, iv: Interval) => iv.isFinite() },
);
