/** starts_with(string, prefix). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('starts_with', {
  args: ['text', 'text'],
  returns: T.bool,
  fn: (_c: EvalContext, s: string, p: string) => s.startsWith(p),
});
