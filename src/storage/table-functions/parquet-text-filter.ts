/**
 * read_parquet's row filters on text columns: LIKE / NOT LIKE / ILIKE / NOT ILIKE with a constant
 * pattern, comparisons, IN and NOT IN with text constants, IS [NOT] NULL. A PLAIN page's values are
 * tested as the UTF-8 bytes they are stored as, so a string is built only for a row that passes.
 *
 * Byte tests give the answers the operators give on the decoded strings:
 *  - text compares in code point order (Quire's only collation is C), which is UTF-8 byte order;
 *  - a LIKE literal of whole characters matches valid UTF-8 at a byte position exactly when it
 *    matches the characters there, and '_' steps over one character's bytes;
 *  - ILIKE folds both sides with toLowerCase: on ASCII values that is ASCII folding of the value
 *    against the pattern folded once; a value with any other byte is tested as its string.
 * A chunk whose values are not all valid UTF-8 is tested string by string (the reader decodes bad
 * bytes to U+FFFD, which neither byte order nor the byte matcher sees), as are dictionary entries
 * (once each) and columns the flat decoder does not read.
 */
import { compareValues } from '../../common/compare.js';
import { T } from '../../common/types.js';
import { firstInvalidUtf8 } from '../../common/utf8-bytes.js';
import { ilike, like, parseLike, type LikePiece } from '../../functions/scalar/support/like.js';

export type TextOp = '=' | '<>' | '<' | '<=' | '>' | '>=';

/**
 * `anyBytes`: the byte test holds on bytes that are not valid UTF-8 too. A literal without U+FFFD
 * matches bad bytes' decoded string exactly where it matches the bytes: the decoder resynchronizes at
 * every byte that does not continue a sequence, which a literal's first byte never does, so the
 * literal's characters decode as themselves and no U+FFFD falls among them. Ordering, '_' (characters
 * counted) and U+FFFD in the constant need valid bytes.
 */
export type TextTest =
  | { readonly kind: 'like'; readonly negated: boolean; readonly fold: boolean; readonly pattern: string; readonly match: ByteMatcher; readonly anyBytes: boolean }
  | { readonly kind: 'compare'; readonly op: TextOp; readonly value: string; readonly bytes: Uint8Array; readonly anyBytes: boolean }
  | { readonly kind: 'in'; readonly negated: boolean; readonly values: readonly string[]; readonly bytes: readonly Uint8Array[]; readonly anyBytes: boolean }
  | { readonly kind: 'null'; readonly negated: boolean; readonly anyBytes: boolean };

const noReplacement = (s: string): boolean => !s.includes('\uFFFD');

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Whether s has no lone surrogate (which UTF-8 cannot hold: its bytes would stand for U+FFFD). */
export function wellFormed(s: string): boolean {
  return decoder.decode(encoder.encode(s)) === s;
}

/** The test of `s LIKE pattern` (ILIKE when fold), or null when the pattern cannot be matched on bytes. */
export function likeTest(pattern: string, negated: boolean, fold: boolean): TextTest | null {
  // ILIKE matches the folded text against the folded pattern (see ilike).
  const p = fold ? pattern.toLowerCase() : pattern;
  const parsed = parseLike(p);
  // Its error comes only where matching reaches it: left to the operator.
  if (parsed.trailingEscape) return null;
  const match = compileLike(parsed.pieces);
  // ILIKE tests ASCII values only on bytes (valid UTF-8 all).
  return { kind: 'like', negated, fold, pattern, match, anyBytes: fold || (match.literal !== null && noReplacement(p)) };
}

export function compareTest(op: TextOp, value: string): TextTest {
  return { kind: 'compare', op, value, bytes: encoder.encode(value), anyBytes: (op === '=' || op === '<>') && noReplacement(value) };
}

export function inTest(values: readonly string[], negated: boolean): TextTest {
  return { kind: 'in', negated, values, bytes: values.map((v) => encoder.encode(v)), anyBytes: values.every(noReplacement) };
}

/**
 * The test as a literal the value starts with (LIKE 'lit%') or is (LIKE 'lit', = 'lit'), or the
 * negation of either (NOT LIKE, <>), for loops that compare it in place; null for other tests.
 */
export function leadingLiteral(t: TextTest): { lit: Uint8Array; whole: boolean; negated: boolean } | null {
  if (t.kind === 'compare' && (t.op === '=' || t.op === '<>')) return { lit: t.bytes, whole: true, negated: t.op === '<>' };
  if (t.kind === 'like' && !t.fold && t.match.literal !== null && !t.match.open) return { lit: t.match.literal, whole: !t.match.rest, negated: t.negated };
  return null;
}

/** The test as a literal the value ends with (LIKE '%lit'), or its negation; null for other tests. */
export function trailingLiteral(t: TextTest): { lit: Uint8Array; negated: boolean } | null {
  if (t.kind === 'like' && !t.fold && t.match.literal !== null && t.match.open && !t.match.rest) return { lit: t.match.literal, negated: t.negated };
  return null;
}

