/**
 * A Snappy block decoder as a WebAssembly kernel whose output stays in its own memory: the caller reads
 * the decoded page in place (a view valid until the next call), so a page costs no fresh array. The
 * packaged WASM decoder read_parquet used before (hysnappy) sliced every page out into a new array, and
 * on this kind of machine memory the process has just been given back is faulted in again page by page:
 * for a query decoding a few 2 MB text pages, those faults cost several times the decoding itself.
 *
 * Snappy is a sequence of literals and back-references into the output already written. Short
 * elements (most of them, on text and numbers) are copied sixteen bytes at a time with no length
 * loop, writing up to 15 bytes past their end into output not yet decoded (or the slack after it),
 * which the next elements overwrite; long literals go through memory.copy. Every element is checked:
 * a literal or copy past the input's or the output's end, a reference before the output's start (or
 * at offset 0), and a block ending short of its declared length all fail. Assembled here from its
 * opcodes, as the CSV kernels are; absent without WebAssembly.
 */
import { FunctionBody, I32, kernelModule, uleb, wasm, type WasmApi, I32_EQZ, I32_NE, I32_LT_U, I32_GT_U, I32_GE_U, I32_ADD, I32_SUB, I32_AND, I32_OR, I32_SHL, I32_SHR_U, I32_LOAD8_U, I32_LOAD16_U, I32_LOAD, I32_STORE8, I64_LOAD, I64_STORE, SELECT, SIMD, V128_LOAD, V128_STORE } from './wasm-bytecode.js';

const MEMORY_COPY = [0xfc, ...uleb(10), 0, 0];

// run(ip, inEnd, out, outEnd) -> 0 decoded, 1 corrupt. The elements are [ip, inEnd); the output [out, outEnd).
const IP = 0;
const IN_END = 1;
const OUT = 2;
const OUT_END = 3;
// Locals.
const OP = 4;
const TAG = 5;
const LEN = 6;
const OFF = 7;
const SRC = 8;
const K = 9;
const X = 10;

/** Bytes past the input and past the output that a sixteen-byte copy may read or write. */
const SLACK = 16;

function kernelBody(): number[] {
  const f = new FunctionBody();
  /** fail unless local `a` - local `b` (unsigned, b <= a) is at least `need` (a local). */
  const room = (a: number, b: number, need: number): void => {
    f.get(need).get(a).get(b).op(I32_SUB).op(I32_GT_U).brIf('fail');
  };
  f.get(OUT).set(OP);
  f.block('fail');
  f.block('done');
  f.loop('element');
  f.get(IP).get(IN_END).op(I32_GE_U).brIf('done');
  f.get(IP).op(I32_LOAD8_U, 0, 0).set(TAG);
  f.add(IP, 1);
  f.get(TAG).i32(3).op(I32_AND).op(I32_EQZ).if();
  {
    // A literal: its length - 1 in the tag's upper six bits, or (60 to 63) in the 1 to 4 bytes after it.
    f.get(TAG).i32(2).op(I32_SHR_U).i32(1).op(I32_ADD).set(LEN);
    f.get(LEN).i32(60).op(I32_GT_U).if();
    {
      f.get(LEN).i32(60).op(I32_SUB).set(K);
      room(IN_END, IP, K);
      f.get(IP).op(I32_LOAD, 0, 0).set(X);
      // The low K bytes of X (all four when K is 4, where a shift by 32 would shift by 0).
      f.get(X);
      f.get(X).i32(1).get(K).i32(3).op(I32_SHL).op(I32_SHL).i32(1).op(I32_SUB).op(I32_AND);
      f.get(K).i32(4).op(0x46 /* i32.eq */).op(SELECT);
      f.i32(1).op(I32_ADD).tee(LEN).op(I32_EQZ).brIf('fail');
      f.get(IP).get(K).op(I32_ADD).set(IP);
    }
    f.end();
    room(IN_END, IP, LEN);
    room(OUT_END, OP, LEN);
    f.get(LEN).i32(16).op(0x4d /* i32.le_u */).if();
    f.get(OP).get(IP).op(SIMD, V128_LOAD, 0, 0).op(SIMD, V128_STORE, 0, 0);
    f.else();
    f.get(OP).get(IP).get(LEN).op(...MEMORY_COPY);
    f.end();
    f.get(IP).get(LEN).op(I32_ADD).set(IP);
    f.get(OP).get(LEN).op(I32_ADD).set(OP);
    f.br('element');
  }
  f.end();
  // A copy: 4-11 bytes up to 2047 back (one more byte), or 1-64 bytes up to 64 KB / 4 GB back (two / four more bytes).
  f.get(TAG).i32(3).op(I32_AND).i32(1).op(0x46 /* i32.eq */).if();
  {
    f.get(IP).get(IN_END).op(I32_GE_U).brIf('fail');
    f.get(TAG).i32(2).op(I32_SHR_U).i32(7).op(I32_AND).i32(4).op(I32_ADD).set(LEN);
    f.get(TAG).i32(5).op(I32_SHR_U).i32(8).op(I32_SHL).get(IP).op(I32_LOAD8_U, 0, 0).op(I32_OR).set(OFF);
    f.add(IP, 1);
  }
  f.else();
  {
    f.get(TAG).i32(2).op(I32_SHR_U).i32(1).op(I32_ADD).set(LEN);
    f.get(TAG).i32(3).op(I32_AND).i32(2).op(0x46 /* i32.eq */).if();
    f.i32(2).set(K);
    room(IN_END, IP, K);
    f.get(IP).op(I32_LOAD16_U, 1, 0).set(OFF);
    f.else();
    f.i32(4).set(K);
    room(IN_END, IP, K);
    f.get(IP).op(I32_LOAD, 0, 0).set(OFF);
    f.end();
    f.get(IP).get(K).op(I32_ADD).set(IP);
  }
  f.end();
  // offset - 1 < bytes written (offset 0 wraps to the largest number and fails), and room for the copy.
  f.get(OFF).i32(1).op(I32_SUB).get(OP).get(OUT).op(I32_SUB).op(I32_GE_U).brIf('fail');
  room(OUT_END, OP, LEN);
  f.get(OP).get(OFF).op(I32_SUB).set(SRC);
  f.i32(0).set(K);
  /** Copies LEN bytes from SRC to OP `step` bytes a load, each step's source written before it is read. */
  const copyLoop = (label: string, step: number, load: number[], store: number[]): void => {
    f.loop(label);
    f.get(OP).get(K).op(I32_ADD);
    f.get(SRC).get(K).op(I32_ADD).op(...load);
    f.op(...store);
    f.add(K, step);
    f.get(K).get(LEN).op(I32_LT_U).brIf(label);
    f.end();
  };
  // Sixteen bytes a step from 16 back, eight from 8 back; a pattern of 1 to 7 bytes repeated forward byte
  // by byte. A copy of 16 bytes or fewer (every one-offset-byte copy: 4 to 11) takes its one or two steps
  // without the loop: most copies in pages of numbers are that short (the zero upper bytes of the
  // value 8 back), and the loop's counter, test and branch were a fifth of their cost.
  const short = (): void => {
    f.get(LEN).i32(16).op(0x4d /* i32.le_u */).if();
  };
  f.get(OFF).i32(16).op(I32_GE_U).if();
  short();
  f.get(OP).get(SRC).op(SIMD, V128_LOAD, 0, 0).op(SIMD, V128_STORE, 0, 0);
  f.else();
  copyLoop('wide', 16, [SIMD, V128_LOAD, 0, 0], [SIMD, V128_STORE, 0, 0]);
  f.end();
  f.else();
  f.get(OFF).i32(8).op(I32_GE_U).if();
  short();
  // The second step reads bytes the first has just written where the offset is below 16.
  f.get(OP).get(SRC).op(I64_LOAD, 0, 0).op(I64_STORE, 0, 0);
  f.get(OP).i32(8).op(I32_ADD).get(SRC).i32(8).op(I32_ADD).op(I64_LOAD, 0, 0).op(I64_STORE, 0, 0);
  f.else();
  copyLoop('eight', 8, [I64_LOAD, 0, 0], [I64_STORE, 0, 0]);
  f.end();
  f.else();
  copyLoop('byte', 1, [I32_LOAD8_U, 0, 0], [I32_STORE8, 0, 0]);
  f.end();
  f.end();
  f.get(OP).get(LEN).op(I32_ADD).set(OP);
  f.br('element');
  f.end(); // loop
  f.end(); // done
  f.get(OP).get(OUT_END).op(I32_NE).brIf('fail');
  f.i32(0).op(0x0f /* return */);
  f.end(); // fail
  f.i32(1);
  f.op(0x0b);
  const fn = [1, 7, I32, ...f.code];
  return [...uleb(fn.length), ...fn];
}

