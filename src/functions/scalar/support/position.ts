/** 1-based character position of needle in haystack, 0 when absent (an empty needle is at 1). */
import { charLength, hasSurrogates } from './text.js';

export function charPosition(haystack: string, needle: string): number {
  const i = haystack.indexOf(needle);
  if (i < 0) return 0;
  const before = haystack.slice(0, i);
  return (hasSurrogates(before) ? charLength(before) : i) + 1;
}
