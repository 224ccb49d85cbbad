/**
 * A WebAssembly kernel that tokenizes plain CSV records: no quote, escape or carriage return, every
 * record ending in '\n' with exactly the expected number of fields. It finds delimiters and line ends
 * sixteen bytes at a time (SIMD compares) and writes each field's byte range, as CsvScanner's own
 * loop would; machine-written CSV is mostly such records, and there that loop (a step per delimiter
 * through special-byte-index.ts's positions) was most of the scanner's time.
 *
 * It stops before the first record that is not plain, or that the window does not hold to its
 * '\n', and returns the records read; CsvScanner reads the rest its own way. Assembled here from
 * its opcodes, as special-byte-index.ts; absent without WebAssembly.
 */
import { BATCH_SIZE } from '../common/column.js';
import { FunctionBody, I32, V128, kernelModule, uleb, wasm } from './wasm-bytecode.js';

/** Bytes one call reads, field slots (records × fields) and records it may write. */
export const PLAIN_WINDOW = 1 << 16;
export const PLAIN_SLOTS = 1 << 16;
export const PLAIN_ROWS = BATCH_SIZE;

// Memory layout: the window (and 16 bytes of slack for the last load), field starts and ends, record ends.
const IN_AT = 0;
const STARTS_AT = PLAIN_WINDOW + 16;
const ENDS_AT = STARTS_AT + 4 * PLAIN_SLOTS;
const ROW_ENDS_AT = ENDS_AT + 4 * PLAIN_SLOTS;
const PAGES = Math.ceil((ROW_ENDS_AT + 4 * PLAIN_ROWS) / 65536);

const I32_EQZ = 0x45;
const I32_NE = 0x47;
const I32_LT_U = 0x49;
const I32_GE_U = 0x4f;
const I32_ADD = 0x6a;
const I32_SUB = 0x6b;
const I32_AND = 0x71;
const I32_SHL = 0x74;
const I32_SHR_U = 0x76;
const I32_CTZ = 0x68;
const SIMD = 0xfd;
const V128_LOAD = 0x00;
const I8X16_SPLAT = 0x0f;
const I8X16_EQ = 0x23;
const V128_OR = 0x50;
const I8X16_BITMASK = 0x64;

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

function kernelBody(): number[] {
  const f = new FunctionBody();
  const eq = (needle: number): FunctionBody => f.get(BLK).get(needle).op(SIMD, I8X16_EQ);
  const splat = (value: () => void, to: number): void => {
    value();
    f.op(SIMD, I8X16_SPLAT).set(to);
  };
  splat(() => f.get(DELIM), VD);
  splat(() => f.i32(10), VNL);
  splat(() => f.get(QUOTE), VQ);
  splat(() => f.get(ESC), VE);
  splat(() => f.i32(13), VCR);
  f.i32(IN_AT).tee(P).set(FS);
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
  f.i32(1).get(B).op(I32_SHL).i32(1).op(I32_SUB).tee(B).get(M).op(I32_AND).set(M);
  f.get(B).get(S).op(I32_AND).set(S);
  f.i32(1).set(STOP);
  f.end();
  // A quote, escape or carriage return: the bytes before it, then stop (its record is the caller's).
  f.get(S).if();
  f.get(S).i32(0).get(S).op(I32_SUB).op(I32_AND).i32(1).op(I32_SUB).get(M).op(I32_AND).set(M);
  f.i32(1).set(STOP);
  f.end();
  f.block('bits').loop('bit');
  f.get(M).op(I32_EQZ).brIf('bits');
  f.get(M).op(I32_CTZ).tee(B).get(P).op(I32_ADD).set(POS);
  f.get(NLM).get(B).op(I32_SHR_U).i32(1).op(I32_AND).if();
  {
    // A line end: the record must have all its fields, and an empty line is the caller's.
    f.get(F).get(WIDTH).i32(1).op(I32_SUB).op(I32_NE).brIf('done');
    f.get(POS).get(FS).op(0x46 /* i32.eq */).get(F).op(I32_EQZ).op(I32_AND).brIf('done');
    f.get(SLOT).get(F).op(I32_ADD).i32(2).op(I32_SHL).tee(B).get(FS).get(ADD).op(I32_ADD).storeI32(STARTS_AT);
    f.get(B).get(POS).get(ADD).op(I32_ADD).storeI32(ENDS_AT);
    f.get(ROWS).i32(2).op(I32_SHL).get(POS).get(ADD).op(I32_ADD).storeI32(ROW_ENDS_AT);
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
    f.get(SLOT).get(F).op(I32_ADD).i32(2).op(I32_SHL).tee(B).get(FS).get(ADD).op(I32_ADD).storeI32(STARTS_AT);
    f.get(B).get(POS).get(ADD).op(I32_ADD).storeI32(ENDS_AT);
    f.add(F, 1);
    f.get(POS).i32(1).op(I32_ADD).set(FS);
  }
  f.end();
  f.get(M).get(M).i32(1).op(I32_SUB).op(I32_AND).set(M);
  f.br('bit');
  f.end().end();
  f.get(STOP).brIf('done');
  f.add(P, 16).br('block');
  f.end().end();
  f.get(ROWS);
  f.op(0x0b);
  const locals = [2, 11, I32, 6, V128];
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
  private readonly input: Uint8Array;

  constructor(
    private readonly kernel: Run,
    buf: ArrayBuffer,
  ) {
    this.input = new Uint8Array(buf, IN_AT, PLAIN_WINDOW + 16);
    this.starts = new Int32Array(buf, STARTS_AT, PLAIN_SLOTS);
    this.ends = new Int32Array(buf, ENDS_AT, PLAIN_SLOTS);
    this.rowEnds = new Int32Array(buf, ROW_ENDS_AT, PLAIN_ROWS);
  }

  /**
   * Tokenizes the plain records that start at buf[from] (within buf[from, to)), at most maxRows;
   * returns how many. `escape` equal to `quote` when there is no separate escape.
   */
  run(buf: Uint8Array, from: number, to: number, delim: number, quote: number, escape: number, width: number, maxRows: number): number {
    const len = Math.min(to - from, PLAIN_WINDOW);
    const rows = Math.min(maxRows, PLAIN_ROWS, Math.floor(PLAIN_SLOTS / width));
    if (len <= 0 || rows <= 0) return 0;
    this.input.set(buf.subarray(from, from + len), 0);
    return this.kernel(IN_AT + len, from - IN_AT, delim, quote, escape, width, rows);
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
      const inst = new wasm.Instance(new wasm.Module(kernelModule(7, PAGES, kernelBody())), { env: { mem: memory } });
      shared = new CsvPlainKernel(inst.exports.run as Run, memory.buffer);
    }
  } catch {
    shared = null;
  }
  return shared;
}

/** Memory the kernel holds (for memory_limit accounting). */
export const PLAIN_KERNEL_BYTES = PAGES * 65536;