type Run = (ip: number, inEnd: number, out: number, outEnd: number) => number;

type GrowableMemory = InstanceType<WasmApi['Memory']> & { grow(pages: number): number };

const PAGE = 65536;
/** Pages the memory starts with (a 1 MB page and its input fit) and may grow to (SNAPPY_WASM_MAX-sized pages and their input). */
const INITIAL_PAGES = 40;
const MAX_PAGES = 16 * 40;

export class SnappyKernel {
  constructor(
    private readonly run: Run,
    private readonly memory: GrowableMemory,
  ) {}

  /** Bytes the kernel's memory holds now (for diagnostics and tests). */
  get bytes(): number {
    return this.memory.buffer.byteLength;
  }

  /**
   * The Snappy elements input[from …) decoded into `outputLength` bytes, as a view of the kernel's
   * memory valid until the next call; null when the memory cannot grow to hold the page. Throws
   * 'corrupt' (an Error) when the elements do not decode to exactly that many bytes.
   */
  decode(input: Uint8Array, from: number, outputLength: number): Uint8Array | null {
    const n = input.length - from;
    const out = (n + SLACK + 15) & ~15;
    const need = out + outputLength + SLACK;
    const have = this.memory.buffer.byteLength;
    if (need > have) {
      const pages = Math.ceil((need - have) / PAGE);
      if (have / PAGE + pages > MAX_PAGES) return null;
      try {
        this.memory.grow(pages);
      } catch {
        return null;
      }
    }
    const buf = this.memory.buffer;
    new Uint8Array(buf, 0, n).set(input.subarray(from));
    if (this.run(0, n, out, out + outputLength) !== 0) throw new Error('corrupt');
    return new Uint8Array(buf, out, outputLength);
  }
}

let shared: SnappyKernel | null | undefined;

/** The kernel, instantiated on first use; null where WebAssembly (or its SIMD) is not available. */
export function snappyKernel(): SnappyKernel | null {
  if (shared !== undefined) return shared;
  try {
    if (wasm === undefined) shared = null;
    else {
      const memory = new wasm.Memory({ initial: INITIAL_PAGES, maximum: MAX_PAGES }) as GrowableMemory;
      const inst = new wasm.Instance(new wasm.Module(kernelModule(4, INITIAL_PAGES, kernelBody())), { env: { mem: memory } });
      shared = new SnappyKernel(inst.exports.run as Run, memory);
    }
  } catch {
    shared = null;
  }
  return shared;
}

/** Whether the kernel has been instantiated (for tests: only a page that goes to it does so). */
export function snappyKernelInstantiated(): boolean {
  return shared !== undefined && shared !== null;
}
