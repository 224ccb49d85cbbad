/**
 * A WebAssembly kernel that reads newline-delimited JSON records of one known shape: the bytes
 * between values (`{"id":`, `,"k":`, … `}`) are given as literals, and each record must repeat them
 * exactly, with one scalar value (string, number, true, false, null) after each. Machine-written
 * NDJSON repeats its shape on every line, and in plain JavaScript touching every byte of a record
 * cost as much as everything else the query did; here the bytes are read in WebAssembly and
 * JavaScript sees a few typed values per record.
 *
 * For each value the kernel writes a slot (see SLOT_BYTES): its kind, where its bytes are, and for
 * numbers the double (when it is exact) or the mantissa's parts; for strings a hash of the bytes,
 * or for a value given a string cache whether the cache already held those bytes (see SHAPE_CACHES).
 * An object or array in a value's place is checked as JSON (as JSON.parse would) and skipped: its
 * slot says where it is, and the caller keeps its text only for a column that reads it.
 * It stops at the first line that does not have the shape (a different key order, spacing, an
 * escape or control character in a top-level string, a nested value deeper than 63, a number JSON
 * forbids, a line without its '\n' in the window): that line is the caller's, read the general way.
 *
 * Assembled here from its opcodes, as special-byte-index.ts; absent without WebAssembly.
 */
import { F64, FunctionBody as Body, I32, I64, kernelModule, uleb, wasm, I32_EQZ, I32_EQ, I32_NE, I32_LT_U, I32_GT_U, I32_GE_U, I32_ADD, I32_SUB, I32_MUL, I32_OR, I32_AND, I32_SHL, I64_ADD, I64_SUB, I64_AND, I64_XOR, I64_SHL, I64_SHR_U, I64_OR, I64_NE, I64_EQZ, I64_MUL, I64_LT_U, I64_EXTEND_I32_U, I32_WRAP_I64, F64_CONVERT_I64_U, F64_DIV, F64_NEG } from './wasm-bytecode.js';

/** Bytes of input one call may read (copied into the kernel's memory). */
export const SHAPE_WINDOW = 1 << 16;
/** Records one call may read, and values per record a shape may have. */
export const SHAPE_ROWS = 1024;
export const SHAPE_VALUES = 64;
/** Literal bytes a shape may have in all. */
export const SHAPE_LITERAL_BYTES = 4096;

/** Per value: f64 value, i32 start, i32 end, i32 tag (kind | negative | fraction digits << 8), i32 hash or low 32 bits of the mantissa. */
export const SLOT_BYTES = 24;
/** Slots one call may fill: a call reads at most SHAPE_SLOTS / values records. */
export const SHAPE_SLOTS = 10240;
/**
 * String caches (one per value given one, at most SHAPE_CACHES), of CACHE_SLOTS entries each: the
 * bytes of the last short ASCII string whose hash chose the entry. Repeated short strings (codes,
 * categories) are then recognised here, and the caller reuses one string object per entry instead
 * of comparing or making one per row.
 */
export const SHAPE_CACHES = 8;
export const CACHE_SLOTS = 1024;
/** Strings up to this many bytes are cached (an entry: a length byte and the bytes). */
export const CACHE_STRING = 31;
const CACHE_ENTRY = 32;
/** An entry's length byte when it holds nothing. */
export const CACHE_EMPTY = 255;

/** Value kinds in a slot's tag (its low four bits). */
export const enum Tag {
  Null = 0,
  /** A string of bytes below 128 only; hash = the string's hash (h = h * 31 + byte). */
  Ascii = 1,
  /** A string with bytes of 128 and more (UTF-8 to check and decode). */
  Utf8 = 2,
  True = 3,
  False = 4,
  /** An integer below 2^53 (no fraction, no exponent): value is exact. */
  Int = 5,
  /** A number with a fraction, mantissa below 2^53: value = mantissa / 10^fraction, correctly rounded. */
  Exact = 6,
  /** A mantissa of 2^53 up to 19 digits: value is its nearest double, hash its low 32 bits (see mantissaOverPow10). */
  Wide = 7,
  /** An exponent or more than 19 digits: only the text (start, end) is known. */
  Text = 8,
  /**
   * An ASCII string of a value with a string cache, equal to the bytes its cache slot (the slot's
   * number in place of the hash) held: the string made for that slot before is this one.
   */
  Cached = 9,
  /** As Cached, but the slot held other bytes: it holds these now, and the caller makes their string. */
  Fresh = 10,
  /** An object or array, checked as JSON; start and end are its bytes. */
  Nested = 11,
}
/** Set in a number's tag when it has a minus sign (value is then already negated, except for Text). */
export const TAG_NEGATIVE = 16;
/** Set in a Nested value's tag when it holds a byte of 128 or more (its UTF-8 is the caller's to check). */
export const TAG_HIGH = 32;
/** Containers a nested value may open inside one another (a bit each in an i64 local). */
const NEST_DEPTH = 63;

