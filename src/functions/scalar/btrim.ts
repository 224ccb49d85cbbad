/** btrim(text[, characters]); TRIM(...) is normalised to this by the parser. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { trimChars } from './support/trim.js';

registerScalar(
  'btrim',
  { args: ['text'], returns: T.text, fn: (_c: EvalContext, s: string) => trimChars(s, ' ', true, true) },
  { args: ['text', 'text'], returns: T.text, fn: (_c: EvalContext, s: string, set: string) => trimChars(s, set, true, true) },
);
