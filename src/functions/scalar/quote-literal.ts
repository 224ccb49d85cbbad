/** quote_literal(text). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { quoteLiteral } from './support/quote.js';

registerScalar('quote_literal', { args: ['text'], returns: T.text, fn: (_c: EvalContext, s: string) => quoteLiteral(s) });
