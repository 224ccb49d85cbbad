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
 * A LIKE pattern (backslash escapes) parsed once, for every user of its shape: the matcher's fast
 * cases below, read_parquet's row-group range of a prefix and its byte matcher on undecoded values.
 * Escaped characters are literals; runs of literal characters are one piece.
 */
export type LikePiece = { readonly kind: 'literal'; readonly text: string } | { readonly kind: 'any' } | { readonly kind: 'one' };

export interface ParsedLike {
  readonly pieces: readonly LikePiece[];
  /**
   * The pattern ends with a lone escape: matching raises its error only when it gets there, so the
   * pieces before it decide some texts (no pattern built from the pieces alone may stand in for it).
   */
  readonly trailingEscape: boolean;
}

const ANY: LikePiece = { kind: 'any' };
const ONE: LikePiece = { kind: 'one' };

export function parseLike(p: string): ParsedLike {
  const pieces: LikePiece[] = [];
  let literal = '';
  const flush = (): void => {
    if (literal !== '') pieces.push({ kind: 'literal', text: literal });
    literal = '';
  };
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '\\') {
      if (++i >= p.length) {
        flush();
        return { pieces, trailingEscape: true };
      }
      literal += p[i]!;
    } else if (c === '%' || c === '_') {
      flush();
      pieces.push(c === '%' ? ANY : ONE);
    } else literal += c;
  }
  flush();
  return { pieces, trailingEscape: false };
}

/**
 * A pattern of literal characters with '%' only at its ends ('abc%', '%abc', '%abc%', 'abc') is a
 * prefix, suffix, substring or equality test: a literal of whole code points matches at a UTF-16
 * position exactly when it matches at the code point there, so no per-character walk is needed.
 * '_', two literals or a trailing escape (whose error is raised only when matching reaches it) leave
 * the pattern to the general matcher.
 */
export interface SimpleLike {
  literal: string;
  /** Leading '%': the literal may start anywhere. */
  open: boolean;
  /** Trailing '%': anything may follow the literal. */
  rest: boolean;
}

export function simpleShape(parsed: ParsedLike): SimpleLike | null {
  if (parsed.trailingEscape) return null;
  const ps = parsed.pieces;
  let start = 0;
  while (start < ps.length && ps[start]!.kind === 'any') start++;
  let end = ps.length;
  while (end > start && ps[end - 1]!.kind === 'any') end--;
  if (end - start > 1) return null;
  const mid = ps[start];
  if (end > start && mid!.kind !== 'literal') return null;
  // All '%' ('%', '%%'): open at the front, so any text matches.
  return { literal: end > start && mid!.kind === 'literal' ? mid!.text : '', open: start > 0, rest: end < ps.length };
}

function simplePattern(p: string): SimpleLike | null {
  return simpleShape(parseLike(p));
}

/** Patterns analysed lately, by pattern text (null: needs the general matcher). */
const simpleCache = new Map<string, SimpleLike | null>();
const SIMPLE_CACHE_MAX = 256;
let lastPattern = '';
let lastSimple: SimpleLike | null = simplePattern('');

function simpleOf(pattern: string): SimpleLike | null {
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

function simpleMatch(text: string, s: SimpleLike): boolean {
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
