/** '~*': POSIX regular expression case-insensitive match (pattern translated by support/regex.ts). */
import { registerScalar } from '../../registry.js';
import { T } from '../../../common/types.js';
import type { EvalContext } from '../../eval-context.js';
import { compileRegex } from '../support/regex.js';

registerScalar('~*', {
  args: ['text', 'text'],
  returns: T.bool,
  fn: (_c: EvalContext, s: string, p: string) => compileRegex(p, 'i').test(s),
});
