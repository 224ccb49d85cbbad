/** isfinite(date | timestamp | timestamptz | interval). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Interval } from '../../common/interval.js';

const finite = (_c: EvalContext, v: number): boolean => Number.isFinite(v);

registerScalar(
  'isfinite',
  { args: ['date'], returns: T.bool, fn: finite },
  { args: ['timestamp'], returns: T.bool, fn: finite },
  { args: ['timestamptz'], returns: T.bool, fn: finite },
  { args: ['interval'], returns: T.bool, fn: (_c: EvalContext, iv: Interval) => iv.isFinite() },
);
