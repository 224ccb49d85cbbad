/**
 * Positions of the bytes a CSV tokenizer must look at (delimiter, quote, escape, \n, \r) in a
 * window of a buffer, found 64 bytes at a time by a small WebAssembly SIMD kernel. A tokenizer that
 * walks these positions instead of every byte does a few steps per field, not one per byte: in plain
 * JavaScript the byte loop alone costs about as much as everything else read_csv does for a row.
 *
 * The kernel is assembled here from its opcodes (a few dozen instructions; no toolchain, nothing to
 * build). Where WebAssembly is not available (node --jitless) the same positions come from a scalar
 * loop, which is also the reference the tests hold the kernel to.
 */
import { I32, I64, V128, name, section, uleb, I32_STORE, I32_CONST, I64_CONST, I64_EQZ, I32_LT_U, I32_GE_U, I32_ADD, I32_SUB, I64_CTZ, I64_SUB, I64_AND, I64_OR, I64_SHL, I32_WRAP_I64, I64_EXTEND_I32_U, SIMD, V128_LOAD, I8X16_SPLAT, I8X16_EQ, V128_OR, I8X16_BITMASK } from './wasm-bytecode.js';

/** Bytes indexed per fill(): the input is copied into the kernel's memory a window at a time. */
export const INDEX_WINDOW = 1 << 16;

/** Memory layout of one kernel instance: the window (plus slack for the last 64-byte load), then the positions. */
const IN_AT = 0;
const OUT_AT = INDEX_WINDOW + 64;
/** Every byte of a window may be special: one 4-byte position each. */
const PAGES = Math.ceil((OUT_AT + 4 * INDEX_WINDOW) / 65536);

// ---- the kernel's bytecode --------------------------------------------------------------------

// Opcodes used (WebAssembly core 2.0 and its fixed-width SIMD extension, prefix 0xfd).
const BLOCK = 0x02;
const LOOP = 0x03;
const IF = 0x04;
const END = 0x0b;
const BR = 0x0c;
const BR_IF = 0x0d;
const VOID = 0x40;
const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const LOCAL_TEE = 0x22;

// index(src, end, out, bias, a, b, c) -> end of the positions written
const SRC = 0;
const SRC_END = 1;
const OUT = 2;
const BIAS = 3;
const A = 4;
const B = 5;
const C = 6;
// Locals: the five needles splatted, the 64-bit mask, the block loaded, the bytes left.
const VA = 7;
const VB = 8;
const VC = 9;
const VNL = 10;
const VCR = 11;
const MASK = 12;
const BLOCK16 = 13;
const LEFT = 14;

/** 16 bytes at src + offset against the five needles: a 16-bit mask of the matches, widened to i64. */
function match16(offset: number): number[] {
  const eq = (needle: number): number[] => [LOCAL_GET, BLOCK16, LOCAL_GET, needle, SIMD, I8X16_EQ];
  return [
    LOCAL_GET, SRC, SIMD, V128_LOAD, 0, ...uleb(offset), LOCAL_SET, BLOCK16,
    ...eq(VA), ...eq(VB), SIMD, V128_OR, ...eq(VC), SIMD, V128_OR, ...eq(VNL), SIMD, V128_OR, ...eq(VCR), SIMD, V128_OR,
    SIMD, I8X16_BITMASK, I64_EXTEND_I32_U,
  ];
}

function kernelBody(): number[] {
  const splat = (from: number[], to: number): number[] => [...from, SIMD, I8X16_SPLAT, LOCAL_SET, to];
  const code = [
    ...splat([LOCAL_GET, A], VA),
    ...splat([LOCAL_GET, B], VB),
    ...splat([LOCAL_GET, C], VC),
    ...splat([I32_CONST, 10], VNL),
    ...splat([I32_CONST, 13], VCR),
    BLOCK, VOID,
    LOOP, VOID,
    // while (src < end)
    LOCAL_GET, SRC, LOCAL_GET, SRC_END, I32_GE_U, BR_IF, 1,
    // mask = the matches in the next 64 bytes, bit k for byte src + k
    ...match16(0),
    ...match16(16), I64_CONST, 16, I64_SHL, I64_OR,
    ...match16(32), I64_CONST, 32, I64_SHL, I64_OR,
    ...match16(48), I64_CONST, 48, I64_SHL, I64_OR,
    LOCAL_SET, MASK,
    // The last block reads past the window's end: drop the bits of bytes that are not in it.
    LOCAL_GET, SRC_END, LOCAL_GET, SRC, I32_SUB, LOCAL_TEE, LEFT, I32_CONST, 0xc0, 0x00, I32_LT_U,
    IF, VOID,
    LOCAL_GET, MASK, I64_CONST, 1, LOCAL_GET, LEFT, I64_EXTEND_I32_U, I64_SHL, I64_CONST, 1, I64_SUB, I64_AND, LOCAL_SET, MASK,
    END,
    // One position per set bit, lowest first.
    BLOCK, VOID,
    LOOP, VOID,
    LOCAL_GET, MASK, I64_EQZ, BR_IF, 1,
    LOCAL_GET, OUT,
    LOCAL_GET, SRC, LOCAL_GET, BIAS, I32_ADD, LOCAL_GET, MASK, I64_CTZ, I32_WRAP_I64, I32_ADD,
    I32_STORE, 2, 0,
    LOCAL_GET, OUT, I32_CONST, 4, I32_ADD, LOCAL_SET, OUT,
    LOCAL_GET, MASK, LOCAL_GET, MASK, I64_CONST, 1, I64_SUB, I64_AND, LOCAL_SET, MASK,
    BR, 0,
    END,
    END,
    // src += 64
    LOCAL_GET, SRC, I32_CONST, 0xc0, 0x00, I32_ADD, LOCAL_SET, SRC,
    BR, 0,
    END,
    END,
    LOCAL_GET, OUT,
    END,
  ];
  const locals = [4, 5, V128, 1, I64, 1, V128, 1, I32];
  const fn = [...locals, ...code];
  return [...uleb(fn.length), ...fn];
}

