/** array_to_string(a, delimiter[, null_string]): elements joined; nulls are skipped unless null_string is given. */
import { registerScalar } from '../registry.js';
import { T, type TextArray } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';

function join(a: TextArray, delim: string, nullString: string | null): string {
  const parts: string[] = [];
  for (const e of a) {
    if (e !== null) parts.push(e);
    else if (nullString !== null) parts.push(nullString);
  }
  return parts.join(delim);
}

registerScalar(
  'array_to_string',
  { args: ['_text', 'text'], returns: T.text, fn: (_c: EvalContext, a: TextArray, d: string) => join(a, d, null) },
  {
    args: ['_text', 'text', 'text'],
    returns: T.text,
    strict: false,
    // Only the array and the delimiter make the result null; a null null_string means "skip nulls".
    fn: (_c: EvalContext, a: TextArray | null, d: string | null, n: string | null) => (a === null || d === null ? null : join(a, d, n)),
  },
);