// Memory layout.
const IN_AT = 0;
/** The window is followed by a zero byte: every check fails on it, so the kernel needs no bounds checks. */
const align = (n: number): number => Math.ceil(n / 16) * 16;
export const LINES_AT = align(IN_AT + SHAPE_WINDOW + 1);
const STEPS_AT = align(LINES_AT + 4 * (SHAPE_ROWS + 1));
export const LIT_AT = align(STEPS_AT + 12 * (SHAPE_VALUES + 1));
const POW_AT = align(LIT_AT + SHAPE_LITERAL_BYTES);
export const OUT_AT = align(POW_AT + 8 * 23);
const CACHE_AT = align(OUT_AT + SLOT_BYTES * SHAPE_SLOTS);
const END_AT = CACHE_AT + SHAPE_CACHES * CACHE_SLOTS * CACHE_ENTRY;
const PAGES = Math.ceil(END_AT / 65536);

// Parameters: run(start, end, steps, maxRows) -> rows read. Exported with the locals for the key
// kernel, whose function has the same parameters and locals and more after them.
export const P = 0; // the next byte
export const END = 1;
export const NSTEPS = 2;
export const MAXROWS = 3;
// Locals.
export const ROWS = 4;
export const J = 5;
export const Q = 6;
const QE = 7;
export const C = 8;
export const SLOT = 9;
export const S0 = 10;
const TAG = 11;
export const H = 12;
const ND = 13;
const NF = 14;
const ST = 15;
export const CI = 16; // the value's string cache (1 …), or 0
export const E = 17; // the cache entry
export const K = 18;
export const LEN = 19;
const MANT = 20; // i64
const W = 21; // i64
const T8 = 22; // i64
const VAL = 23; // f64

/** Digits at P into MANT (mantissa = mantissa * 10^n + digits), counting them in `count`. */
function digits(f: Body, count: number): void {
  const ZEROS = 0x3030303030303030n;
  const HIGH = 0xf0f0f0f0f0f0f0f0n;
  // Eight at a time while eight digits follow: pairs, then fours, then the eight combine in three
  // multiply-adds (the 17-digit doubles of shortest round-trip output take two steps and a byte).
  f.block('eights').loop('eight');
  f.word(P).tee(W).i64(HIGH).op(I64_AND).i64(ZEROS).op(I64_NE).brIf('eights');
  f.get(W).i64(0x0606060606060606n).op(I64_ADD).i64(HIGH).op(I64_AND).i64(ZEROS).op(I64_NE).brIf('eights');
  f.get(W).i64(0x0f0f0f0f0f0f0f0fn).op(I64_AND).tee(T8);
  f.i64(10n).op(I64_MUL).get(T8).i64(8n).op(I64_SHR_U, I64_ADD).i64(0x00ff00ff00ff00ffn).op(I64_AND).tee(T8);
  f.i64(100n).op(I64_MUL).get(T8).i64(16n).op(I64_SHR_U, I64_ADD).i64(0x0000ffff0000ffffn).op(I64_AND).tee(T8);
  f.i64(10000n).op(I64_MUL).get(T8).i64(32n).op(I64_SHR_U, I64_ADD).i64(0xffffffffn).op(I64_AND).set(T8);
  f.get(MANT).i64(100000000n).op(I64_MUL).get(T8).op(I64_ADD).set(MANT);
  f.add(P, 8).add(count, 8).br('eight');
  f.end().end();
  f.block('digits').loop('digit');
  f.byte(P).i32(48).op(I32_SUB).tee(C).i32(9).op(I32_GT_U).brIf('digits');
  f.get(MANT).i64(10n).op(I64_MUL).get(C).op(I64_EXTEND_I32_U, I64_ADD).set(MANT);
  f.add(P, 1).add(count, 1).br('digit');
  f.end().end();
}

