/** lpad/rpad: the result is exactly `len` characters; an empty fill can only truncate. */
import { chars, charSlice, charLength, checkLength } from './text.js';

export function pad(s: string, len: number, fill: string, left: boolean): string {
  if (len <= 0) return '';
  checkLength(len);
  const slen = charLength(s);
  if (slen >= len) return charSlice(s, 0, len);
  if (fill === '') return s;
  const f = chars(fill);
  const need = len - slen;
  let p = '';
  for (let i = 0; i < need; i++) p += f[i % f.length];
  return left ? p + s : s + p;
}
