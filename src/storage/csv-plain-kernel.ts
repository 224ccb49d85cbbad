/**
 * A WebAssembly kernel that tokenizes CSV records without carriage returns (or escapes other than
 * the doubled quote), every record ending in '\n' with exactly the expected number of fields. It
 * finds delimiters and line ends sixteen bytes at a time (SIMD compares) and writes each field's
 * byte range, as CsvScanner's own loop would; machine-written CSV is mostly such records, and there
 * that loop (a step per delimiter through special-byte-index.ts's positions) was most of the
 * scanner's time. Quoted fields are read here too: the bytes inside quotes are found from the
 * parity of the quotes before them, so their delimiters and line ends are data; a field that is one
 * quoted run gives its content, others are flagged for the caller to unquote, as CsvScanner does.
 *
 * It stops before the first record it does not take, or that the window does not hold to its
 * '\n', and returns the records read; CsvScanner reads the rest its own way. Assembled here from
 * its opcodes, as special-byte-index.ts; absent without WebAssembly.
 */
import { BATCH_SIZE } from '../common/column.js';
import { FunctionBody, I32, V128, kernelModule, uleb, wasm, I32_EQZ, I32_NE, I32_LT_U, I32_GE_U, I32_ADD, I32_SUB, I32_AND, I32_SHL, I32_SHR_U, I32_CTZ, I32_POPCNT, I32_EQ, I32_XOR, I32_OR, SIMD, V128_LOAD, I8X16_SPLAT, I8X16_EQ, V128_OR, I8X16_BITMASK } from './wasm-bytecode.js';

/** Bytes one call reads, field slots (records × fields) and records it may write. */
export const PLAIN_WINDOW = 1 << 16;
export const PLAIN_SLOTS = 1 << 16;
export const PLAIN_ROWS = BATCH_SIZE;

// Memory layout: the window (and 16 bytes of slack for the last load), field starts, ends and flags,
// record ends, and per record the newlines inside quotes up to its end.
const IN_AT = 0;
const STARTS_AT = PLAIN_WINDOW + 16;
const ENDS_AT = STARTS_AT + 4 * PLAIN_SLOTS;
const ROW_ENDS_AT = ENDS_AT + 4 * PLAIN_SLOTS;
const ROW_QNL_AT = ROW_ENDS_AT + 4 * PLAIN_ROWS;
const FLAGS_AT = ROW_QNL_AT + 4 * PLAIN_ROWS;
const PAGES = Math.ceil((FLAGS_AT + PLAIN_SLOTS) / 65536);

/** Field flags the kernel writes: CsvScanner's F_QUOTED and F_COMPLEX (csv-scanner.ts). */
const QUOTED = 1;
const COMPLEX = 2;

// Parameters: run(end, add, delim, quote, escape, width, maxRows) -> records. The window is
// [IN_AT, end); `add` turns a window address into the caller's buffer position.
const END = 0;
const ADD = 1;
const DELIM = 2;
const QUOTE = 3;
const ESC = 4;
const WIDTH = 5;
const MAXROWS = 6;
// Locals.
const P = 7; // the block's address
const M = 8; // delimiters and line ends in the block, as bits
const NLM = 9; // line ends
const S = 10; // quotes, escapes and carriage returns
const B = 11; // the bit at hand
const POS = 12;
const F = 13; // the field at hand
const FS = 14; // where it starts
const ROWS = 15;
const SLOT = 16; // ROWS × WIDTH
const STOP = 17;
const VD = 18; // v128 locals from here
const VNL = 19;
const VQ = 20;
const VE = 21;
const VCR = 22;
const BLK = 23;
// i32 locals after the v128 ones.
const QM = 24; // quotes in the block (RFC quoting: escape = quote), as bits
const INQ = 25; // bytes inside quotes, as bits
const CARRY = 26; // 0xffff when the block starts inside quotes
const QB = 27; // the block's quotes not yet counted to a field
const QC = 28; // quotes in the field at hand so far
const NLQ = 29; // line ends inside quotes
const QNL = 30; // line ends inside quotes before the block
const T = 31;
const QMODE = 32; // 1: quotes are read here (escape = quote); 0: a quote stops the kernel
const BIT = 33; // the bits below the one at hand

/**
 * `quotes`: the kernel that reads quoted fields (escape = quote); without, the first quote, escape
 * or carriage return stops it and it writes no flags or quoted line ends (plain CSV's, a fifth
 * cheaper than the quote bookkeeping on every block).
 */