/** Fails unless the bytes at P + 1 … are `rest`. */
function expectBytes(f: Body, rest: string): void {
  for (let k = 0; k < rest.length; k++) f.byte(P, k + 1).i32(rest.charCodeAt(k)).op(I32_NE).brIf('fail');
}

/** P past spaces, tabs and CRs (JSON's whitespace within a line), C left holding the byte there. */
export function skipSpace(f: Body): void {
  f.block('ws').loop('wsc');
  f.byte(P).tee(C).i32(32).op(I32_EQ);
  f.get(C).i32(9).op(I32_EQ).op(I32_OR);
  f.get(C).i32(13).op(I32_EQ).op(I32_OR);
  f.op(I32_EQZ).brIf('ws');
  f.add(P, 1).br('wsc');
  f.end().end();
}

/**
 * The string whose opening quote is at P, P left after its closing quote: escapes checked as JSON
 * allows them, control characters refused, a byte of 128 or more noted in TAG (TAG_HIGH).
 */
function checkedString(f: Body): void {
  f.add(P, 1);
  f.block('cs').loop('csc');
  f.byte(P).tee(C).i32(34).op(I32_EQ).brIf('cs');
  f.get(C).i32(32).op(I32_LT_U).brIf('fail');
  f.get(C).i32(127).op(I32_GT_U).if().get(TAG).i32(TAG_HIGH).op(I32_OR).set(TAG).end();
  f.get(C).i32(92).op(I32_EQ).if();
  {
    f.byte(P, 1).tee(C).i32(117).op(I32_EQ).if();
    // \u and four hex digits, each checked before the next is read (the window's zero byte fails).
    for (let k = 2; k < 6; k++) {
      // A digit, or a-f in either case (the digit test on the byte itself: x | 32 would take 16-25).
      f.byte(P, k).tee(C).i32(48).op(I32_SUB).i32(9).op(I32_GT_U);
      f.get(C).i32(32).op(I32_OR).i32(97).op(I32_SUB).i32(5).op(I32_GT_U).op(I32_AND).brIf('fail');
    }
    f.add(P, 6).br('csc');
    f.end();
    // " \ / b f n r t
    f.get(C).i32(34).op(I32_EQ);
    for (const x of [92, 47, 98, 102, 110, 114, 116]) f.get(C).i32(x).op(I32_EQ).op(I32_OR);
    f.op(I32_EQZ).brIf('fail');
    f.add(P, 2).br('csc');
  }
  f.end();
  f.add(P, 1).br('csc');
  f.end().end();
  f.add(P, 1);
}

/** Digits at P, counted in LEN; P left after them. */
function countDigits(f: Body): void {
  f.i32(0).set(LEN);
  f.block('cd').loop('cdc');
  f.byte(P).i32(48).op(I32_SUB).i32(9).op(I32_GT_U).brIf('cd');
  f.add(P, 1).add(LEN, 1).br('cdc');
  f.end().end();
}

/**
 * The object or array at P (C holds its first byte) checked as JSON and skipped, P left after it;
 * TAG becomes Nested (with TAG_HIGH when a string in it holds a byte of 128 or more). A small state
 * machine: E is what comes next (0 a value, 1 a ',' or the container's end, 2 a key), K the depth,
 * and T8's low bits which containers are open (1 an object, 0 an array; the lowest the innermost).
 */
