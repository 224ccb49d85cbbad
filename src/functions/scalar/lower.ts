/** lower(). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { mapCase } from './support/text.js';

registerScalar('lower', { args: ['text'], returns: T.text, fn: (_c: EvalContext, s: string) => mapCase(s, false) });
