/**
 * A WebAssembly kernel that converts one numeric column of a CsvScanner batch: integers and plain
 * decimals ([-]digits[.digits]) straight from the field bytes to doubles. In JavaScript the digit
 * loops were half of reading a CSV of numbers (a byte read, a bounds check and a multiply-add per
 * digit, a dozen array reads per field); here they run without checks on a copy of the batch's bytes.
 *
 * The kernel takes only the fields csv-columns.ts's fast paths would take and whose value it gets
 * exactly as they do (the same double arithmetic: an exact mantissa, one correctly rounded division
 * by an exact power of ten). Every other field (empty, quoted, signed where not allowed, too long, a
 * mantissa of 2^53 or more, anything not a digit) is listed as an exception, and the caller converts
 * those rows the JavaScript way, so NULLs, slow paths and error messages stay where they were.
 *
 * Assembled here from its opcodes, as special-byte-index.ts; absent without WebAssembly.
 */
import { BATCH_SIZE } from '../common/column.js';
import { F64, FunctionBody, I32, I64, kernelModule, uleb, wasm, I32_EQZ, I32_EQ, I32_NE, I32_GT_U, I32_GE_U, I32_ADD, I32_SUB, I32_LT_S, I32_MUL, I32_AND, I32_SHL, I32_SHR_U, I64_AND, I64_NE, I64_SHR_U, I64_MUL, I64_ADD, I64_GE_U, I64_EXTEND_I32_U, F64_CONVERT_I64_U, F64_DIV, F64_ADD, F64_SUB, F64_MUL, F64_ABS, F64_NE, I64_SUB, I64_TRUNC_F64_U, F64_CONVERT_I64_S, F64_NEG } from './wasm-bytecode.js';

/** Most field slots (rows × fields per row) and bytes one batch may bring; larger batches stay in JavaScript. */
export const KERNEL_SLOTS = 1 << 16;
export const KERNEL_BYTES = 1 << 20;

// Memory layout.
/** 10^0 … 10^22, their reciprocals and their Dekker splits (see decimal-digits-to-double.ts). */
const POW_AT = 0;
const INV_AT = 192;
const HI_AT = 384;
const LO_AT = 576;
const VALUES_AT = 768;
const EXC_AT = VALUES_AT + 8 * BATCH_SIZE;
const STARTS_AT = EXC_AT + 4 * BATCH_SIZE;
const ENDS_AT = STARTS_AT + 4 * KERNEL_SLOTS;
const FLAGS_AT = ENDS_AT + 4 * KERNEL_SLOTS;
const IN_AT = FLAGS_AT + KERNEL_SLOTS;
const PAGES = Math.ceil((IN_AT + KERNEL_BYTES + 16) / 65536);

// Parameters: run(col, width, rows, bias, kind) -> exceptions. kind: 0 for float8, else the most
// digits an integer may have (4, 9, 15: int2, int4, int8).
const COL = 0;
const WIDTH = 1;
const ROWS = 2;
const BIAS = 3;
const KIND = 4;
// Locals.
const R = 5;
const SLOT = 6;
const P = 7;
const E = 8;
const C = 9;
const NEG = 10;
const ND = 11;
const NF = 12;
const NEXC = 13;
const MANT = 14; // i64
const W = 15; // i64
const VAL = 16; // f64, and the quotient's terms
const MH = 17;
const ML = 18;
const Q = 19;
const QH = 20;
const QL = 21;
const PH = 22;
const CC = 23;
const T = 24;

/**
 * Digits at P (up to E) into MANT, counting them in `count`; stops at the first other byte. Eight and
 * then four at a time while that many digits follow (a 17-digit double takes two steps and a byte):
 * the lanes combine in pairs, so the multiply-adds do not wait on each other as one per digit would.
 */
