/**
 * The two Snappy decoders of read_parquet (parquet-codecs.ts): the WebAssembly kernel (snappy-kernel.ts) for
 * compressible pages and the JavaScript one for literal-heavy, tiny, very large or partly read pages.
 * Both must give the same bytes for every page, pages written by DuckDB and by the snappy package
 * alike; a damaged page must fail in both (never decode to other bytes in one of them), and a query
 * over a file with such a page fails with XX001 naming the file. The WASM instance is created only
 * when a Snappy page goes to it.
 */
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { parquetMetadata } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { QuireError } from '../../src/common/errors.js';
import {
  decompressDataPage,
  decompressDictionaryPage,
  decompressPrefix,
  PARQUET_DECOMPRESSORS,
  snappyDecodeWith,
  snappyDecoderFor,
  snappyWasmInstantiated,
} from '../../src/storage/table-functions/parquet-codecs.js';

const require = createRequire(import.meta.url);
const snappy = require('snappy') as { compressSync(input: Buffer): Buffer };
const { parquetHeader } = require('hyparquet/src/column.js') as {
  parquetHeader(reader: { view: DataView; offset: number }): {
    type: string;
    compressed_page_size: number;
    uncompressed_page_size: number;
    data_page_header_v2?: { definition_levels_byte_length: number; repetition_levels_byte_length: number; is_compressed?: boolean };
  };
};

const compress = (b: Uint8Array): Uint8Array => new Uint8Array(snappy.compressSync(Buffer.from(b)));

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s >>> 8;
  };
}

/** Page-like payloads of the shapes the decoders are chosen by. */
function payload(kind: string, n: number, seed = 1): Uint8Array {
  const r = rng(seed);
  const out = new Uint8Array(n);
  const dv = new DataView(out.buffer);
  if (kind === 'text') {
    let s = '';
    for (let i = 0; s.length < n; i++) s += `user-${(i * 7919) % 100000}`;
    out.set(Buffer.from(s.slice(0, n)));
  } else if (kind === 'ints') {
    for (let i = 0; i + 4 <= n; i += 4) dv.setInt32(i, (i >> 2) + (r() % 16), true);
  } else if (kind === 'timestamps') {
    let t = 1_600_000_000_000_000n;
    for (let i = 0; i + 8 <= n; i += 8) dv.setBigInt64(i, (t += BigInt(r() % 1_000_000)), true);
  } else if (kind === 'incompressible') {
    for (let i = 0; i < n; i++) out[i] = r() & 255;
  } else if (kind === 'overlapping') {
    // Patterns of 1 to 3 bytes repeated: copies whose source overlaps what they write.
    for (let i = 0; i < n; ) {
      const period = 1 + (r() % 3);
      const run = 10 + (r() % 200);
      const pat = [r() & 255, r() & 255, r() & 255];
      for (let k = 0; k < run && i < n; k++, i++) out[i] = pat[k % period]!;
    }
  } else if (kind === 'runs') {
    for (let i = 0; i < n; i++) out[i] = i % 40 < 30 ? 7 : (i * 13) & 255;
  } else throw new Error(kind);
  return out;
}

const KINDS = ['text', 'ints', 'timestamps', 'incompressible', 'overlapping', 'runs'];

/** Both decoders' answers for a page: its bytes, or the error's message. */
function both(input: Uint8Array, n: number): [Uint8Array | string, Uint8Array | string] {
  const run = (d: 'wasm' | 'js'): Uint8Array | string => {
    try {
      return snappyDecodeWith(d, input, n);
    } catch (e) {
      return (e as Error).message;
    }
  };
  return [run('wasm'), run('js')];
}

const equalBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;

describe('the WebAssembly Snappy decoder is instantiated lazily', () => {
  // First in the file: nothing before it has decoded a Snappy page in this module instance.
  it('not by loading the module, an uncompressed or tiny page, nor a literal-only page; by the first compressible page', () => {
    expect(snappyWasmInstantiated()).toBe(false);
    decompressDataPage('UNCOMPRESSED', new Uint8Array(10), 10);
    const tiny = payload('text', 100);
    expect(decompressDataPage('SNAPPY', compress(tiny), 100)).toEqual(tiny);
    const literal = payload('incompressible', 100_000);
    expect(equalBytes(decompressDataPage('SNAPPY', compress(literal), literal.length), literal)).toBe(true);
    expect(snappyWasmInstantiated()).toBe(false);
    const text = payload('text', 100_000);
    expect(snappyDecoderFor(compress(text).length, text.length)).toBe('wasm');
    expect(equalBytes(decompressDataPage('SNAPPY', compress(text), text.length), text)).toBe(true);
    expect(snappyWasmInstantiated()).toBe(true);
  });
});

