/** SQL substring(s FROM start FOR count): a window [start, start+count) clipped to the string. */
import { err } from '../../../common/errors.js';
import { charSlice } from './text.js';

const SUBSTRING_ERROR = '22011';

export function substrFrom(s: string, start: number): string {
  return charSlice(s, Math.max(start, 1) - 1);
}

export function substrFor(s: string, start: number, count: number): string {
  if (count < 0) throw err(SUBSTRING_ERROR, 'negative substring length not allowed');
  // A start before 1 eats into the count, which is what makes substr('abc', 0, 2) = 'a'.
  const end = start + count;
  if (end <= 1) return '';
  return charSlice(s, Math.max(start, 1) - 1, end - 1);
}
