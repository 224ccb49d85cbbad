/**
 * overlay(string PLACING replacement FROM start [FOR count]): PostgreSQL's textoverlay, i.e.
 * substring(string, 1, start-1) || replacement || substring(string from start+count). That decomposition
 * is why start < 1 fails with the substring error and a negative count re-inserts characters.
 * Without FOR, count is the replacement's length in characters.
 */
import { registerScalar } from '../registry.js';
import { T } from '../../common/types.js';
import type { EvalContext } from '../eval-context.js';
import { err } from '../../common/errors.js';
import { int4Overflow } from './support/int.js';
import { substrFor, substrFrom } from './support/substr.js';
import { charLength } from './support/text.js';

function overlay(s: string, r: string, start: number, count: number): string {
  // PostgreSQL checks the start before the start+count overflow, so this error wins.
  if (start <= 0) throw err('22011', 'negative substring length not allowed');
  const end = start + count;
  if (end < -2147483648 || end > 2147483647) int4Overflow();
  return substrFor(s, 1, start - 1) + r + substrFrom(s, end);
}

registerScalar(
  'overlay',
  {
    args: ['text', 'text', 'int4', 'int4'],
    returns: T.text,
    fn: (_c: EvalContext, s: string, r: string, start: number, count: number) => overlay(s, r, start, count),
  },
  { args: ['text', 'text', 'int4'], returns: T.text, fn: (_c: EvalContext, s: string, r: string, start: number) => overlay(s, r, start, charLength(r)) },
);
