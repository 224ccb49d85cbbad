/** scale(numeric): the display scale; NaN and ±Infinity have none, so the result is NULL, not an error. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import type { Numeric } from '../../common/numeric.js';

registerScalar('scale', { args: ['numeric'], returns: T.int4, fn: (_c: EvalContext, a: Numeric) => (a.isFinite() ? a.scale : null) });
