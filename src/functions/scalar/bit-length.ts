/** bit_length(text): 8 × the UTF-8 byte length. */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { utf8Length } from './support/text.js';

registerScalar('bit_length', { args: ['text'], returns: T.int4, fn: (_c: EvalContext, s: string) => utf8Length(s) * 8 });