function nestedValue(f: Body): void {
  f.i32(Tag.Nested).set(TAG).i32(0).set(K).i64(0n).set(T8).i32(0).set(E);
  f.block('nest').loop('nestc');
  // After a value at depth 0: the outermost container has closed.
  f.get(E).i32(1).op(I32_EQ).get(K).op(I32_EQZ).op(I32_AND).brIf('nest');
  skipSpace(f);
  f.get(E).i32(2).op(I32_EQ).if();
  {
    f.get(C).i32(34).op(I32_NE).brIf('fail');
    checkedString(f);
    skipSpace(f);
    f.get(C).i32(58).op(I32_NE).brIf('fail');
    f.add(P, 1).i32(0).set(E).br('nestc');
  }
  f.end();
  f.get(E).i32(1).op(I32_EQ).if();
  {
    // ',': a key next in an object, a value in an array.
    f.get(C).i32(44).op(I32_EQ).if();
    f.add(P, 1).get(T8).op(I32_WRAP_I64).i32(1).op(I32_AND).i32(1).op(I32_SHL).set(E).br('nestc');
    f.end();
    // Else the open container's end: ']' (93), or '}' (125) for an object.
    f.get(C).i32(93).get(T8).op(I32_WRAP_I64).i32(1).op(I32_AND).i32(32).op(I32_MUL, I32_ADD).op(I32_NE).brIf('fail');
    f.add(P, 1).add(K, -1).get(T8).i64(1n).op(I64_SHR_U).set(T8).br('nestc');
  }
  f.end();
  // A value.
  f.get(C).i32(123).op(I32_EQ).get(C).i32(91).op(I32_EQ).op(I32_OR).if();
  {
    f.get(K).i32(NEST_DEPTH).op(I32_GE_U).brIf('fail');
    f.get(T8).i64(1n).op(I64_SHL).get(C).i32(123).op(I32_EQ).op(I64_EXTEND_I32_U, I64_OR).set(T8);
    f.add(K, 1).add(P, 1);
    // C: '{' or '['; skipSpace below overwrites it, so keep the closing byte ('{' + 2, '[' + 2) in LEN.
    f.get(C).i32(2).op(I32_ADD).set(LEN);
    skipSpace(f);
    f.get(C).get(LEN).op(I32_EQ).if();
    f.add(P, 1).add(K, -1).get(T8).i64(1n).op(I64_SHR_U).set(T8).i32(1).set(E).br('nestc');
    f.end();
    f.get(T8).op(I32_WRAP_I64).i32(1).op(I32_AND).i32(1).op(I32_SHL).set(E).br('nestc');
  }
  f.end();
  f.i32(1).set(E);
  f.get(C).i32(34).op(I32_EQ).if();
  checkedString(f);
  f.br('nestc');
  f.end();
  f.get(C).i32(110).op(I32_EQ).if();
  expectBytes(f, 'ull');
  f.add(P, 4).br('nestc');
  f.end();
  f.get(C).i32(116).op(I32_EQ).if();
  expectBytes(f, 'rue');
  f.add(P, 4).br('nestc');
  f.end();
  f.get(C).i32(102).op(I32_EQ).if();
  expectBytes(f, 'alse');
  f.add(P, 5).br('nestc');
  f.end();
  // A number: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
  f.get(C).i32(45).op(I32_EQ).if().add(P, 1).end();
  f.byte(P).i32(48).op(I32_EQ).if();
  f.add(P, 1);
  f.else();
  countDigits(f);
  f.get(LEN).op(I32_EQZ).brIf('fail');
  f.end();
  f.byte(P).i32(46).op(I32_EQ).if();
  f.add(P, 1);
  countDigits(f);
  f.get(LEN).op(I32_EQZ).brIf('fail');
  f.end();
  f.byte(P).i32(32).op(I32_OR).i32(101).op(I32_EQ).if();
  f.add(P, 1);
  f.byte(P).i32(43).op(I32_EQ).byte(P).i32(45).op(I32_EQ).op(I32_OR).if().add(P, 1).end();
  countDigits(f);
  f.get(LEN).op(I32_EQZ).brIf('fail');
  f.end();
  f.br('nestc');
  f.end().end();
}

/**
 * One scalar value at P into the slot at SLOT (its string cache in CI: 1 …, or 0), P left after it;
 * branches to 'fail' on anything else. Shared by the shape kernel and the key kernel
 * (ndjson-key-kernel.ts), which differ only in how they find a value's slot.
 */
