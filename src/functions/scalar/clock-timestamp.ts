/** clock_timestamp(): wall-clock time at each call, hence volatile. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('clock_timestamp', {
  args: [],
  returns: T.timestamptz,
  volatile: true,
  fn: (_c: EvalContext) => Date.now() * 1000,
});
