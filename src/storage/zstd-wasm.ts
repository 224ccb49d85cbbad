/**
 * ZSTD pages decoded by zstddec's WebAssembly build of the reference decoder, with the output left in
 * its memory: the caller reads a page in place (a view valid until the next call), as it does the
 * Snappy kernel's. zstddec's own decode() allocates input and output inside the module per page and
 * slices the output out into a fresh array; on this kind of machine memory just given back to the
 * process is faulted in again page by page, and that copy and its faults took 16% of a query over a
 * 1M-row ZSTD file, several times the decoding itself.
 *
 * zstddec exposes no handle on its module, only init() and decode(); init() instantiates it through
 * WebAssembly.instantiate, which is watched for that one call to keep the instance. Its exports used
 * here are the C library's (ZSTD_decompress, ZSTD_isError) and the C allocator (malloc, free); an
 * instance without them is not used, and pages then go through decode().
 */
import { lazyModule } from '../common/lazy-module.js';

const zstddec = lazyModule<typeof import('zstddec')>('zstddec');

/** The runtime's WebAssembly as far as it is used here (the project's type libraries do not declare it). */
const webAssembly = (globalThis as { WebAssembly?: { instantiate: (...args: unknown[]) => Promise<unknown> } }).WebAssembly;

interface ZstdExports {
  memory: { readonly buffer: ArrayBuffer };
  malloc(n: number): number;
  free(p: number): void;
  ZSTD_decompress(dst: number, dstCapacity: number, src: number, srcSize: number): number;
  ZSTD_isError(code: number): number;
}

type ZstdDecoder = InstanceType<typeof import('zstddec').ZSTDDecoder>;

/** The exports used here, from what instantiate() gave ({ module, instance } from bytes, an instance from a module). */
function zstdExports(result: unknown): ZstdExports | null {
  const r = result as { instance?: { exports?: Record<string, unknown> }; exports?: Record<string, unknown> } | null;
  const x = r?.instance?.exports ?? r?.exports;
  if (x === undefined) return null;
  const memory = x.memory as { buffer?: unknown } | undefined;
  const ok = memory?.buffer instanceof ArrayBuffer && ['malloc', 'free', 'ZSTD_decompress', 'ZSTD_isError'].every((k) => typeof x[k] === 'function');
  return ok ? (x as unknown as ZstdExports) : null;
}

/** A decoder ready to use: the module's exports driven directly, or (without them) zstddec's decode(). */
export class ZstdWasm {
  /** Input and output buffers in the module's memory, kept across pages and grown as pages need. */
  private inPtr = 0;
  private inCap = 0;
  private outPtr = 0;
  private outCap = 0;

  private constructor(
    private readonly exports: ZstdExports | null,
    private readonly decoder: ZstdDecoder,
  ) {}

  /** Instantiates zstddec, keeping hold of its module's instance. */
  static async create(): Promise<ZstdWasm> {
    const decoder = new (zstddec().ZSTDDecoder)();
    let exports: ZstdExports | null = null;
    const wa = webAssembly;
    if (wa === undefined) {
      await decoder.init();
      return new ZstdWasm(null, decoder);
    }
    const instantiate = wa.instantiate;
    const watched = async (...args: unknown[]): Promise<unknown> => {
      const r = await instantiate.apply(wa, args);
      exports ??= zstdExports(r);
      return r;
    };
    wa.instantiate = watched;
    try {
      await decoder.init();
    } finally {
      if (wa.instantiate === watched) wa.instantiate = instantiate;
    }
    return new ZstdWasm(exports, decoder);
  }

  /** Whether pages are decoded in place (the module's exports were found). */
  get inPlace(): boolean {
    return this.exports !== null;
  }

  /**
   * A ZSTD frame of exactly `outputLength` bytes decoded: a view of the module's memory, valid until
   * the next call, or (without the exports) a fresh array. Throws on a corrupt or short frame.
   */
  decode(input: Uint8Array, outputLength: number): Uint8Array {
    const x = this.exports;
    if (x === null) {
      const out = this.decoder.decode(input, outputLength);
      // A corrupt or truncated frame decodes to nothing (decode() reports no error), a short one to less.
      if (out.length !== outputLength) throw new Error(`ZSTD page decompressed to ${out.length} bytes, its header says ${outputLength}`);
      return out;
    }
    if (input.length > this.inCap) {
      if (this.inPtr !== 0) x.free(this.inPtr);
      this.inCap = Math.max(input.length, this.inCap * 2, 1 << 16);
      this.inPtr = x.malloc(this.inCap);
    }
    if (outputLength > this.outCap) {
      if (this.outPtr !== 0) x.free(this.outPtr);
      this.outCap = Math.max(outputLength, this.outCap * 2, 1 << 16);
      this.outPtr = x.malloc(this.outCap);
    }
    if (this.inPtr === 0 || this.outPtr === 0) {
      // The allocator returns 0 when memory cannot grow: start again from nothing next time.
      if (this.inPtr !== 0) x.free(this.inPtr);
      if (this.outPtr !== 0) x.free(this.outPtr);
      this.inPtr = this.outPtr = this.inCap = this.outCap = 0;
      throw new Error(`no memory to decode a ZSTD page of ${outputLength} bytes`);
    }
    // The memory's buffer is replaced when it grows (malloc above, or the decoder's context): views are taken after.
    new Uint8Array(x.memory.buffer, this.inPtr, input.length).set(input);
    const n = x.ZSTD_decompress(this.outPtr, outputLength, this.inPtr, input.length);
    if (x.ZSTD_isError(n) !== 0) throw new Error('corrupt ZSTD page');
    if (n >>> 0 !== outputLength) throw new Error(`ZSTD page decompressed to ${n >>> 0} bytes, its header says ${outputLength}`);
    return new Uint8Array(x.memory.buffer, this.outPtr, outputLength);
  }

  /** decode() into an array of the caller's own. */
  decodeOwned(input: Uint8Array, outputLength: number): Uint8Array {
    const out = this.decode(input, outputLength);
    return this.exports === null ? out : out.slice();
  }
}
