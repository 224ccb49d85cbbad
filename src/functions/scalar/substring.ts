/** substring(text, start[, count]) with SQL's window semantics for starts below 1; substring(text, pattern). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { substrFor, substrFrom } from './support/substr.js';
import { compileRegex } from './support/regex.js';
import { detach } from './support/text.js';

registerScalar(
  'substring',
  { args: ['text', 'int4'], returns: T.text, fn: (_c: EvalContext, s: string, a: number) => substrFrom(s, a) },
  { args: ['text', 'int4', 'int4'], returns: T.text, fn: (_c: EvalContext, s: string, a: number, n: number) => substrFor(s, a, n) },
  // SUBSTRING(s FROM pattern): the first match, or its first parenthesised group when there is one.
  {
    args: ['text', 'text'],
    returns: T.text,
    fn: (_c: EvalContext, s: string, p: string) => {
      const m = compileRegex(p).exec(s);
      if (m === null) return null;
      const piece = m.length > 1 ? m[1] : m[0];
      return piece === undefined ? null : detach(piece, s);
    },
  },
);
