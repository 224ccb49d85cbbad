/**
 * Page decompression for read_parquet, handed to hyparquet (its `compressors` option) and to the flat
 * column decoder alike.
 *
 * SNAPPY (what DuckDB, Spark and pyarrow write by default) has two decoders, picked per page by its
 * compressed/uncompressed ratio (snappyByWasm): a WebAssembly kernel (snappy-kernel.ts), several
 * times the JavaScript one below on compressible pages (text, timestamps, ints: many short elements),
 * whose pages are read in its memory, and the JavaScript decoder (snappyPrefix), which wins on pages
 * that are nearly all long literals (doubles: one memcpy per literal, where the kernel copies the page
 * into its memory first), on tiny pages (the call costs more than the decoding) and when only a
 * page's front is wanted. GZIP and BROTLI use node:zlib. ZSTD (Polars' default, and common in lakes) uses zstddec, the
 * reference decoder compiled to WebAssembly, 40-60x faster than fzstd's JavaScript, its pages read in
 * its memory (zstd-wasm.ts); Node 20 has no zstd in zlib. LZ4_RAW is a plain LZ4 block, decoded below. LZO and the Hadoop-framed LZ4 codec are refused
 * with a clear error.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { CompressionCodec, Compressors, FileMetaData } from 'hyparquet';
import { lazyModule } from '../../common/lazy-module.js';
import { snappyKernel, snappyKernelInstantiated } from '../snappy-kernel.js';
import { ZstdWasm } from '../zstd-wasm.js';

const fzstd = lazyModule<typeof import('fzstd')>('fzstd');

let zstdWasm: ZstdWasm | null = null;
let zstdWasmInit: Promise<void> | null = null;

/**
 * Instantiates the WebAssembly zstd decoder, which can only be done asynchronously, when the file has
 * ZSTD pages (null when there is nothing to wait for); a scan awaits this before reading the file.
 * Until it has resolved (or if it fails) pages go to fzstd.
 */
export function prepareZstd(metadata: FileMetaData): Promise<void> | null {
  // Ready: nothing to wait for (every later file, ZSTD or not, skips the await and the scan of its chunks).
  if (zstdWasm !== null) return null;
  if (zstdWasmInit === null && !metadata.row_groups.some((rg) => rg.columns.some((c) => c.meta_data?.codec === 'ZSTD'))) return null;
  zstdWasmInit ??= ZstdWasm.create()
    .then((d) => {
      zstdWasm = d;
    })
    .catch(() => undefined);
  return zstdWasmInit;
}

/**
 * Pages beyond this size go to fzstd: the decoder's WebAssembly memory grows to the largest page it
 * has held and never shrinks, and an allocation it cannot make returns address 0. Writers cut pages
 * at about 1 MB.
 */
const ZSTD_WASM_MAX = 16 << 20;

/** Whether the WebAssembly decoder takes a page of these sizes (a length of 0 would make it trust the frame's own size field). */
function zstdByWasm(inputLength: number, outputLength: number): boolean {
  return zstdWasm !== null && outputLength > 0 && outputLength <= ZSTD_WASM_MAX && inputLength <= ZSTD_WASM_MAX;
}

/** Whether ZSTD pages are decoded in the WebAssembly decoder's memory (for tests and diagnostics). */
export function zstdDecodesInPlace(): boolean {
  return zstdWasm?.inPlace === true;
}

/** A ZSTD page into an array of its own. */
function zstdDecompress(input: Uint8Array, outputLength: number): Uint8Array {
  if (zstdByWasm(input.length, outputLength)) return zstdWasm!.decodeOwned(input, outputLength);
  return fzstd().decompress(input, new Uint8Array(outputLength));
}

type Decompress = (input: Uint8Array, outputLength: number) => Uint8Array;

