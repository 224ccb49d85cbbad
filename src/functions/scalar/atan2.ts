/** atan2(y, x). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('atan2', {
  args: ['float8', 'float8'],
  returns: T.float8,
  fn: (_c: EvalContext, y: number, x: number) => Math.atan2(y, x),
});
