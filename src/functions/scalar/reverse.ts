/** reverse(): by character, so surrogate pairs stay intact. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('reverse', {
  args: ['text'],
  returns: T.text,
  fn: (_c: EvalContext, s: string) => Array.from(s).reverse().join(''),
});