/** An LZ4 block (the LZ4_RAW codec): sequences of literals and back-references into the output. */
export function lz4BlockDecompress(input: Uint8Array, outputLength: number): Uint8Array {
  const out = new Uint8Array(outputLength);
  let i = 0;
  let o = 0;
  const fail = (): never => {
    throw new Error('corrupt LZ4 block');
  };
  while (i < input.length) {
    const token = input[i++]!;
    let lit = token >>> 4;
    if (lit === 15) {
      let b: number;
      do {
        if (i >= input.length) fail();
        b = input[i++]!;
        lit += b;
      } while (b === 255);
    }
    if (i + lit > input.length || o + lit > outputLength) fail();
    out.set(input.subarray(i, i + lit), o);
    i += lit;
    o += lit;
    if (i === input.length) break; // the last sequence has literals only
    if (i + 2 > input.length) fail();
    const offset = input[i]! | (input[i + 1]! << 8);
    i += 2;
    if (offset === 0 || offset > o) fail();
    let len = (token & 15) + 4;
    if ((token & 15) === 15) {
      let b: number;
      do {
        if (i >= input.length) fail();
        b = input[i++]!;
        len += b;
      } while (b === 255);
    }
    if (o + len > outputLength) fail();
    let from = o - offset;
    if (offset >= len) {
      out.copyWithin(o, from, from + len);
      o += len;
    } else {
      // Overlapping match: the repeated pattern is copied forward byte by byte.
      for (let k = 0; k < len; k++) out[o++] = out[from++]!;
    }
  }
  if (o !== outputLength) fail();
  return out;
}

/** Literals and back-references up to this length are copied byte by byte. */
const SHORT_COPY = 16;

/** Output of decompressPrefix, reused: its bytes are read before the next page's. */
let prefixScratch = new Uint8Array(1 << 16);

function prefixOut(n: number): Uint8Array {
  if (prefixScratch.length < n) prefixScratch = new Uint8Array(Math.max(n, prefixScratch.length * 2));
  return prefixScratch;
}

function corruptSnappy(): never {
  throw new Error('corrupt Snappy page');
}

/** Where a Snappy block's elements start, after its length (a varint) is checked against the page header's. */
function snappyStart(input: Uint8Array, outputLength: number): number {
  let i = 0;
  let declared = 0;
  for (let shift = 0; ; shift += 7) {
    if (i >= input.length || shift > 28) corruptSnappy();
    const b = input[i++]!;
    declared += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) break;
  }
  if (declared !== outputLength) corruptSnappy();
  return i;
}

/**
 * The first `prefix` bytes of a Snappy block, decoding no further: a version 1 data page keeps its
 * definition levels at the front of its compressed bytes, and a column read for its NULLs only needs
 * nothing past them. Snappy is a sequence of literals and back-references into the output already
 * written, so its first bytes come out of its first elements.
 *
 * Back-references in a row with the same offset are written as one run (repeatBack): a page of
 * repeating values (bit-packed dictionary codes of a column cycling through its entries, one value
 * repeated) compresses to a literal followed by thousands of copies of at most 64 bytes at one
 * offset, and a copy call or byte loop per element cost more than the rest of decoding such a page.
 *
 * Kept small and without closures: a query's first pages run it before V8 has optimized it, and its
 * optimizing compilation (CPU on another thread, but CPU) came again each time a page brought an
 * element the compiled code had not met. Copying through DataViews four bytes at a time cost 8-24 ms
 * per compilation, five compilations in a process's first queries; byte loops and copyWithin cost 4.
 */
