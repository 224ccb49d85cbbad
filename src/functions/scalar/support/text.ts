/**
 * Character-level string helpers. SQL string functions count characters (code points), JavaScript
 * strings count UTF-16 units; the fast paths skip the conversion when no surrogate pair is present.
 */
import { err, SQLSTATE } from '../../../common/errors.js';

const SURROGATE = /[\uD800-\uDFFF]/;

export function hasSurrogates(s: string): boolean {
  return SURROGATE.test(s);
}

/** Indexable characters: the string itself when every character is one unit. */
export function chars(s: string): string | string[] {
  return SURROGATE.test(s) ? Array.from(s) : s;
}

export function charLength(s: string): number {
  if (!SURROGATE.test(s)) return s.length;
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Characters [from, to) by code point index (0-based, clamped). */
export function charSlice(s: string, from: number, to?: number): string {
  if (!SURROGATE.test(s)) return s.slice(from, to);
  return Array.from(s).slice(from, to).join('');
}

/** PostgreSQL's strings are bounded at 1 GB; refuse results that could never be stored. */
export const MAX_STRING_LENGTH = 1073741823;
export function checkLength(n: number): void {
  if (n > MAX_STRING_LENGTH) throw err(SQLSTATE.programLimitExceeded, 'requested length too large');
}

/** Case mapping per character, keeping characters whose mapping is not a single character (like ß). */
export function mapCase(s: string, upper: boolean): string {
  const whole = upper ? s.toUpperCase() : s.toLowerCase();
  if (charLength(whole) === charLength(s)) return whole;
  let out = '';
  for (const c of s) {
    const m = upper ? c.toUpperCase() : c.toLowerCase();
    out += charLength(m) === 1 ? m : c;
  }
  return out;
}

export function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** bpchar semantics: trailing spaces are not significant. */
export function bpcharStrip(s: string): string {
  return s.replace(/ +$/, '');
}
