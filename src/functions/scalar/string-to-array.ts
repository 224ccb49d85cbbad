/**
 * string_to_array(s, delimiter [, null_string]): s split at each delimiter into a text[]; a NULL delimiter
 * splits into characters, an empty one keeps s whole, an empty s gives an empty array; fields equal to
 * null_string become NULL.
 */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { detachAll } from './support/text.js';
import { arrayTooLarge, checkArrayLength, MAX_ARRAY_ELEMENTS } from './support/array-limit.js';

function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) i++;
    n++;
  }
  return n;
}

function split(s: string | null, delim: string | null, nullString: string | null): (string | null)[] | null {
  if (s === null) return null;
  if (s === '') return [];
  // Every character a piece at most: a string shorter than the bound cannot exceed it.
  if (delim === null && s.length > MAX_ARRAY_ELEMENTS && codePoints(s) > MAX_ARRAY_ELEMENTS) throw arrayTooLarge();
  const parts = delim === null ? Array.from(s) : delim === '' ? [s] : detachAll(s.split(delim, MAX_ARRAY_ELEMENTS + 1), s);
  checkArrayLength(parts.length);
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