export function scalarValue(f: Body): void {
  f.get(P).set(S0);
  f.byte(P).tee(C).i32(34).op(I32_EQ).if();
  {
    // A string: up to its closing quote; a backslash or control character is not this kernel's.
    f.add(P, 1).i32(0).set(H).i32(Tag.Ascii).set(TAG);
    f.block('str').loop('strc');
    f.byte(P).tee(C).i32(34).op(I32_EQ).brIf('str');
    f.get(C).i32(92).op(I32_EQ).brIf('fail');
    f.get(C).i32(32).op(I32_LT_U).brIf('fail');
    f.get(C).i32(127).op(I32_GT_U).if().i32(Tag.Utf8).set(TAG).end();
    f.get(H).i32(31).op(I32_MUL).get(C).op(I32_ADD).set(H);
    f.add(P, 1).br('strc');
    f.end().end();
    f.add(S0, 1);
    f.get(SLOT).get(S0).storeI32(8);
    f.get(SLOT).get(P).storeI32(12);
    // A short ASCII string of a value with a cache: against the entry its hash picks.
    f.get(CI).i32(0).op(I32_NE);
    f.get(TAG).i32(Tag.Ascii).op(I32_EQ).op(0x71 /* i32.and */);
    f.get(P).get(S0).op(I32_SUB).tee(LEN).i32(CACHE_STRING + 1).op(I32_LT_U).op(0x71).if();
    {
      f.get(H).get(H).i32(13).op(0x76 /* i32.shr_u */).op(0x73 /* i32.xor */).i32(CACHE_SLOTS - 1).op(0x71).set(H);
      f.i32(CACHE_AT).get(CI).i32(1).op(I32_SUB).i32(CACHE_SLOTS).op(I32_MUL).get(H).op(I32_ADD).i32(CACHE_ENTRY).op(I32_MUL, I32_ADD).set(E);
      f.i32(Tag.Cached).set(TAG);
      f.byte(E).get(LEN).op(I32_NE).if();
      f.i32(Tag.Fresh).set(TAG);
      f.else();
      f.i32(0).set(K);
      f.block('same').loop('samec');
      f.get(K).get(LEN).op(I32_GE_U).brIf('same');
      f.get(S0).get(K).op(I32_ADD).op(0x2d, 0, 0).get(E).get(K).op(I32_ADD).op(0x2d, 0, 1).op(I32_NE).if().i32(Tag.Fresh).set(TAG).br('same').end();
      f.add(K, 1).br('samec');
      f.end().end();
      f.end();
      f.get(TAG).i32(Tag.Fresh).op(I32_EQ).if();
      {
        // The entry takes these bytes (the caller makes their string).
        f.get(E).get(LEN).op(0x3a /* i32.store8 */, 0, 0);
        f.i32(0).set(K);
        f.block('copy').loop('copyc');
        f.get(K).get(LEN).op(I32_GE_U).brIf('copy');
        f.get(E).get(K).op(I32_ADD).get(S0).get(K).op(I32_ADD).op(0x2d, 0, 0).op(0x3a, 0, 1);
        f.add(K, 1).br('copyc');
        f.end().end();
      }
      f.end();
    }
    f.end();
    f.get(SLOT).get(TAG).storeI32(16);
    f.get(SLOT).get(H).storeI32(20);
    f.add(P, 1);
  }
  f.else();
  f.get(C).i32(110).op(I32_EQ).if();
  expectBytes(f, 'ull');
  f.get(SLOT).i32(Tag.Null).storeI32(16).add(P, 4);
  f.else();
  f.get(C).i32(116).op(I32_EQ).if();
  expectBytes(f, 'rue');
  f.get(SLOT).i32(Tag.True).storeI32(16).add(P, 4);
  f.else();
  f.get(C).i32(102).op(I32_EQ).if();
  expectBytes(f, 'alse');
  f.get(SLOT).i32(Tag.False).storeI32(16).add(P, 5);
  f.else();
  f.get(C).i32(123).op(I32_EQ).get(C).i32(91).op(I32_EQ).op(I32_OR).if();
  nestedValue(f);
  f.get(SLOT).get(S0).storeI32(8);
  f.get(SLOT).get(P).storeI32(12);
  f.get(SLOT).get(TAG).storeI32(16);
  f.else();
  {
    // A number, as JSON writes it: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
    f.i32(0).set(TAG);
    f.get(C).i32(45).op(I32_EQ).if().i32(TAG_NEGATIVE).set(TAG).add(P, 1).end();
    f.i64(0n).set(MANT).i32(0).set(ND).i32(0).set(NF);
    f.byte(P).i32(48).op(I32_EQ).if().add(P, 1).i32(1).set(ND).else();
    digits(f, ND);
    f.end();
    f.get(ND).op(I32_EQZ).brIf('fail');
    f.byte(P).i32(46).op(I32_EQ).if().add(P, 1);
    digits(f, NF);
    f.get(NF).op(I32_EQZ).brIf('fail');
    f.end();
    f.byte(P).i32(32).op(I32_OR).i32(101).op(I32_EQ).if();
    {
      // An exponent: the text is converted by the caller.
      f.add(P, 1);
      f.byte(P).i32(43).op(I32_EQ).byte(P).i32(45).op(I32_EQ).op(I32_OR).if().add(P, 1).end();
      f.i32(0).set(ND);
      f.block('exp').loop('expc');
      f.byte(P).i32(48).op(I32_SUB).i32(9).op(I32_GT_U).brIf('exp');
      f.add(P, 1).add(ND, 1).br('expc');
      f.end().end();
      f.get(ND).op(I32_EQZ).brIf('fail');
      f.get(TAG).i32(Tag.Text).op(I32_OR).set(TAG);
    }
    f.else();
    f.get(ND).get(NF).op(I32_ADD).i32(19).op(I32_GT_U).if();
    f.get(TAG).i32(Tag.Text).op(I32_OR).set(TAG);
    f.else();
    f.get(MANT).op(F64_CONVERT_I64_U).set(VAL);
    f.get(MANT).i64(2n ** 53n).op(I64_LT_U).if();
    {
      f.get(NF).op(I32_EQZ).if();
      f.get(TAG).i32(Tag.Int).op(I32_OR).set(TAG);
      f.else();
      // mantissa and 10^fraction both exact: one correctly rounded division.
      f.get(VAL).i32(POW_AT).get(NF).i32(3).op(I32_SHL, I32_ADD).loadF64(0).op(F64_DIV).set(VAL);
      f.get(TAG).i32(Tag.Exact).op(I32_OR).set(TAG);
      f.end();
    }
    f.else();
    f.get(TAG).i32(Tag.Wide).op(I32_OR).set(TAG);
    f.get(SLOT).get(MANT).op(I32_WRAP_I64).storeI32(20);
    f.end();
    f.get(TAG).i32(TAG_NEGATIVE).op(0x71 /* i32.and */).if().get(VAL).op(F64_NEG).set(VAL).end();
    f.get(SLOT).get(VAL).storeF64(0);
    f.end();
    f.end();
    f.get(SLOT).get(S0).storeI32(8);
    f.get(SLOT).get(P).storeI32(12);
    f.get(SLOT).get(TAG).get(NF).i32(8).op(I32_SHL, I32_OR).storeI32(16);
  }
  f.end().end().end().end().end();
}