function digits(f: FunctionBody, count: number): void {
  const HIGH = 0xf0f0f0f0f0f0f0f0n;
  const ZEROS = 0x3030303030303030n;
  f.block('eights').loop('eight');
  f.get(E).get(P).op(I32_SUB).i32(8).op(I32_LT_S).brIf('eights');
  f.word(P).tee(W).i64(HIGH).op(I64_AND).i64(ZEROS).op(I64_NE).brIf('eights');
  f.get(W).i64(0x0606060606060606n).op(I64_ADD).i64(HIGH).op(I64_AND).i64(ZEROS).op(I64_NE).brIf('eights');
  f.get(W).i64(0x0f0f0f0f0f0f0f0fn).op(I64_AND).tee(W);
  f.i64(10n).op(I64_MUL).get(W).i64(8n).op(I64_SHR_U, I64_ADD).i64(0x00ff00ff00ff00ffn).op(I64_AND).tee(W);
  f.i64(100n).op(I64_MUL).get(W).i64(16n).op(I64_SHR_U, I64_ADD).i64(0x0000ffff0000ffffn).op(I64_AND).tee(W);
  f.i64(10000n).op(I64_MUL).get(W).i64(32n).op(I64_SHR_U, I64_ADD).i64(0xffffffffn).op(I64_AND).set(W);
  f.get(MANT).i64(100000000n).op(I64_MUL).get(W).op(I64_ADD).set(MANT);
  f.add(P, 8).add(count, 8).br('eight');
  f.end().end();
  f.block('four');
  f.get(E).get(P).op(I32_SUB).i32(4).op(I32_LT_S).brIf('four');
  f.get(P).loadI32(0).tee(C).i32(0xf0f0f0f0 | 0).op(I32_AND).i32(0x30303030).op(I32_NE).brIf('four');
  f.get(C).i32(0x06060606).op(I32_ADD).i32(0xf0f0f0f0 | 0).op(I32_AND).i32(0x30303030).op(I32_NE).brIf('four');
  f.get(C).i32(0x0f0f0f0f).op(I32_AND).tee(C);
  f.i32(10).op(I32_MUL).get(C).i32(8).op(I32_SHR_U, I32_ADD).i32(0x00ff00ff).op(I32_AND).tee(C);
  f.i32(100).op(I32_MUL).get(C).i32(16).op(I32_SHR_U, I32_ADD).i32(0xffff).op(I32_AND).set(C);
  f.get(MANT).i64(10000n).op(I64_MUL).get(C).op(I64_EXTEND_I32_U, I64_ADD).set(MANT);
  f.add(P, 4).add(count, 4);
  f.end();
  f.block('digits').loop('digit');
  f.get(P).get(E).op(I32_GE_U).brIf('digits');
  f.byte(P).i32(48).op(I32_SUB).tee(C).i32(9).op(I32_GT_U).brIf('digits');
  f.get(MANT).i64(10n).op(I64_MUL).get(C).op(I64_EXTEND_I32_U, I64_ADD).set(MANT);
  f.add(P, 1).add(count, 1).br('digit');
  f.end().end();
}

/**
 * VAL = MANT / 10^NF rounded correctly, for a mantissa of 2^53 or more (17 to 19 digits: shortest
 * round-trip output writes 17 for a third of all doubles), by decimal-digits-to-double.ts's method
 * and with its arithmetic, step for step, so the double (or the refusal) is the one it gives: the
 * mantissa as an exact sum MH + ML, an approximate quotient corrected by the exact remainder, kept
 * only when every value near the corrected sum rounds the same way. Refused: an exception.
 */
function wideQuotient(f: FunctionBody): void {
  const at = (table: number): FunctionBody => f.get(NF).i32(3).op(I32_SHL).loadF64(table);
  f.get(VAL).set(MH);
  f.get(MANT).get(MH).op(I64_TRUNC_F64_U, I64_SUB, F64_CONVERT_I64_S).set(ML);
  f.get(MH);
  at(INV_AT).op(F64_MUL).set(Q);
  f.f64(134217729).get(Q).op(F64_MUL).tee(T).get(T).get(Q).op(F64_SUB, F64_SUB).set(QH);
  f.get(Q).get(QH).op(F64_SUB).set(QL);
  f.get(Q);
  at(POW_AT).op(F64_MUL).set(PH);
  // pl = qh·hi - ph + qh·lo + ql·hi + ql·lo, left to right
  f.get(QH);
  at(HI_AT).op(F64_MUL).get(PH).op(F64_SUB).get(QH);
  at(LO_AT).op(F64_MUL, F64_ADD).get(QL);
  at(HI_AT).op(F64_MUL, F64_ADD).get(QL);
  at(LO_AT).op(F64_MUL, F64_ADD).set(T);
  // c = (mh - ph - pl + ml) · 1/10^NF; r = q + c
  f.get(MH).get(PH).op(F64_SUB).get(T).op(F64_SUB).get(ML).op(F64_ADD);
  at(INV_AT).op(F64_MUL).set(CC);
  f.get(Q).get(CC).op(F64_ADD).set(VAL);
  f.get(VAL).op(F64_ABS).f64(2.6469779601696886e-23).op(F64_MUL).set(T);
  f.get(Q).get(CC).get(T).op(F64_ADD, F64_ADD).get(VAL).op(F64_NE).brIf('exc');
  f.get(Q).get(CC).get(T).op(F64_SUB, F64_ADD).get(VAL).op(F64_NE).brIf('exc');
}

