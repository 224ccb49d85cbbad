/** split_part(string, delimiter, n): n < 0 counts from the end (PostgreSQL 14+). */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { err, SQLSTATE } from '../../common/errors.js';
import { detach } from './support/text.js';

registerScalar('split_part', {
  args: ['text', 'text', 'int4'],
  returns: T.text,
  fn: (_c: EvalContext, s: string, delim: string, n: number) => {
    if (n === 0) throw err(SQLSTATE.invalidParameterValue, 'field position must not be zero');
    // An empty string has no fields at all; an empty delimiter makes the whole string one field.
    if (s === '') return '';
    const parts = delim === '' ? [s] : s.split(delim);
    const i = n > 0 ? n - 1 : parts.length + n;
    return i >= 0 && i < parts.length ? detach(parts[i]!, s) : '';
  },
});
