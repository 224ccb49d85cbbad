/**
 * string_to_array(s, delimiter [, null_string]): s split at each delimiter into a text[]; a NULL delimiter
 * splits into characters, an empty one keeps s whole, an empty s gives an empty array; fields equal to
 * null_string become NULL.
 */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { detachAll } from './support/text.js';

function split(s: string | null, delim: string | null, nullString: string | null): (string | null)[] | null {
  if (s === null) return null;
  if (s === '') return [];
  const parts = delim === null ? Array.from(s) : delim === '' ? [s] : detachAll(s.split(delim), s);
  return nullString === null ? parts : parts.map((p) => (p === nullString ? null : p));
}

registerScalar(
  'string_to_array',
  { args: ['text', 'text'], returns: T._text, strict: false, fn: (_c: EvalContext, s: string | null, d: string | null) => split(s, d, null) },
  {
    args: ['text', 'text', 'text'],
    returns: T._text,
    strict: false,
    fn: (_c: EvalContext, s: string | null, d: string | null, n: string | null) => split(s, d, n),
  },
);
