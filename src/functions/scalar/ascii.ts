/** ascii(text): code point of the first character, 0 for the empty string. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('ascii', {
  args: ['text'],
  returns: T.int4,
  fn: (_c: EvalContext, s: string) => (s === '' ? 0 : s.codePointAt(0)!),
});