function kernelBody(quotes: boolean): number[] {
  const f = new FunctionBody();
  const eq = (needle: number): FunctionBody => f.get(BLK).get(needle).op(SIMD, I8X16_EQ);
  const splat = (value: () => void, to: number): void => {
    value();
    f.op(SIMD, I8X16_SPLAT).set(to);
  };
  /**
   * The field [FS, POS) into slot SLOT + F: with no quotes as it is; one quoted run and nothing
   * else ("abc"), its content, quoted; other quoting (doubled quotes, text around a run) whole,
   * quoted and complex (the caller unquotes it), as CsvScanner.setField.
   */
  const field = (quoted: boolean): void => {
    const plainField = (): void => {
      f.get(T).i32(2).op(I32_SHL).get(FS).get(ADD).op(I32_ADD).storeI32(STARTS_AT);
      f.get(T).i32(2).op(I32_SHL).get(POS).get(ADD).op(I32_ADD).storeI32(ENDS_AT);
      if (quotes) f.get(T).i32(0).op(0x3a /* i32.store8 */, 0, ...uleb(FLAGS_AT));
    };
    f.get(SLOT).get(F).op(I32_ADD).set(T);
    if (!quoted) {
      plainField();
      return;
    }
    // This block's quotes up to the boundary count to the field.
    f.i32(1).get(B).op(I32_SHL).i32(1).op(I32_SUB).set(BIT);
    f.get(QC).get(QB).get(BIT).op(I32_AND).op(I32_POPCNT, I32_ADD).set(QC);
    f.get(QB).get(BIT).i32(-1).op(I32_XOR).op(I32_AND).set(QB);
    f.get(QC).op(I32_EQZ).if();
    plainField();
    f.else();
    f.get(QC).i32(2).op(I32_EQ).get(FS).op(0x2d, 0, 0).get(QUOTE).op(I32_EQ).op(I32_AND).get(POS).i32(1).op(I32_SUB).op(0x2d, 0, 0).get(QUOTE).op(I32_EQ).op(I32_AND).if();
    {
      f.get(T).i32(2).op(I32_SHL).get(FS).i32(1).op(I32_ADD).get(ADD).op(I32_ADD).storeI32(STARTS_AT);
      f.get(T).i32(2).op(I32_SHL).get(POS).i32(1).op(I32_SUB).get(ADD).op(I32_ADD).storeI32(ENDS_AT);
      f.get(T).i32(QUOTED).op(0x3a, 0, ...uleb(FLAGS_AT));
    }
    f.else();
    {
      f.get(T).i32(2).op(I32_SHL).get(FS).get(ADD).op(I32_ADD).storeI32(STARTS_AT);
      f.get(T).i32(2).op(I32_SHL).get(POS).get(ADD).op(I32_ADD).storeI32(ENDS_AT);
      f.get(T).i32(QUOTED | COMPLEX).op(0x3a, 0, ...uleb(FLAGS_AT));
    }
    f.end();
    f.end();
    f.i32(0).set(QC);
  };
  splat(() => f.get(DELIM), VD);
  splat(() => f.i32(10), VNL);
  splat(() => f.get(QUOTE), VQ);
  splat(() => f.get(ESC), VE);
  splat(() => f.i32(13), VCR);
  f.i32(IN_AT).tee(P).set(FS);
  f.get(ESC).get(QUOTE).op(I32_EQ).set(QMODE);
  f.block('done').loop('block');
  f.get(P).get(END).op(I32_GE_U).brIf('done');
  f.get(P).op(SIMD, V128_LOAD, 0, 0).set(BLK);
  eq(VD);
  eq(VNL).op(SIMD, V128_OR, SIMD, I8X16_BITMASK).set(M);
  eq(VNL).op(SIMD, I8X16_BITMASK).set(NLM);
  eq(VQ);
  eq(VE).op(SIMD, V128_OR);
  eq(VCR).op(SIMD, V128_OR, SIMD, I8X16_BITMASK).set(S);
  // The last block reaches past the window: only its bytes count, and it is the last.
  f.get(END).get(P).op(I32_SUB).tee(B).i32(16).op(I32_LT_U).if();
  f.i32(1).get(B).op(I32_SHL).i32(1).op(I32_SUB).tee(BIT).get(M).op(I32_AND).set(M);
  f.get(BIT).get(S).op(I32_AND).set(S);
  f.i32(1).set(STOP);
  f.end();
  // The block's boundaries; without quotes in the block or in the field going on, a loop without
  // the quote bookkeeping (which cost plain CSV a third more time).
  const bits = (quoted: boolean): void => {
    f.block('bits').loop('bit');
    f.get(M).op(I32_EQZ).brIf('bits');
    f.get(M).op(I32_CTZ).tee(B).get(P).op(I32_ADD).set(POS);
    f.get(NLM).get(B).op(I32_SHR_U).i32(1).op(I32_AND).if();
    {
      // A line end: the record must have all its fields, and an empty line is the caller's.
      f.get(F).get(WIDTH).i32(1).op(I32_SUB).op(I32_NE).brIf('done');
      f.get(POS).get(FS).op(0x46 /* i32.eq */).get(F).op(I32_EQZ).op(I32_AND).brIf('done');
      field(quoted);
      f.get(ROWS).i32(2).op(I32_SHL).get(POS).get(ADD).op(I32_ADD).storeI32(ROW_ENDS_AT);
      // Line ends inside quotes up to this record's end (the caller numbers the lines from them).
      if (quotes) {
        f.get(ROWS).i32(2).op(I32_SHL).get(QNL);
        if (quoted) f.get(NLQ).i32(1).get(B).op(I32_SHL).i32(1).op(I32_SUB, I32_AND, I32_POPCNT, I32_ADD);
        f.storeI32(ROW_QNL_AT);
      }
      f.add(ROWS, 1);
      f.get(SLOT).get(WIDTH).op(I32_ADD).set(SLOT);
      f.i32(0).set(F);
      f.get(POS).i32(1).op(I32_ADD).set(FS);
      f.get(ROWS).get(MAXROWS).op(I32_GE_U).brIf('done');
    }
    f.else();
    {
      // A delimiter: one field more than the record should have is the caller's.
      f.get(F).i32(1).op(I32_ADD).get(WIDTH).op(I32_GE_U).brIf('done');
      field(quoted);
      f.add(F, 1);
      f.get(POS).i32(1).op(I32_ADD).set(FS);
    }
    f.end();
    f.get(M).get(M).i32(1).op(I32_SUB).op(I32_AND).set(M);
    f.br('bit');
    f.end().end();
  };
  if (!quotes) {
    // A quote, escape or carriage return: the bytes before it, then stop (its record is the caller's).
    f.get(S).if();
    f.get(S).i32(0).get(S).op(I32_SUB).op(I32_AND).i32(1).op(I32_SUB).get(M).op(I32_AND).set(M);
    f.i32(1).set(STOP);
    f.end();
    bits(false);
  } else {
  // Quotes are read here when there is no separate escape byte (else a quote or escape stops the
  // kernel, the caller reads them). Blocks with no quote, escape or CR, outside quotes and quoted
  // fields, skip this.
  f.get(S).get(CARRY).op(I32_OR).get(QC).op(I32_OR).if();
  {
    f.i32(0).set(QM);
    f.get(QMODE).if();
    eq(VQ).op(SIMD, I8X16_BITMASK).set(QM);
    eq(VCR).op(SIMD, I8X16_BITMASK).set(S);
    f.get(STOP).if();
    f.get(QM).get(BIT).op(I32_AND).set(QM);
    f.get(S).get(BIT).op(I32_AND).set(S);
    f.end();
    f.end();
    // Bytes inside quotes: from an opening quote up to its closing one (a doubled quote closes and
    // opens again), the parity of the quotes up to each byte, carried from block to block. Their
    // delimiters and line ends are data.
    f.get(QM).get(CARRY).op(I32_OR).if();
    f.get(QM).tee(INQ).get(INQ).i32(1).op(I32_SHL, I32_XOR).set(INQ);
    f.get(INQ).get(INQ).i32(2).op(I32_SHL, I32_XOR).set(INQ);
    f.get(INQ).get(INQ).i32(4).op(I32_SHL, I32_XOR).set(INQ);
    f.get(INQ).get(INQ).i32(8).op(I32_SHL, I32_XOR).get(CARRY).op(I32_XOR).i32(0xffff).op(I32_AND).set(INQ);
    f.i32(0).get(INQ).i32(15).op(I32_SHR_U, I32_SUB).i32(0xffff).op(I32_AND).set(CARRY);
    f.get(NLM).get(INQ).op(I32_AND).set(NLQ);
    f.get(INQ).i32(-1).op(I32_XOR).tee(T).get(M).op(I32_AND).set(M);
    f.get(T).get(NLM).op(I32_AND).set(NLM);
    f.end();
    f.get(QM).set(QB);
    // A quote, escape or carriage return the kernel does not read: the bytes before it, then stop
    // (its record is the caller's).
    f.get(S).if();
    f.get(S).i32(0).get(S).op(I32_SUB).op(I32_AND).i32(1).op(I32_SUB).get(M).op(I32_AND).set(M);
    f.i32(1).set(STOP);
    f.end();
    bits(true);
    f.get(STOP).brIf('done');
    // The block's quotes after its last boundary belong to the field going on; its quoted line ends are counted.
    f.get(QC).get(QB).op(I32_POPCNT, I32_ADD).set(QC);
    f.get(QNL).get(NLQ).op(I32_POPCNT, I32_ADD).set(QNL);
    f.i32(0).set(QB).i32(0).set(NLQ);
  }
  f.else();
  bits(false);
  f.end();
  }
  f.get(STOP).brIf('done');
  f.add(P, 16).br('block');
  f.end().end();
  f.get(ROWS);
  f.op(0x0b);
  const locals = [3, 11, I32, 6, V128, 10, I32];
  const fn = [...locals, ...f.code];
  return [...uleb(fn.length), ...fn];
}