function kernelBody(): number[] {
  const f = new FunctionBody();
  f.i32(0).set(NEXC).i32(0).set(R).get(COL).set(SLOT);
  f.block('done').loop('row');
  f.get(R).get(ROWS).op(I32_GE_U).brIf('done');
  f.block('next').block('exc');
  // A quoted field, or an empty one, is the caller's.
  f.get(SLOT).op(0x2d, 0, ...uleb(FLAGS_AT)).brIf('exc');
  f.get(SLOT).i32(2).op(I32_SHL).loadI32(STARTS_AT).get(BIAS).op(I32_SUB).i32(IN_AT).op(I32_ADD).set(P);
  f.get(SLOT).i32(2).op(I32_SHL).loadI32(ENDS_AT).get(BIAS).op(I32_SUB).i32(IN_AT).op(I32_ADD).set(E);
  f.get(P).get(E).op(I32_GE_U).brIf('exc');
  f.i32(0).set(NEG).i64(0n).set(MANT).i32(0).set(ND).i32(0).set(NF);
  f.byte(P).set(C);
  f.get(KIND).if();
  {
    // An integer: [+-]digits, 1 … KIND digits.
    f.get(C).i32(45).op(I32_EQ).get(C).i32(43).op(I32_EQ).op(0x72 /* i32.or */).if();
    f.get(C).i32(45).op(I32_EQ).set(NEG).add(P, 1);
    f.end();
    f.get(E).get(P).op(I32_SUB).tee(ND).op(I32_EQZ).brIf('exc');
    f.get(ND).get(KIND).op(I32_GT_U).brIf('exc');
    f.i32(0).set(ND);
    digits(f, ND);
    f.get(P).get(E).op(I32_NE).brIf('exc');
    f.get(MANT).op(F64_CONVERT_I64_U).set(VAL);
    // 0 - v, not -v: an integer column has no negative zero.
    f.get(NEG).if().f64(0).get(VAL).op(F64_SUB).set(VAL).end();
  }
  f.else();
  {
    // A decimal: -?digits(.digits)?, at most 24 bytes after the sign, not a lone point.
    f.get(C).i32(45).op(I32_EQ).if().i32(1).set(NEG).add(P, 1).end();
    f.get(E).get(P).op(I32_SUB).tee(C).op(I32_EQZ).brIf('exc');
    f.get(C).i32(24).op(I32_GT_U).brIf('exc');
    digits(f, ND);
    f.get(P).get(E).op(I32_NE).if();
    {
      f.byte(P).i32(46).op(I32_NE).brIf('exc');
      f.get(E).get(P).op(I32_SUB).i32(1).op(I32_EQ).get(ND).op(I32_EQZ).op(0x71 /* i32.and */).brIf('exc');
      f.add(P, 1);
      digits(f, NF);
      f.get(P).get(E).op(I32_NE).brIf('exc');
    }
    f.end();
    // Up to 19 digits, the mantissa is exact in 64 bits; 10^NF is an exact double up to 10^22.
    f.get(ND).get(NF).op(I32_ADD).i32(19).op(I32_GT_U).brIf('exc');
    f.get(NF).i32(22).op(I32_GT_U).brIf('exc');
    f.get(MANT).op(F64_CONVERT_I64_U).set(VAL);
    f.get(MANT).i64(2n ** 53n).op(I64_GE_U).if();
    f.get(NF).if();
    wideQuotient(f);
    f.end();
    f.else();
    // Mantissa and power of ten both exact: one correctly rounded division (Clinger's fast path).
    f.get(NF).if();
    f.get(VAL).get(NF).i32(3).op(I32_SHL).loadF64(POW_AT).op(F64_DIV).set(VAL);
    f.end();
    f.end();
    f.get(NEG).if().get(VAL).op(F64_NEG).set(VAL).end();
  }
  f.end();
  f.get(R).i32(3).op(I32_SHL).get(VAL).storeF64(VALUES_AT);
  f.br('next');
  f.end(); // exc
  f.get(NEXC).i32(2).op(I32_SHL).get(R).storeI32(EXC_AT);
  f.add(NEXC, 1);
  f.end(); // next
  f.add(R, 1).get(SLOT).get(WIDTH).op(I32_ADD).set(SLOT).br('row');
  f.end().end();
  f.get(NEXC);
  f.op(0x0b);
  const locals = [3, 9, I32, 2, I64, 9, F64];
  const fn = [...locals, ...f.code];
  return [...uleb(fn.length), ...fn];
}

