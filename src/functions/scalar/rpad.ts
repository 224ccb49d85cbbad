/** rpad(text, len[, fill]). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { pad } from './support/pad.js';

registerScalar(
  'rpad',
  { args: ['text', 'int4'], returns: T.text, fn: (_c: EvalContext, s: string, n: number) => pad(s, n, ' ', false) },
  { args: ['text', 'int4', 'text'], returns: T.text, fn: (_c: EvalContext, s: string, n: number, f: string) => pad(s, n, f, false) },
);