function snappyPrefix(input: Uint8Array, outputLength: number, prefix: number, out: Uint8Array = prefixOut(prefix)): Uint8Array {
  if (prefix > outputLength || out.length < prefix) corruptSnappy();
  let i = snappyStart(input, outputLength);
  const end = input.length;
  // Output decoded up to o; bytes [w, o) continue a run of back-references at offset `run` (0: the
  // last element was a literal) and are not written yet.
  let o = 0;
  let w = 0;
  let run = 0;
  while (o < prefix) {
    if (i >= end) corruptSnappy();
    const tag = input[i++]!;
    const kind = tag & 3;
    let len: number;
    if (kind === 0) {
      len = (tag >>> 2) + 1;
      if (len > 60) {
        // 1 to 4 bytes of length follow, little-endian.
        const bytes = len - 60;
        if (i + bytes > end) corruptSnappy();
        len = 0;
        for (let k = bytes - 1; k >= 0; k--) len = len * 256 + input[i + k]!;
        len += 1;
        i += bytes;
      }
      if (i + len > end || o + len > outputLength) corruptSnappy();
      if (w < o) repeatBack(out, w, o, run);
      const take = len < prefix - o ? len : prefix - o;
      if (take > SHORT_COPY) out.set(input.subarray(i, i + take), o);
      else for (let k = 0; k < take; k++) out[o + k] = input[i + k]!;
      i += len;
      o += take;
      w = o;
      run = 0;
      continue;
    }
    let offset: number;
    if (kind === 1) {
      if (i >= end) corruptSnappy();
      len = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | input[i++]!;
    } else if (kind === 2) {
      if (i + 2 > end) corruptSnappy();
      len = (tag >>> 2) + 1;
      offset = input[i]! | (input[i + 1]! << 8);
      i += 2;
    } else {
      if (i + 4 > end) corruptSnappy();
      len = (tag >>> 2) + 1;
      offset = (input[i]! | (input[i + 1]! << 8) | (input[i + 2]! << 16)) + input[i + 3]! * 16777216;
      i += 4;
    }
    if (offset === 0 || offset > o || o + len > outputLength) corruptSnappy();
    const take = len < prefix - o ? len : prefix - o;
    if (offset === run) {
      // The run the last copy started goes on: written when it ends.
      o += take;
      continue;
    }
    if (w < o) repeatBack(out, w, o, run);
    // A copy after a literal or at another offset is written at once (most elements of text and
    // timestamps alternate so), and starts a run.
    if (offset >= take && take > SHORT_COPY) {
      out.copyWithin(o, o - offset, o - offset + take);
      o += take;
    } else {
      // Short or overlapping (a pattern repeated forward): byte by byte.
      for (let k = o - offset, stop = o + take; o < stop; ) out[o++] = out[k++]!;
    }
    w = o;
    run = offset;
  }
  if (w < o) repeatBack(out, w, o, run);
  // Decoded whole, the block must end where its declared length does.
  if (prefix === outputLength && i !== end) corruptSnappy();
  return out.subarray(0, prefix);
}

/**
 * Writes out[from …to) as a copy of the bytes `offset` back (each byte that of `offset` bytes before
 * it, a pattern repeated forward when the run is longer than the offset). The source stays where the
 * run starts minus the offset and doubles in length after each copy, so a long run of a short
 * pattern takes a few copyWithin calls, not one per pattern.
 */
function repeatBack(out: Uint8Array, from: number, to: number, offset: number): void {
  const src = from - offset;
  let w = from;
  while (w < to) {
    // Bytes [src, w) repeat with period `offset`, and w - src is a multiple of it: copied as a block.
    const n = to - w < w - src ? to - w : w - src;
    if (n > SHORT_COPY) out.copyWithin(w, src, src + n);
    else for (let k = 0; k < n; k++) out[w + k] = out[src + k]!;
    w += n;
  }
}

/**
 * Pages whose compressed size is at least this share of their decoded size go to the JavaScript
 * decoder: such a page is nearly all long literals, which it copies with one memcpy each (measured on
 * 1 MB pages: at ratio 0.97-1.0 it decodes 4-30x faster than the WASM decoder, which copies the page
 * into its memory and out again; below 0.9 the WASM decoder is ahead on every shape tried, 2-3.5x on
 * text, timestamps and integers).
 */
const SNAPPY_LITERAL_RATIO = 0.95;
/** Below this decoded size a call into WebAssembly (and the copies in and out) costs more than decoding in JavaScript. */
const SNAPPY_WASM_MIN = 512;
/**
 * Above this size pages go to the JavaScript decoder: the WASM decoder's memory grows to the largest
 * page it has held (input and output) and never shrinks. Writers cut pages at about 1 MB.
 */
const SNAPPY_WASM_MAX = 8 << 20;

