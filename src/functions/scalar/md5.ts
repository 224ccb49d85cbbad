/** md5(text): hex digest of the UTF-8 bytes. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { createHash } from 'node:crypto';

registerScalar('md5', {
  args: ['text'],
  returns: T.text,
  fn: (_c: EvalContext, s: string) => createHash('md5').update(s, 'utf8').digest('hex'),
});
