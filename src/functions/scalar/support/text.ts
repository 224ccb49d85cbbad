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
  if (!SURROGATE.test(s)) return detach(s.slice(from, to), s);
  return Array.from(s).slice(from, to).join('');
}

/** Sources shorter than this are kept alive by their pieces at little cost. */
const DETACH_MIN_SOURCE = 1024;

/**
 * A piece cut from a string (slice, split, a regex match) is, in V8, a view that keeps the whole
 * source alive. Memory limits count the piece, so a buffer of short pieces of long strings (substr of
 * a 1 MB value per row, sorted) could hold far more than it reserved. Pieces much shorter than a long
 * source are copied out; pieces under 13 characters are copies already.
 */
export function detach(piece: string, source: string): string {
  if (source.length < DETACH_MIN_SOURCE || piece.length < 13 || piece.length * 4 > source.length) return piece;
  // Concatenating makes a rope; slicing a rope flattens it into a fresh string first, and the result
  // is a view of that copy (one character longer than the piece), not of the source.
  return (' ' + piece).slice(1);
}

/** detach for a list of pieces of one source (split, regex groups). */
export function detachAll<T extends string | null>(pieces: T[], source: string): T[] {
  if (source.length < DETACH_MIN_SOURCE) return pieces;
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i]!;
    if (p !== null) pieces[i] = detach(p, source) as T;
  }
  return pieces;
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