/** Whether a whole page of these sizes is decoded faster by the WASM decoder (see SNAPPY_LITERAL_RATIO). */
function snappyByWasm(inputLength: number, outputLength: number): boolean {
  return outputLength >= SNAPPY_WASM_MIN && outputLength <= SNAPPY_WASM_MAX && inputLength < outputLength * SNAPPY_LITERAL_RATIO;
}

/**
 * A whole Snappy page decoded by the WASM kernel (snappy-kernel.ts), as a view of its memory valid
 * until its next page; null when it cannot be used (no WebAssembly here, or its memory could not grow
 * to the page): the caller then decodes in JavaScript.
 *
 * The block's declared length is checked against the page header first; the kernel refuses
 * back-references before the start of the output, elements past the page's end or its declared
 * length, and a block that ends short of it (the tests feed it such blocks, and random corruptions of
 * real pages, against the JavaScript decoder).
 */
function snappyWholeWasm(input: Uint8Array, outputLength: number): Uint8Array | null {
  const from = snappyStart(input, outputLength);
  const kernel = snappyKernel();
  if (kernel === null) return null;
  let out: Uint8Array | null;
  try {
    out = kernel.decode(input, from, outputLength);
  } catch {
    corruptSnappy();
  }
  return out;
}

/** A whole Snappy page into a fresh array, by whichever decoder suits it. */
function snappyWhole(input: Uint8Array, outputLength: number): Uint8Array {
  if (snappyByWasm(input.length, outputLength)) {
    const out = snappyWholeWasm(input, outputLength);
    if (out !== null) return out.slice();
  }
  return snappyPrefix(input, outputLength, outputLength, new Uint8Array(outputLength));
}

/** Which decoder a whole page of these sizes goes to (for tests and diagnostics). */
export function snappyDecoderFor(inputLength: number, outputLength: number): 'wasm' | 'js' {
  return snappyByWasm(inputLength, outputLength) ? 'wasm' : 'js';
}

/** Whether the WASM decoder has been instantiated: only a Snappy page that goes to it does so. */
export function snappyWasmInstantiated(): boolean {
  return snappyKernelInstantiated();
}

/** A whole page decoded by the decoder named, whatever its sizes (the tests compare the two byte for byte). */
export function snappyDecodeWith(decoder: 'wasm' | 'js', input: Uint8Array, outputLength: number): Uint8Array {
  if (decoder === 'js') return snappyPrefix(input, outputLength, outputLength, new Uint8Array(outputLength));
  const out = snappyWholeWasm(input, outputLength);
  if (out === null) throw new Error('the WebAssembly Snappy decoder is not available');
  return out.slice();
}

/**
 * At least the first `prefix` bytes of a page compressed with `codec` (of `outputLength` bytes in
 * all), decoding as little past them as the codec allows; valid until the next call. Codecs that
 * cannot stop early are decompressed whole.
 */
export function decompressPrefix(codec: CompressionCodec, input: Uint8Array, outputLength: number, prefix: number): Uint8Array {
  if (codec === 'UNCOMPRESSED') {
    if (prefix > input.length) throw new Error('page shorter than its header says');
    return input;
  }
  if (codec === 'SNAPPY') {
    // The JavaScript decoder stops at the prefix; the WASM one decodes whole pages only, which pays
    // when the prefix is most of the page.
    if (prefix * 2 >= outputLength && prefix <= outputLength && snappyByWasm(input.length, outputLength)) {
      // A view of the kernel's memory, valid until its next page as this function's answer is until its next call.
      const out = snappyWholeWasm(input, outputLength);
      if (out !== null) return out;
    }
    return snappyPrefix(input, outputLength, prefix);
  }
  // In the zstd decoder's memory, valid until its next page, as the Snappy kernel's view above.
  const whole = codec === 'ZSTD' && zstdByWasm(input.length, outputLength) ? zstdWasm!.decode(input, outputLength) : PARQUET_DECOMPRESSORS[codec]!(input, outputLength);
  if (whole.length !== outputLength || whole.length < prefix) throw new Error(`decompressed page length ${whole.length} does not match header ${outputLength}`);
  return whole;
}