/**
 * A literal as 32-bit little-endian words at offsets 0, 4, … and n - 4 (the last overlapping the one
 * before), compared four bytes at a load. A literal under four bytes is one word under a mask: the
 * load may reach past the value (into the next one's length prefix) wherever the buffer goes on.
 */
export class LiteralWords {
  readonly offsets: Int32Array;
  readonly words: Int32Array;
  /** For a literal under four bytes: its bytes as the low bytes of `short`, and the mask over them. */
  private readonly short: number;
  private readonly mask: number;
  constructor(readonly lit: Uint8Array) {
    const n = lit.length;
    const count = n < 4 ? 0 : Math.ceil(n / 4);
    this.offsets = new Int32Array(count);
    this.words = new Int32Array(count);
    const view = new DataView(lit.buffer, lit.byteOffset, lit.byteLength);
    for (let q = 0; q < count; q++) {
      this.offsets[q] = Math.min(4 * q, n - 4);
      this.words[q] = view.getInt32(this.offsets[q]!, true);
    }
    let short = 0;
    for (let q = 0; q < n && q < 4; q++) short |= lit[q]! << (8 * q);
    this.short = short;
    this.mask = n >= 4 ? -1 : (1 << (8 * n)) - 1;
  }

  /** Whether the literal's bytes are at `from` (which must leave room for all of them). */
  at(view: DataView, bytes: Uint8Array, from: number): boolean {
    const words = this.words;
    const count = words.length;
    if (count === 0) {
      if (from + 4 <= bytes.length) return ((view.getInt32(from, true) ^ this.short) & this.mask) === 0;
      const lit = this.lit;
      for (let q = 0; q < lit.length; q++) if (bytes[from + q] !== lit[q]) return false;
      return true;
    }
    const offsets = this.offsets;
    let x = 0;
    for (let q = 0; q < count; q++) x |= view.getInt32(from + offsets[q]!, true) ^ words[q]!;
    return x === 0;
  }
}

/** Whether a non-NULL string passes (the operators' own evaluation). */
export function stringPasses(t: TextTest, s: string): boolean {
  switch (t.kind) {
    case 'like':
      return (t.fold ? ilike(s, t.pattern) : like(s, t.pattern)) !== t.negated;
    case 'compare': {
      const c = compareValues(s, t.value, T.text);
      return compareHolds(t.op, c);
    }
    case 'in':
      return t.values.includes(s) !== t.negated;
    case 'null':
      return t.negated;
  }
}

function compareHolds(op: TextOp, c: number): boolean {
  switch (op) {
    case '=':
      return c === 0;
    case '<>':
      return c !== 0;
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '>=':
      return c >= 0;
  }
}

/** 1 when the valid UTF-8 value bytes[a, b) passes, 0 when not, -1 when only its string can tell. */
export function bytesPass(t: TextTest, bytes: Uint8Array, a: number, b: number): number {
  switch (t.kind) {
    case 'like': {
      const m = t.fold ? t.match.folded(bytes, a, b) : t.match.exact(bytes, a, b);
      if (m < 0) return -1;
      return m === 1 !== t.negated ? 1 : 0;
    }
    case 'compare':
      return compareHolds(t.op, compareBytes(bytes, a, b, t.bytes)) ? 1 : 0;
    case 'in': {
      const list = t.bytes;
      for (let i = 0; i < list.length; i++) if (compareBytes(bytes, a, b, list[i]!) === 0) return t.negated ? 0 : 1;
      return t.negated ? 1 : 0;
    }
    case 'null':
      return t.negated ? 1 : 0;
  }
}

