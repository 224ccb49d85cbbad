/** radians(). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { checkFloat8 } from './support/float.js';

registerScalar('radians', {
  args: ['float8'],
  returns: T.float8,
  fn: (_c: EvalContext, a: number) => checkFloat8(a * (Math.PI / 180), a, 1),
});
