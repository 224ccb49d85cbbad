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

/**
 * Any other pattern without a trailing escape, as the runs between its '%'s: each run (literals and
 * '_') has a fixed length in characters, so the first run is anchored at the start (without a leading
 * '%'), the last at the end (without a trailing one), and each run between is taken at its leftmost
 * match after the one before: a later match leaves less text for the runs after it, never more, so
 * the leftmost is as good as any. That is MatchText's answer without its backtracking, and on the
 * UTF-16 string itself: a '_' steps over a surrogate pair as one character.
 */
interface Run {
  /** Literal texts, and null for each '_'. */
  readonly parts: readonly (string | null)[];
  /** Its length in characters (code points). */
  readonly chars: number;
}

interface RunsLike {
  readonly runs: readonly Run[];
  readonly open: boolean;
  readonly rest: boolean;
}

function runsShape(parsed: ParsedLike): RunsLike | null {
  if (parsed.trailingEscape) return null;
  const runs: Run[] = [];
  let parts: (string | null)[] = [];
  let n = 0;
  const ps = parsed.pieces;
  for (const p of ps) {
    if (p.kind === 'any') {
      if (parts.length > 0) runs.push({ parts, chars: n });
      parts = [];
      n = 0;
    } else if (p.kind === 'one') {
      parts.push(null);
      n++;
    } else {
      parts.push(p.text);
      for (const _ of p.text) n++;
    }
  }
  if (parts.length > 0) runs.push({ parts, chars: n });
  return { runs, open: ps.length > 0 && ps[0]!.kind === 'any', rest: ps.length > 0 && ps[ps.length - 1]!.kind === 'any' };
}

const isHigh = (u: number): boolean => u >= 0xd800 && u <= 0xdbff;
const isLow = (u: number): boolean => u >= 0xdc00 && u <= 0xdfff;

/** Where `run` ends when it matches `text` at i, else -1. */
function runAt(text: string, run: Run, i: number): number {
  const parts = run.parts;
  for (let k = 0; k < parts.length; k++) {
    const lit = parts[k]!;
    if (lit === null) {
      if (i >= text.length) return -1;
      i += isHigh(text.charCodeAt(i)) && i + 1 < text.length && isLow(text.charCodeAt(i + 1)) ? 2 : 1;
    } else {
      if (!text.startsWith(lit, i)) return -1;
      i += lit.length;
    }
  }
  return i;
}

/** Where the leftmost match of `run` at or after `from` ends, else -1. */
function runFrom(text: string, run: Run, from: number): number {
  const first = run.parts[0]!;
  for (let i = from; i <= text.length; ) {
    if (first !== null) {
      // A literal starts with a whole character, so indexOf never lands inside a surrogate pair.
      i = text.indexOf(first, i);
      if (i < 0) return -1;
    }
    const e = runAt(text, run, i);
    if (e >= 0) return e;
    i += isHigh(text.charCodeAt(i)) && i + 1 < text.length && isLow(text.charCodeAt(i + 1)) ? 2 : 1;
  }
  return -1;
}

function runsMatch(text: string, r: RunsLike): boolean {
  const runs = r.runs;
  let last = runs.length;
  if (last === 0) return r.open || r.rest || text.length === 0;
  let pos = 0;
  let k = 0;
  if (!r.open) {
    pos = runAt(text, runs[0]!, 0);
    if (pos < 0) return false;
    k = 1;
    if (last === 1) return r.rest || pos === text.length;
  }
  if (!r.rest) last--;
  for (; k < last; k++) {
    pos = runFrom(text, runs[k]!, pos);
    if (pos < 0) return false;
  }
  if (r.rest) return true;
  // The last run ends the text: it starts its length in characters before the end.
  const run = runs[last]!;
  let start = text.length;
  for (let c = 0; c < run.chars; c++) {
    if (start <= pos) return false;
    start--;
    if (isLow(text.charCodeAt(start)) && start > pos && isHigh(text.charCodeAt(start - 1))) start--;
  }
  return runAt(text, run, start) === text.length;
}

/** How a pattern is matched: a prefix/suffix/substring/equality test, runs, or (a trailing escape) MatchText. */
type Compiled = { simple: SimpleLike; runs: null } | { simple: null; runs: RunsLike } | { simple: null; runs: null };

function compile(p: string): Compiled {
  const parsed = parseLike(p);
  const simple = simpleShape(parsed);
  if (simple !== null) return { simple, runs: null };
  const runs = runsShape(parsed);
  return runs !== null ? { simple: null, runs } : { simple: null, runs: null };
}

/** Patterns compiled lately, by pattern text. */
const compiledCache = new Map<string, Compiled>();
const COMPILED_CACHE_MAX = 256;
let lastPattern = '';
let lastCompiled: Compiled = compile('');

function compiledOf(pattern: string): Compiled {
  let c = compiledCache.get(pattern);
  if (c === undefined) {
    c = compile(pattern);
    if (compiledCache.size >= COMPILED_CACHE_MAX) compiledCache.clear();
    compiledCache.set(pattern, c);
  }
  lastPattern = pattern;
  lastCompiled = c;
  return c;
}

function simpleMatch(text: string, s: SimpleLike): boolean {
  const l = s.literal;
  if (s.open) return s.rest ? text.includes(l) : text.endsWith(l);
  return s.rest ? text.startsWith(l) : text === l;
}

/** PostgreSQL's MatchText itself: the reference the faster shapes above must agree with. */
export function likeByMatchText(text: string, pattern: string): boolean {
  return match(chars(text), 0, chars(pattern), 0) === TRUE;
}

export function like(text: string, pattern: string): boolean {
  const c = pattern === lastPattern ? lastCompiled : compiledOf(pattern);
  if (c.simple !== null) return simpleMatch(text, c.simple);
  if (c.runs !== null) return runsMatch(text, c.runs);
  return likeByMatchText(text, pattern);
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
