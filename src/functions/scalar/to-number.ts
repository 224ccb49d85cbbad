/** to_number(text, template): the numeric templates of to_char read back (see support/to-number.ts). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { toNumber } from './support/to-number.js';

registerScalar('to_number', { args: ['text', 'text'], returns: T.numeric, fn: (_c: EvalContext, v: string, fmt: string) => toNumber(v, fmt) });