/** The field ranges and bytes of a scanned batch (the part of CsvScanner the kernel reads). */
export interface KernelBatch {
  readonly buf: Uint8Array;
  readonly scannedFrom: number;
  readonly scannedTo: number;
  readonly width: number;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly flags: Uint8Array;
}

/**
 * The kernel and views of its memory. One per process: load() and the run() calls after it happen
 * with no await between them (see csv-columns.ts), so batches of different scans never mix.
 */
export class CsvNumberKernel {
  /** run()'s values, one per row (exception rows hold whatever was there). */
  readonly values: Float64Array;
  /** run()'s exception rows, in increasing order. */
  readonly exceptions: Int32Array;
  private readonly input: Uint8Array;
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  private readonly flags: Uint8Array;
  private bias = 0;
  private width = 0;

  constructor(
    private readonly kernel: (col: number, width: number, rows: number, bias: number, kind: number) => number,
    buf: ArrayBuffer,
  ) {
    const pow = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));
    const hi = pow.map((p) => {
      const t = 134217729 * p;
      return t - (t - p);
    });
    new Float64Array(buf, POW_AT, 23).set(pow);
    new Float64Array(buf, INV_AT, 23).set(pow.map((p) => 1 / p));
    new Float64Array(buf, HI_AT, 23).set(hi);
    new Float64Array(buf, LO_AT, 23).set(pow.map((p, i) => p - hi[i]!));
    this.values = new Float64Array(buf, VALUES_AT, BATCH_SIZE);
    this.exceptions = new Int32Array(buf, EXC_AT, BATCH_SIZE);
    this.starts = new Int32Array(buf, STARTS_AT, KERNEL_SLOTS);
    this.ends = new Int32Array(buf, ENDS_AT, KERNEL_SLOTS);
    this.flags = new Uint8Array(buf, FLAGS_AT, KERNEL_SLOTS);
    this.input = new Uint8Array(buf, IN_AT, KERNEL_BYTES);
  }

  /** Copies the batch's field ranges and bytes in; false when it is too large (convert it in JavaScript). */
  load(b: KernelBatch, rows: number): boolean {
    const slots = rows * b.width;
    const from = b.scannedFrom;
    if (rows > BATCH_SIZE || slots > KERNEL_SLOTS || b.scannedTo - from > KERNEL_BYTES) return false;
    this.input.set(b.buf.subarray(from, b.scannedTo));
    this.starts.set(b.starts.subarray(0, slots));
    this.ends.set(b.ends.subarray(0, slots));
    this.flags.set(b.flags.subarray(0, slots));
    this.bias = from;
    this.width = b.width;
    return true;
  }

  /**
   * Converts field `col` of the loaded batch's rows: values[r] for every row not listed; returns the
   * number of exceptions. `maxDigits` 0: a float8 column; else an integer column with at most that
   * many digits.
   */
  run(col: number, rows: number, maxDigits: number): number {
    return this.kernel(col, this.width, rows, this.bias, maxDigits);
  }
}

let shared: CsvNumberKernel | null | undefined;

/** The kernel, instantiated once; null where WebAssembly is not available. */
export function csvNumberKernel(): CsvNumberKernel | null {
  if (shared !== undefined) return shared;
  try {
    if (wasm === undefined) shared = null;
    else {
      const memory = new wasm.Memory({ initial: PAGES, maximum: PAGES });
      const inst = new wasm.Instance(new wasm.Module(kernelModule(5, PAGES, kernelBody())), { env: { mem: memory } });
      shared = new CsvNumberKernel(inst.exports.run as (col: number, width: number, rows: number, bias: number, kind: number) => number, memory.buffer);
    }
  } catch {
    shared = null;
  }
  return shared;
}

/** Memory the kernel holds (for memory_limit accounting). */
export const NUMBER_KERNEL_BYTES = PAGES * 65536;

/** Whether the kernel reads columns of this type (int2, int4, int8, float8). */
export function numberKernelType(t: { readonly name: string }): boolean {
  return t.name === 'int2' || t.name === 'int4' || t.name === 'int8' || t.name === 'float8';
}
