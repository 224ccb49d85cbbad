/** initcap(): upper-case the first letter of each alphanumeric run, lower-case the rest. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { mapCase } from './support/text.js';

const ALNUM = /[\p{L}\p{N}]/u;

registerScalar('initcap', {
  args: ['text'],
  returns: T.text,
  fn: (_c: EvalContext, s: string) => {
    let out = '';
    let inWord = false;
    for (const ch of s) {
      out += mapCase(ch, !inWord);
      inWord = ALNUM.test(ch);
    }
    return out;
  },
});
