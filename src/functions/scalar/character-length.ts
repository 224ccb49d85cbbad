/** character_length(): characters, not bytes; bpchar ignores its trailing padding. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { bpcharStrip, charLength } from './support/text.js';

registerScalar(
  'character_length',
  { args: ['text'], returns: T.int4, fn: (_c: EvalContext, s: string) => charLength(s) },
  { args: ['bpchar'], returns: T.int4, fn: (_c: EvalContext, s: string) => charLength(bpcharStrip(s)) },
);
