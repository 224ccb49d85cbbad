/** quote_ident(text). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { quoteIdent } from './support/quote.js';

registerScalar('quote_ident', { args: ['text'], returns: T.text, fn: (_c: EvalContext, s: string) => quoteIdent(s) });
