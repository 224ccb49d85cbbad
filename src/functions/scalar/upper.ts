/** upper(). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { mapCase } from './support/text.js';

registerScalar('upper', { args: ['text'], returns: T.text, fn: (_c: EvalContext, s: string) => mapCase(s, true) });
