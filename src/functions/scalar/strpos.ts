/** strpos(string, substring); the parser turns POSITION(a IN b) into position(b, a). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { charPosition } from './support/position.js';

registerScalar('strpos', {
  args: ['text', 'text'],
  returns: T.int4,
  fn: (_c: EvalContext, s: string, sub: string) => charPosition(s, sub),
});