type Run = (end: number, add: number, delim: number, quote: number, escape: number, width: number, maxRows: number) => number;

/** The kernel and views of its memory. One per process: a call and the reading of its output run without an await between. */
export class CsvPlainKernel {
  /** Field ranges of the records read (record-major, `width` per record), as positions in the caller's buffer. */
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  /** Where each record read ends (its '\n'). */
  readonly rowEnds: Int32Array;
  /** Per record read, the line ends inside quoted fields up to its end (from the first record read). */
  readonly rowQuotedLines: Int32Array;
  /** Per field: 0, or F_QUOTED (starts/ends hold the content), or F_QUOTED | F_COMPLEX (the caller unquotes). */
  readonly flags: Uint8Array;
  private readonly input: Uint8Array;

  constructor(
    private readonly kernel: Run,
    private readonly quotedKernel: Run,
    buf: ArrayBuffer,
  ) {
    this.input = new Uint8Array(buf, IN_AT, PLAIN_WINDOW + 16);
    this.starts = new Int32Array(buf, STARTS_AT, PLAIN_SLOTS);
    this.ends = new Int32Array(buf, ENDS_AT, PLAIN_SLOTS);
    this.rowEnds = new Int32Array(buf, ROW_ENDS_AT, PLAIN_ROWS);
    this.rowQuotedLines = new Int32Array(buf, ROW_QNL_AT, PLAIN_ROWS);
    this.flags = new Uint8Array(buf, FLAGS_AT, PLAIN_SLOTS);
  }

