/**
 * Page decompression for read_parquet, handed to hyparquet (its `compressors` option) and to the flat
 * column decoder alike.
 *
 * SNAPPY (what DuckDB, Spark and pyarrow write by default) goes through the native `snappy` binding:
 * hyparquet's own decoder is JavaScript that copies byte by byte, and the WASM one (hysnappy) copies
 * each page into and out of its memory, which cost more than it saved here. Where no prebuilt binary
 * exists for the platform the binding fails to load, and hyparquet's decoder is used instead.
 * GZIP and BROTLI use node:zlib. ZSTD uses fzstd (Node 20 has no zstd in zlib). LZ4_RAW is a plain LZ4
 * block, decoded below. LZO and the Hadoop-framed LZ4 codec are refused with a clear error.
 */
import { createRequire } from 'node:module';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { CompressionCodec, Compressors } from 'hyparquet';
import { lazyModule } from '../../common/lazy-module.js';

const hyparquetSnappy = lazyModule<typeof import('hyparquet/src/snappy.js')>('hyparquet/src/snappy.js');
const fzstd = lazyModule<typeof import('fzstd')>('fzstd');

type Decompress = (input: Uint8Array, outputLength: number) => Uint8Array;

function loadNativeSnappy(): Decompress | null {
  try {
    const require = createRequire(import.meta.url);
    const native = require('snappy') as { uncompressSync(input: Uint8Array): Uint8Array | string };
    return (input) => native.uncompressSync(input) as Uint8Array;
  } catch {
    return null;
  }
}

const jsSnappy: Decompress = (input, outputLength) => {
  const out = new Uint8Array(outputLength);
  hyparquetSnappy().snappyUncompress(input, out);
  return out;
};

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

/** Chosen on the first snappy page: the native binding is loaded only by sessions that read Parquet. */
let snappy: Decompress | null = null;

export const PARQUET_DECOMPRESSORS: Compressors = {
  SNAPPY: (input, outputLength) => (snappy ??= loadNativeSnappy() ?? jsSnappy)(input, outputLength),
  GZIP: (input) => gunzipSync(input),
  BROTLI: (input) => brotliDecompressSync(input),
  ZSTD: (input, outputLength) => fzstd().decompress(input, new Uint8Array(outputLength)),
  LZ4_RAW: lz4BlockDecompress,
  LZ4: unsupported('LZ4'),
  LZO: unsupported('LZO'),
};
