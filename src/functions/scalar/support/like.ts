/**
 * LIKE matching with PostgreSQL's algorithm (MatchText): backslash escapes, '%' and '_', and the same
 * lazy error for a trailing escape (raised only if matching reaches it, so 'a' LIKE 'a\' is false).
 */
import { err, SQLSTATE } from '../../../common/errors.js';
import { chars } from './text.js';

type Chars = string | string[];
const TRUE = 1;
const FALSE = 0;
const ABORT = -1;

function trailingEscape(): never {
  throw err(SQLSTATE.invalidEscapeSequence, 'LIKE pattern must not end with escape character');
}

function match(t: Chars, ti: number, p: Chars, pi: number): number {
  const tlen = t.length;
  const plen = p.length;
  while (ti < tlen && pi < plen) {
    const pc = p[pi]!;
    if (pc === '\\') {
      pi++;
      if (pi >= plen) trailingEscape();
      if (p[pi] !== t[ti]) return FALSE;
    } else if (pc === '%') {
      pi++;
      // Runs of '%' and '_' collapse: each '_' must consume one character.
      while (pi < plen) {
        if (p[pi] === '%') pi++;
        else if (p[pi] === '_') {
          if (ti >= tlen) return ABORT;
          ti++;
          pi++;
        } else break;
      }
      if (pi >= plen) return TRUE;
      let first = p[pi]!;
      if (first === '\\') {
        if (pi + 1 >= plen) trailingEscape();
        first = p[pi + 1]!;
      }
      while (ti < tlen) {
        if (t[ti] === first) {
          const r = match(t, ti, p, pi);
          if (r !== FALSE) return r;
        }
        ti++;
      }
      // No later starting point can match either, so stop the whole search.
      return ABORT;
    } else if (pc !== '_' && pc !== t[ti]) {
      return FALSE;
    }
    ti++;
    pi++;
  }
  if (ti < tlen) return FALSE;
  while (pi < plen && p[pi] === '%') pi++;
  return pi >= plen ? TRUE : ABORT;
}

/**
 * A pattern of literal characters with '%' only at its ends ('abc%', '%abc', '%abc%', 'abc') is a
 * prefix, suffix, substring or equality test: a literal of whole code points matches at a UTF-16
 * position exactly when it matches at the code point there, so no per-character walk is needed.
 * Escaped characters are literals; '_', a '%' inside the literal or a trailing escape (whose error is
 * raised only when matching reaches it) leave the pattern to the general matcher.
 */
interface Simple {
  literal: string;
  /** Leading '%': the literal may start anywhere. */
  open: boolean;
  /** Trailing '%': anything may follow the literal. */
  rest: boolean;
}

function simplePattern(p: string): Simple | null {
  let start = 0;
  while (start < p.length && p[start] === '%') start++;
  let end = p.length;
  while (end > start && p[end - 1] === '%') end--;
  let literal = '';
  for (let i = start; i < end; i++) {
    const c = p[i]!;
    if (c === '_' || c === '%') return null;
    if (c === '\\') {
      i++;
      // The '%' before `end` was escaped: the escape takes it as a literal, so the shape is not simple.
      if (i >= end) return null;
      literal += p[i]!;
    } else literal += c;
  }
  return { literal, open: start > 0, rest: end < p.length };
}

/** Patterns analysed lately, by pattern text (null: needs the general matcher). */
const simpleCache = new Map<string, Simple | null>();
const SIMPLE_CACHE_MAX = 256;
let lastPattern = '';
let lastSimple: Simple | null = simplePattern('');

function simpleOf(pattern: string): Simple | null {
  if (pattern === lastPattern) return lastSimple;
  let s = simpleCache.get(pattern);
  if (s === undefined) {
    s = simplePattern(pattern);
    if (simpleCache.size >= SIMPLE_CACHE_MAX) simpleCache.clear();
    simpleCache.set(pattern, s);
  }
  lastPattern = pattern;
  lastSimple = s;
  return s;
}

function simpleMatch(text: string, s: Simple): boolean {
  const l = s.literal;
  if (s.open) return s.rest ? text.includes(l) : text.endsWith(l);
  return s.rest ? text.startsWith(l) : text === l;
}

export function like(text: string, pattern: string): boolean {
  if (pattern === '%') return true;
  const s = pattern === lastPattern ? lastSimple : simpleOf(pattern);
  if (s !== null) return simpleMatch(text, s);
  return match(chars(text), 0, chars(pattern), 0) === TRUE;
}

let lastUpper = '';
let lastLower = '';

/** ILIKE folds both sides to lower case, as PostgreSQL does for non-C collations. */
export function ilike(text: string, pattern: string): boolean {
  if (pattern !== lastUpper) {
    lastLower = pattern.toLowerCase();
    lastUpper = pattern;
  }
  return like(text.toLowerCase(), lastLower);
}

/** like_escape(pattern, escape): rewrite a pattern with a custom escape character to use backslash. */
export function likeEscape(pattern: string, escape: string): string {
  const e = Array.from(escape);
  if (e.length > 1) {
    throw err(SQLSTATE.invalidEscapeSequence, 'invalid escape string', undefined, {
      hint: 'Escape string must be empty or one character.',
    });
  }
  if (e.length === 1 && e[0] === '\\') return pattern;
  let out = '';
  let afterEscape = false;
  for (const c of pattern) {
    if (afterEscape) {
      out += c === '\\' ? '\\\\' : '\\' + c;
      afterEscape = false;
    } else if (e.length === 1 && c === e[0]) {
      afterEscape = true;
    } else if (c === '\\') {
      out += '\\\\';
    } else {
      out += c;
    }
  }
  // A dangling escape stays dangling, so matching reports it the same way.
  if (afterEscape) out += '\\';
  return out;
}