/** Pages up to this size are decoded into a reused buffer (which keeps the largest size decoded). */
const PAGE_SCRATCH_MAX = 16 << 20;

/** Reused outputs of the Snappy decoding below: one for data pages, one for dictionary pages. */
const pageScratch = { data: new Uint8Array(0), dictionary: new Uint8Array(0) };

/** The reused buffer of a kind, grown to hold n bytes. */
function scratchFor(kind: keyof typeof pageScratch, n: number): Uint8Array {
  if (pageScratch[kind].length < n) pageScratch[kind] = new Uint8Array(Math.max(n, pageScratch[kind].length * 2, 1 << 16));
  return pageScratch[kind];
}

/** A page a decoder left in its own memory, copied into the reused buffer of its kind. */
function copiedToScratch(kind: keyof typeof pageScratch, page: Uint8Array): Uint8Array {
  const out = scratchFor(kind, page.length);
  out.set(page);
  return out.subarray(0, page.length);
}

/**
 * A page decompressed into the reused buffer of its kind; valid until the next page of that kind (a
 * chunk's dictionary page stays readable while its data pages are decoded). A data page the Snappy
 * kernel or the WebAssembly zstd decoder takes is read where it was decoded (valid until the
 * decoder's next page, as the buffer is); a dictionary page either takes is copied into the
 * dictionary buffer, which the decoder's next (data) page must not overwrite. No Snappy or ZSTD page
 * within the decoders' bounds costs a fresh array.
 */
function decompressReused(kind: keyof typeof pageScratch, codec: CompressionCodec, input: Uint8Array, outputLength: number): Uint8Array {
  if (codec === 'SNAPPY' && outputLength <= PAGE_SCRATCH_MAX) {
    const wasm = snappyByWasm(input.length, outputLength) ? snappyWholeWasm(input, outputLength) : null;
    if (wasm !== null) return kind === 'data' ? wasm : copiedToScratch(kind, wasm);
    return snappyPrefix(input, outputLength, outputLength, scratchFor(kind, outputLength));
  }
  if (codec === 'UNCOMPRESSED') {
    if (input.length !== outputLength) throw new Error(`page of ${input.length} bytes does not match header ${outputLength}`);
    return input;
  }
  if (codec === 'ZSTD' && zstdByWasm(input.length, outputLength)) {
    // In the decoder's memory, as a Snappy page in the kernel's: a dictionary page is copied out of it.
    const page = zstdWasm!.decode(input, outputLength);
    return kind === 'data' || !zstdWasm!.inPlace ? page : copiedToScratch(kind, page);
  }
  const page = PARQUET_DECOMPRESSORS[codec]!(input, outputLength);
  if (page.length !== outputLength) throw new Error(`decompressed page length ${page.length} does not match header ${outputLength}`);
  return page;
}

/** A data page decompressed; valid until the next data page is. */
export function decompressDataPage(codec: CompressionCodec, input: Uint8Array, outputLength: number): Uint8Array {
  return decompressReused('data', codec, input, outputLength);
}

/** A dictionary page decompressed; valid until the next dictionary page is. */
export function decompressDictionaryPage(codec: CompressionCodec, input: Uint8Array, outputLength: number): Uint8Array {
  return decompressReused('dictionary', codec, input, outputLength);
}

/** A codec read_parquet does not decode; the scan turns it into 0A000 naming the file. */
export class UnsupportedCodec extends Error {
  constructor(readonly codec: CompressionCodec) {
    super(`compression codec ${codec} is not supported`);
  }
}

function unsupported(codec: CompressionCodec): Decompress {
  return () => {
    throw new UnsupportedCodec(codec);
  };
}

export const PARQUET_DECOMPRESSORS: Compressors = {
  SNAPPY: snappyWhole,
  GZIP: (input) => gunzipSync(input),
  BROTLI: (input) => brotliDecompressSync(input),
  ZSTD: zstdDecompress,
  LZ4_RAW: lz4BlockDecompress,
  LZ4: unsupported('LZ4'),
  LZO: unsupported('LZO'),
};