function compareBytes(bytes: Uint8Array, a: number, b: number, k: Uint8Array): number {
  const n = b - a;
  const m = k.length;
  const l = n < m ? n : m;
  for (let i = 0; i < l; i++) {
    const x = bytes[a + i]!;
    const y = k[i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return n === m ? 0 : n < m ? -1 : 1;
}

/** Whether bytes [a, b) are valid UTF-8 (as the decoder reads them without replacing anything). */
export function validUtf8(bytes: Uint8Array, a: number, b: number): boolean {
  return firstInvalidUtf8(bytes, a, b, false) === -1;
}

/**
 * A LIKE pattern compiled for UTF-8 bytes. exact: 1 / 0 for match / no match. folded (ILIKE, the
 * pattern folded already): the same on an ASCII value, -1 on any other.
 */
export interface ByteMatcher {
  exact(bytes: Uint8Array, a: number, b: number): number;
  folded(bytes: Uint8Array, a: number, b: number): number;
  /** The literal of a pattern with no '_' and '%' at most at its ends (open and rest say where), else null. */
  readonly literal: Uint8Array | null;
  readonly open: boolean;
  readonly rest: boolean;
}

/** Pattern pieces as bytes: a literal's UTF-8, or -1 for '%' and -2 for '_'. */
type BytePiece = Uint8Array | -1 | -2;

function compileLike(pieces: readonly LikePiece[]): ByteMatcher {
  const ps: BytePiece[] = pieces.map((p) => (p.kind === 'literal' ? encoder.encode(p.text) : p.kind === 'any' ? -1 : -2));
  // The common shapes ('abc%', '%abc', '%abc%', 'abc', '%'): one comparison, no walk.
  let start = 0;
  while (start < ps.length && ps[start] === -1) start++;
  let end = ps.length;
  while (end > start && ps[end - 1] === -1) end--;
  const open = start > 0;
  const rest = end < ps.length;
  if (end - start <= 1 && (end === start || ps[start] instanceof Uint8Array)) {
    const lit = end === start ? new Uint8Array(0) : (ps[start] as Uint8Array);
    const test = (fold: boolean) => (bytes: Uint8Array, a: number, b: number): number => {
      if (fold && !asciiRange(bytes, a, b)) return -1;
      const n = lit.length;
      if (open && !rest) return n <= b - a && equalAt(bytes, b - n, lit, fold) ? 1 : 0;
      if (!open && rest) return n <= b - a && equalAt(bytes, a, lit, fold) ? 1 : 0;
      if (!open && !rest) return n === b - a && equalAt(bytes, a, lit, fold) ? 1 : 0;
      return indexOf(bytes, a, b, lit, fold) >= 0 ? 1 : 0;
    };
    return { exact: test(false), folded: test(true), literal: lit, open, rest };
  }
  return {
    literal: null,
    open,
    rest,
    exact: (bytes, a, b) => (matchBytes(bytes, a, b, ps, 0, false) === 1 ? 1 : 0),
    folded: (bytes, a, b) => (!asciiRange(bytes, a, b) ? -1 : matchBytes(bytes, a, b, ps, 0, true) === 1 ? 1 : 0),
  };
}

function asciiRange(bytes: Uint8Array, a: number, b: number): boolean {
  for (let i = a; i < b; i++) if (bytes[i]! >= 0x80) return false;
  return true;
}

/** ASCII lower case of a byte (the pattern's side is folded already). */
function lower(c: number): number {
  return c >= 65 && c <= 90 ? c | 32 : c;
}

function equalAt(bytes: Uint8Array, at: number, lit: Uint8Array, fold: boolean): boolean {
  const n = lit.length;
  if (fold) {
    for (let i = 0; i < n; i++) if (lower(bytes[at + i]!) !== lit[i]) return false;
  } else {
    for (let i = 0; i < n; i++) if (bytes[at + i] !== lit[i]) return false;
  }
  return true;
}

/** The first position in [from, b) where lit starts, or -1. */
function indexOf(bytes: Uint8Array, from: number, b: number, lit: Uint8Array, fold: boolean): number {
  const n = lit.length;
  if (n === 0) return from;
  const first = lit[0]!;
  const last = b - n;
  for (let i = from; i <= last; i++) {
    if ((fold ? lower(bytes[i]!) : bytes[i]) === first && equalAt(bytes, i + 1, lit.subarray(1), fold)) return i;
  }
  return -1;
}

/** Bytes of the UTF-8 character whose first byte is c. */
function charBytes(c: number): number {
  return c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
}

const TRUE = 1;
const FALSE = 0;
const ABORT = -1;

/**
 * PostgreSQL's MatchText over bytes [ti, b) from piece pi: 1 match, 0 no match, -1 no match here nor
 * at any later start of the '%' that called it (the same pruning as the string matcher's).
 */
function matchBytes(bytes: Uint8Array, ti: number, b: number, ps: readonly BytePiece[], pi: number, fold: boolean): number {
  for (; pi < ps.length; pi++) {
    const p = ps[pi]!;
    if (p === -2) {
      if (ti >= b) return ABORT;
      ti += charBytes(bytes[ti]!);
    } else if (p === -1) {
      // Runs of '%' and '_' collapse: each '_' must still consume one character.
      let next = pi + 1;
      for (; next < ps.length; next++) {
        const q = ps[next]!;
        if (q === -1) continue;
        if (q === -2) {
          if (ti >= b) return ABORT;
          ti += charBytes(bytes[ti]!);
          continue;
        }
        break;
      }
      if (next >= ps.length) return TRUE;
      const lit = ps[next] as Uint8Array;
      for (let at = indexOf(bytes, ti, b, lit, fold); at >= 0; at = indexOf(bytes, at + 1, b, lit, fold)) {
        const r = matchBytes(bytes, at + lit.length, b, ps, next + 1, fold);
        if (r !== FALSE) return r;
      }
      return ABORT;
    } else {
      if (p.length > b - ti || !equalAt(bytes, ti, p, fold)) return FALSE;
      ti += p.length;
    }
  }
  return ti >= b ? TRUE : FALSE;
}
