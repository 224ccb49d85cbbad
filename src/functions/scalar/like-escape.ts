/** like_escape(pattern, escape): the binder's target for LIKE ... ESCAPE. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { likeEscape } from './support/like.js';

registerScalar('like_escape', {
  args: ['text', 'text'],
  returns: T.text,
  fn: (_c: EvalContext, p: string, e: string) => likeEscape(p, e),
});