  /**
   * Tokenizes the records that start at buf[from] (within buf[from, to)), at most maxRows; returns
   * how many. `escape` -1 when there is none besides the doubled quote. `quoted`: through the kernel
   * that reads quoted fields (only for a quote byte and no other escape; then it also writes flags
   * and rowQuotedLines), else the first quote or escape stops it.
   */
  run(buf: Uint8Array, from: number, to: number, delim: number, quote: number, escape: number, width: number, maxRows: number, quoted = false): number {
    const len = Math.min(to - from, PLAIN_WINDOW);
    const rows = Math.min(maxRows, PLAIN_ROWS, Math.floor(PLAIN_SLOTS / width));
    if (len <= 0 || rows <= 0) return 0;
    if (quoted && !(quote !== -1 && (escape === -1 || escape === quote))) throw new Error('quoted fields need a quote byte and no other escape');
    this.input.set(buf.subarray(from, from + len), 0);
    const esc = escape === -1 ? quote : escape;
    return (quoted ? this.quotedKernel : this.kernel)(IN_AT + len, from - IN_AT, delim, quote, esc, width, rows);
  }
}

let shared: CsvPlainKernel | null | undefined;

/** The kernel, instantiated once; null where WebAssembly (or its SIMD) is not available. */
export function csvPlainKernel(): CsvPlainKernel | null {
  if (shared !== undefined) return shared;
  try {
    if (wasm === undefined) shared = null;
    else {
      const memory = new wasm.Memory({ initial: PAGES, maximum: PAGES });
      const inst = new wasm.Instance(new wasm.Module(kernelModule(7, PAGES, kernelBody(false), [['quoted', kernelBody(true)]])), { env: { mem: memory } });
      shared = new CsvPlainKernel(inst.exports.run as Run, inst.exports.quoted as Run, memory.buffer);
    }
  } catch {
    shared = null;
  }
  return shared;
}

/** Memory the kernel holds (for memory_limit accounting). */
export const PLAIN_KERNEL_BYTES = PAGES * 65536;