export function shapeKernelBody(): number[] {
  const f = new Body();
  f.block('done').loop('row');
  // lines[rows] = where the next record starts (the caller resumes there).
  f.i32(LINES_AT).get(ROWS).i32(2).op(I32_SHL, I32_ADD).get(P).storeI32(0);
  f.get(ROWS).get(MAXROWS).op(I32_GE_U).brIf('done');
  f.get(P).get(END).op(I32_GE_U).brIf('done');
  f.i32(OUT_AT).get(ROWS).get(NSTEPS).i32(SLOT_BYTES).op(I32_MUL, I32_MUL, I32_ADD).set(SLOT);
  f.i32(0).set(J);
  f.block('fail').loop('step');
  // The literal before value J (or after the last value).
  f.i32(STEPS_AT).get(J).i32(12).op(I32_MUL, I32_ADD).tee(ST).loadI32(0).tee(Q);
  f.get(ST).loadI32(4).op(I32_ADD).set(QE);
  // Compared eight bytes at a time, the last few under a mask. Bytes past the window are compared
  // too where the literal runs past it, and the zero byte there never matches a literal's.
  f.block('lit').loop('litc');
  f.get(QE).get(Q).op(I32_SUB).tee(C).op(I32_EQZ).brIf('lit');
  f.get(C).i32(8).op(I32_GE_U).if();
  f.word(P).word(Q).op(I64_NE).brIf('fail');
  f.add(P, 8).add(Q, 8).br('litc');
  f.end();
  f.word(P).word(Q).op(I64_XOR).i64(1n).get(C).i32(3).op(I32_SHL).op(I64_EXTEND_I32_U, I64_SHL).i64(1n).op(I64_SUB, I64_AND);
  f.op(I64_EQZ, I32_EQZ).brIf('fail');
  f.get(P).get(C).op(I32_ADD).set(P).br('lit');
  f.end().end();
  // After the last literal, the line's end.
  f.get(J).get(NSTEPS).op(I32_EQ).if();
  f.byte(P).i32(10).op(I32_NE).brIf('fail');
  f.add(P, 1).add(ROWS, 1).br('row');
  f.end();
  f.get(ST).loadI32(8).set(CI);
  scalarValue(f);
  f.add(SLOT, SLOT_BYTES).add(J, 1).br('step');
  f.end().end(); // step, fail
  f.br('done');
  f.end().end(); // row, done
  f.get(ROWS);
  f.op(0x0b);
  return functionCode(f);
}

