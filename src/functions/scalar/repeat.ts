/** repeat(text, n). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { checkLength } from './support/text.js';

registerScalar('repeat', {
  args: ['text', 'int4'],
  returns: T.text,
  fn: (_c: EvalContext, s: string, n: number) => {
    if (n <= 0 || s === '') return '';
    checkLength(Buffer.byteLength(s, 'utf8') * n);
    return s.repeat(n);
  },
});