function kernelModule(): Uint8Array {
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    // type 0: (i32 × 7) -> i32
    ...section(1, [1, 0x60, 7, I32, I32, I32, I32, I32, I32, I32, 1, I32]),
    // memory imported from env.mem, PAGES pages
    ...section(2, [1, ...name('env'), ...name('mem'), 0x02, 0x00, ...uleb(PAGES)]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name('index'), 0x00, 0]),
    ...section(10, [1, ...kernelBody()]),
  ];
  return new Uint8Array(bytes);
}

type Kernel = (src: number, end: number, out: number, bias: number, a: number, b: number, c: number) => number;

/** The part of the WebAssembly API used here (the project's type libraries do not declare it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Memory: new (limits: { initial: number; maximum: number }) => { readonly buffer: ArrayBuffer };
  Instance: new (module: object, imports: object) => { readonly exports: Record<string, unknown> };
}
/** Absent under node --jitless. */
const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

/** The kernel and its memory: one per process, since fill() runs to completion before it returns. */
interface KernelInstance {
  readonly run: Kernel;
  readonly input: Uint8Array;
  readonly output: Int32Array;
}

let shared: KernelInstance | null | undefined;

/**
 * The kernel, instantiated once; null where WebAssembly (or its SIMD) is not available. Every index
 * shares it and copies the positions out, so opening many files does not make a WebAssembly memory
 * (and its reserved address space) per file.
 */
function kernelInstance(): KernelInstance | null {
  if (shared !== undefined) return shared;
  try {
    if (wasm === undefined) shared = null;
    else {
      const memory = new wasm.Memory({ initial: PAGES, maximum: PAGES });
      const inst = new wasm.Instance(new wasm.Module(kernelModule()), { env: { mem: memory } });
      shared = { run: inst.exports.index as Kernel, input: new Uint8Array(memory.buffer, IN_AT, OUT_AT), output: new Int32Array(memory.buffer, OUT_AT, INDEX_WINDOW) };
    }
  } catch {
    shared = null;
  }
  return shared;
}

/** Finds the positions of five byte values in windows of a buffer. */
export class SpecialByteIndex {
  /** Positions (indexes into the buffer given to fill()) in increasing order; fill() says how many. */
  readonly positions = new Int32Array(INDEX_WINDOW);
  private readonly kernel: KernelInstance | null;
  private readonly a: number;
  private readonly b: number;
  private readonly c: number;

  /** Finds \n, \r and the bytes a, b and c (one may repeat another). */
  constructor(a: number, b: number, c: number, useKernel = true) {
    this.a = a & 0xff;
    this.b = b & 0xff;
    this.c = c & 0xff;
    this.kernel = useKernel ? kernelInstance() : null;
  }

  /** Whether positions come from the WebAssembly kernel (false without WebAssembly, or when a test asks for the plain loop). */
  get simd(): boolean {
    return this.kernel !== null;
  }

  /** Indexes buf[from, to) (at most INDEX_WINDOW bytes); returns the number of positions found. */
  fill(buf: Uint8Array, from: number, to: number): number {
    if (to - from > INDEX_WINDOW) throw new RangeError('SpecialByteIndex window too large');
    const k = this.kernel;
    if (k === null) return this.fillScalar(buf, from, to);
    k.input.set(buf.subarray(from, to), 0);
    const n = (k.run(IN_AT, IN_AT + to - from, OUT_AT, from - IN_AT, this.a, this.b, this.c) - OUT_AT) >> 2;
    this.positions.set(k.output.subarray(0, n), 0);
    return n;
  }

  private fillScalar(buf: Uint8Array, from: number, to: number): number {
    const out = this.positions;
    const a = this.a;
    const b = this.b;
    const c = this.c;
    let n = 0;
    for (let i = from; i < to; i++) {
      const x = buf[i]!;
      if (x === a || x === b || x === c || x === 10 || x === 13) out[n++] = i;
    }
    return n;
  }
}

/** Memory one SpecialByteIndex holds (for memory_limit accounting). */
export const INDEX_BYTES = INDEX_WINDOW * 4;