describe('pages compressed by the snappy package', () => {
  for (const kind of KINDS) {
    for (const n of [1, 2, 63, 511, 512, 4099, 65_536 + 17, 1 << 20]) {
      it(`${kind}, ${n} bytes: both decoders and every entry point give the original`, () => {
        const original = payload(kind, n, n);
        const packed = compress(original);
        const [wasm, js] = both(packed, n);
        expect(typeof wasm).not.toBe('string');
        expect(typeof js).not.toBe('string');
        expect(equalBytes(wasm as Uint8Array, original)).toBe(true);
        expect(equalBytes(js as Uint8Array, original)).toBe(true);
        expect(equalBytes(decompressDataPage('SNAPPY', packed, n), original)).toBe(true);
        expect(equalBytes(decompressDictionaryPage('SNAPPY', packed, n), original)).toBe(true);
        expect(equalBytes(PARQUET_DECOMPRESSORS.SNAPPY!(packed, n), original)).toBe(true);
        for (const p of [0, 1, n >> 1, n - 1, n].filter((p) => p >= 0 && p <= n)) {
          expect(equalBytes(decompressPrefix('SNAPPY', packed, n, p).subarray(0, p), original.subarray(0, p))).toBe(true);
        }
      });
    }
  }

  it('picks the WASM decoder for compressible pages only, within its size bounds', () => {
    const sizes = (kind: string, n: number): [number, number] => [compress(payload(kind, n)).length, n];
    expect(snappyDecoderFor(...sizes('text', 1 << 20))).toBe('wasm');
    expect(snappyDecoderFor(...sizes('timestamps', 1 << 20))).toBe('wasm');
    expect(snappyDecoderFor(...sizes('incompressible', 1 << 20))).toBe('js');
    expect(snappyDecoderFor(...sizes('text', 100))).toBe('js');
    // Above the bound the WASM memory would grow to: decoded in JavaScript, still exactly.
    const big = payload('text', 9 << 20);
    const packed = compress(big);
    expect(snappyDecoderFor(packed.length, big.length)).toBe('js');
    expect(equalBytes(decompressDataPage('SNAPPY', packed, big.length), big)).toBe(true);
    expect(equalBytes(PARQUET_DECOMPRESSORS.SNAPPY!(packed, big.length), big)).toBe(true);
  });

  it('a fresh array per general-path page, so a page kept by the reader is not overwritten by the next', () => {
    const a = payload('text', 50_000, 1);
    const b = payload('timestamps', 50_000, 2);
    const pa = PARQUET_DECOMPRESSORS.SNAPPY!(compress(a), a.length);
    PARQUET_DECOMPRESSORS.SNAPPY!(compress(b), b.length);
    expect(equalBytes(pa, a)).toBe(true);
  });
});

describe('damaged pages', () => {
  const text = payload('text', 20_000);
  const packed = compress(text);

  it('hand-made blocks: references before the output, past its end, short and long blocks fail in both decoders', () => {
    const blocks: [number[], number][] = [
      [[5, 0, 97, 1, 5], 5], // a literal, then a copy 5 back of 1 byte written
      [[5, 0, 97, 1 | (7 << 5), 255], 5], // copy 2,047 back
      [[5, 0, 97, 1, 0], 5], // offset 0
      [[4, 0, 97, (7 << 2) | 1, 1], 4], // a copy past the declared length
      [[1, 0, 97, 0, 98], 1], // elements after the declared length is reached
      [[8, 0, 97], 8], // ends before the declared length
      [[8, 7 << 2, 97, 98], 8], // a literal longer than the block
      [[5, 0, 97, 3 | (3 << 2), 0xff, 0xff, 0xff, 0x7f], 5], // 4-byte offset far back
      [[8, 63 << 2, 0xff, 0xff, 0xff, 0xff], 8], // a 4 GB literal
      [[0x80, 0x80, 0x80, 0x80, 0x80, 0x01], 1], // overlong length varint
      [[], 1],
    ];
    for (const [bytes, n] of blocks) {
      const [wasm, js] = both(Uint8Array.from(bytes), n);
      expect([bytes, wasm]).toEqual([bytes, 'corrupt Snappy page']);
      expect([bytes, js]).toEqual([bytes, 'corrupt Snappy page']);
    }
  });

  it('a block that declares another length than the page header fails before decoding', () => {
    for (const n of [text.length - 1, text.length + 1, 0]) {
      const [wasm, js] = both(packed, n);
      expect(wasm).toBe('corrupt Snappy page');
      expect(js).toBe('corrupt Snappy page');
      expect(() => decompressDataPage('SNAPPY', packed, n)).toThrow(/corrupt Snappy/);
      expect(() => PARQUET_DECOMPRESSORS.SNAPPY!(packed, n)).toThrow(/corrupt Snappy/);
    }
  });

  it('truncated at every length: both fail', () => {
    for (let cut = 0; cut < packed.length; cut += cut < 64 ? 1 : 97) {
      const [wasm, js] = both(packed.subarray(0, cut), text.length);
      expect([cut, wasm]).toEqual([cut, 'corrupt Snappy page']);
      expect([cut, js]).toEqual([cut, 'corrupt Snappy page']);
    }
  });

  it('random corruptions: both decoders fail, or both give the same bytes', () => {
    const r = rng(99);
    let failed = 0;
    for (const kind of ['text', 'ints', 'overlapping', 'timestamps']) {
      const original = payload(kind, 30_000, 7);
      const good = compress(original);
      for (let t = 0; t < 400; t++) {
        const bad = good.slice();
        for (let m = 1 + (r() % 3); m > 0; m--) bad[3 + (r() % (bad.length - 3))] = r() & 255;
        const [wasm, js] = both(bad, original.length);
        if (typeof wasm === 'string' || typeof js === 'string') {
          expect([kind, t, wasm]).toEqual([kind, t, 'corrupt Snappy page']);
          expect([kind, t, js]).toEqual([kind, t, 'corrupt Snappy page']);
          failed++;
        } else expect([kind, t, equalBytes(wasm, js)]).toEqual([kind, t, true]);
      }
    }
    // Snappy has no checksum: a damaged literal byte decodes to another byte. Most damage is caught.
    expect(failed).toBeGreaterThan(400);
  });
});