/** The locals both kernels declare (ROWS … VAL), then `extra` groups ([count, type] …), and the code. */
export function functionCode(f: Body, extra: number[][] = []): number[] {
  const locals = [3 + extra.length, 16, I32, 3, I64, 1, F64, ...extra.flat()];
  const fn = [...locals, ...f.code];
  return [...uleb(fn.length), ...fn];
}

/** The kernels and views of their memory. One per process: a call runs to completion before another starts. */
export interface ShapeKernel {
  readonly run: (start: number, end: number, steps: number, maxRows: number) => number;
  /** The key kernel (ndjson-key-kernel.ts): steps is the number of fields, the key table is in the literals' place. */
  readonly keys: (start: number, end: number, fields: number, maxRows: number) => number;
  /** The window: input bytes go to [0, SHAPE_WINDOW), followed by a zero byte. */
  readonly input: Uint8Array;
  /** lines[k]: the start (in the window) of record k; lines[rows]: where reading stopped. */
  readonly lines: Int32Array;
  /** Per value: the literal before it (address, length) and its string cache (1 …, or 0); the last entry is the literal after the last value. */
  readonly steps: Int32Array;
  /** The string caches' entries (CACHE_ENTRY bytes each: length, then the bytes). */
  readonly cache: Uint8Array;
  /** Per cache, the string of each entry's bytes: kept equal to the entries by every caller. */
  readonly cacheStrings: string[][];
  readonly literals: Uint8Array;
  readonly literalsAt: number;
  /** The slots of the records read, row after row, SLOT_BYTES each, as doubles and as 32-bit integers. */
  readonly slotF64: Float64Array;
  readonly slotI32: Int32Array;
  /** The reader whose literals or key table the memory holds now (it need not write them again). */
  owner: object | null;
}

/**
 * Both NDJSON kernels in one module over one memory (ndjson-kernels.ts instantiates it; the key
 * kernel's body is `keys`); null where WebAssembly is not available.
 */
export function instantiate(keys: number[]): ShapeKernel | null {
  try {
    if (wasm === undefined) return null;
    const memory = new wasm.Memory({ initial: PAGES, maximum: PAGES });
    const inst = new wasm.Instance(new wasm.Module(kernelModule(4, PAGES, shapeKernelBody(), [['keys', keys]])), { env: { mem: memory } });
    const buf = memory.buffer;
    new Float64Array(buf, POW_AT, 23).set(Array.from({ length: 23 }, (_, i) => Number(`1e${i}`)));
    return {
      run: inst.exports.run as ShapeKernel['run'],
      keys: inst.exports.keys as ShapeKernel['run'],
      input: new Uint8Array(buf, IN_AT, SHAPE_WINDOW + 1),
      lines: new Int32Array(buf, LINES_AT, SHAPE_ROWS + 1),
      steps: new Int32Array(buf, STEPS_AT, 3 * (SHAPE_VALUES + 1)),
      cache: new Uint8Array(buf, CACHE_AT, SHAPE_CACHES * CACHE_SLOTS * CACHE_ENTRY).fill(CACHE_EMPTY),
      cacheStrings: Array.from({ length: SHAPE_CACHES }, () => new Array<string>(CACHE_SLOTS).fill('')),
      literals: new Uint8Array(buf, LIT_AT, SHAPE_LITERAL_BYTES),
      literalsAt: LIT_AT,
      slotF64: new Float64Array(buf, OUT_AT, (SLOT_BYTES / 8) * SHAPE_SLOTS),
      slotI32: new Int32Array(buf, OUT_AT, (SLOT_BYTES / 4) * SHAPE_SLOTS),
      owner: null,
    };
  } catch {
    return null;
  }
}

/** Memory the kernel holds (for memory_limit accounting). */
export const SHAPE_KERNEL_BYTES = PAGES * 65536;
