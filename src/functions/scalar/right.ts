/** right(text, n): a negative n drops |n| characters from the start. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { charLength, charSlice } from './support/text.js';

registerScalar('right', {
  args: ['text', 'int4'],
  returns: T.text,
  fn: (_c: EvalContext, s: string, n: number) => {
    const len = charLength(s);
    return n >= 0 ? charSlice(s, Math.max(len - n, 0)) : charSlice(s, Math.min(-n, len));
  },
});
