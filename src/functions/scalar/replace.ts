/** replace(string, from, to): every occurrence; an empty 'from' leaves the string alone. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

registerScalar('replace', {
  args: ['text', 'text', 'text'],
  returns: T.text,
  fn: (_c: EvalContext, s: string, from: string, to: string) => (from === '' ? s : s.split(from).join(to)),
});