describe('pages written by DuckDB', () => {
  let dir: string;
  let duck: DuckDBConnection;
  let db: Database;
  const file = (): string => join(dir, 'shapes.parquet');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'quire-snappy-wasm-'));
    const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
    duck = await inst.connect();
    db = await Database.create();
    await duck.run(`COPY (SELECT i::INTEGER AS id, (i % 100)::INTEGER AS g, ((i * 7919) % 10007) / 10007.0 AS v,
                     random() AS noise, 'user-' || i AS u, 'cat' || (i % 17) AS s,
                     TIMESTAMP '2020-01-01' + to_seconds((i * 7) % 94608000) AS ts,
                     CASE WHEN i % 7 = 3 THEN NULL ELSE i * 1000003 END::BIGINT AS big
                   FROM range(300000) t(i)) TO '${file()}' (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 100000)`);
  });
  afterAll(() => {
    duck.closeSync();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every page of the file: its compressed bytes, decoded size and the offset of its body. */
  function pages(bytes: Uint8Array): { body: Uint8Array; n: number; at: number }[] {
    const meta = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    const out: { body: Uint8Array; n: number; at: number }[] = [];
    for (const rg of meta.row_groups) {
      for (const c of rg.columns) {
        const md = c.meta_data!;
        expect(md.codec).toBe('SNAPPY');
        const start = Number(md.dictionary_page_offset ?? md.data_page_offset);
        const end = start + Number(md.total_compressed_size);
        const reader = { view, offset: start };
        while (reader.offset < end) {
          const h = parquetHeader(reader);
          const at = reader.offset;
          reader.offset += h.compressed_page_size;
          expect(h.data_page_header_v2).toBeUndefined();
          out.push({ body: bytes.subarray(at, at + h.compressed_page_size), n: h.uncompressed_page_size, at });
        }
      }
    }
    return out;
  }

  it('every page decodes to the same bytes in both decoders; both decoders are used', () => {
    const all = pages(readFileSync(file()));
    const used = new Set<string>();
    for (const { body, n } of all) {
      used.add(snappyDecoderFor(body.length, n));
      const [wasm, js] = both(body, n);
      expect(typeof wasm).not.toBe('string');
      expect(equalBytes(wasm as Uint8Array, js as Uint8Array)).toBe(true);
    }
    expect(all.length).toBeGreaterThan(20);
    expect([...used].sort()).toEqual(['js', 'wasm']);
  });

  it('a query over every column agrees with DuckDB', async () => {
    const sql = `SELECT g, count(*), sum(v), sum(noise), max(u), min(s), max(ts)::VARCHAR, sum(big)::VARCHAR FROM read_parquet('${file()}') GROUP BY g ORDER BY g`;
    const norm = (rows: unknown[][]): unknown[][] => rows.map((r) => r.map((x) => (typeof x === 'bigint' ? Number(x) : typeof x === 'number' ? Math.round(x * 1e6) / 1e6 : x)));
    const got = norm((await db.query(sql)).rows as unknown[][]);
    expect(got.length).toBe(100);
    expect(got).toEqual(norm((await duck.runAndReadAll(sql)).getRows() as unknown[][]));
  });

  it('a damaged compressible page fails the query with XX001 naming the file', async () => {
    const bytes = new Uint8Array(readFileSync(file()));
    // A page of the text column u the WASM decoder takes: its second half overwritten with 0xff
    // (copies of 64 bytes from 4 GB back), which neither decoder can take for valid data.
    const target = pages(bytes).find(({ body, n }) => snappyDecoderFor(body.length, n) === 'wasm' && n > 100_000);
    expect(target).toBeDefined();
    const { body, at } = target!;
    bytes.fill(0xff, at + (body.length >> 1), at + body.length);
    const bad = join(dir, 'damaged.parquet');
    writeFileSync(bad, bytes);
    const err = await db.query(`SELECT max(u), sum(v), max(ts), sum(big), min(s), sum(g) FROM read_parquet('${bad}')`).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(QuireError);
    expect((err as QuireError).code).toBe('XX001');
    expect((err as Error).message).toContain('damaged.parquet');
  });
});
