/** left(text, n): a negative n drops |n| characters from the end. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { charLength, charSlice } from './support/text.js';

registerScalar('left', {
  args: ['text', 'int4'],
  returns: T.text,
  fn: (_c: EvalContext, s: string, n: number) => (n >= 0 ? charSlice(s, 0, n) : charSlice(s, 0, Math.max(charLength(s) + n, 0))),
});
