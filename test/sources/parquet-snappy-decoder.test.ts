/**
 * The Snappy decoder of read_parquet's flat path (parquet-codecs.ts) against the native snappy
 * binding's compressor: inputs built to produce every kind of element (short and long literals, copies
 * of 4 to 64 bytes at offsets 1 to 3 — overlapping runs — and beyond, long chains of copies at one
 * offset from repeating data, which are written as one run), decoded whole and by prefix,
 * into the reused page buffers and the prefix buffer, must give back the original bytes exactly.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { decompressDataPage, decompressDictionaryPage, decompressPrefix } from '../../src/storage/table-functions/parquet-codecs.js';

const snappy = createRequire(import.meta.url)('snappy') as { compressSync(input: Buffer): Buffer };

/** Deterministic pseudo-random bytes. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s >>> 8;
  };
}

/** Text-dictionary-like entries (length prefix + shared prefix + digits), runs, random and repeated stretches. */
function sample(seed: number, n: number): Uint8Array {
  const r = rng(seed);
  const out: number[] = [];
  while (out.length < n) {
    const k = r() % 6;
    if (k === 0) {
      const s = `name${r() % 100000}`;
      out.push(s.length, 0, 0, 0, ...Buffer.from(s));
    } else if (k === 1) {
      const b = r() & 255;
      for (let j = r() % 40; j >= 0; j--) out.push(b);
    } else if (k === 2) {
      const a = r() & 255;
      const b = r() & 255;
      const c = r() & 255;
      for (let j = r() % 30; j >= 0; j--) out.push(a, b, c);
    } else if (k === 3) {
      for (let j = r() % 90; j >= 0; j--) out.push(r() & 255);
    } else if (out.length > 70) {
      const len = 4 + (r() % 70);
      const from = out.length - 1 - (r() % Math.min(out.length - len, 5000));
      for (let j = 0; j < len; j++) out.push(out[from - len + j + 1]!);
    } else out.push(r() & 255);
  }
  return Uint8Array.from(out.slice(0, n));
}

/** The first index where the bytes differ (or where one ends), -1 when equal: a short failure message. */
function firstDifference(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : Math.min(a.length, b.length);
}

describe('Snappy page decoder', () => {
  for (const [seed, n] of [[1, 1], [2, 7], [3, 64], [4, 1000], [5, 4099], [6, 65536 + 17], [7, 300000]] as const) {
    it(`${n} bytes (seed ${seed}): whole pages and prefixes decode to the original`, () => {
      const original = sample(seed, n);
      const packed = new Uint8Array(snappy.compressSync(Buffer.from(original)));
      expect(firstDifference(decompressDataPage('SNAPPY', packed, n), original)).toBe(-1);
      expect(firstDifference(decompressDictionaryPage('SNAPPY', packed, n), original)).toBe(-1);
      for (const prefix of [0, 1, 3, Math.floor(n / 3), n - 1, n].filter((p) => p >= 0 && p <= n)) {
        const got = decompressPrefix('SNAPPY', packed, n, prefix);
        expect(got.length).toBeGreaterThanOrEqual(prefix);
        expect(firstDifference(got.subarray(0, prefix), original.subarray(0, prefix))).toBe(-1);
      }
    });
  }
  it('elements the native compressor does not write: 3- and 4-byte literal lengths, 4-byte offsets', () => {
    // Built by hand: a 70,000-byte literal (length in 3 bytes), a copy from its start (4-byte offset),
    // an overlapping run (offset 1), a 2-byte-offset copy, and a 5-byte literal whose length takes 4 bytes.
    const lit = sample(11, 70000);
    const varint = (n: number): number[] => {
      const out: number[] = [];
      for (; n >= 0x80; n = Math.floor(n / 128)) out.push((n & 0x7f) | 0x80);
      out.push(n);
      return out;
    };
    const le = (n: number, bytes: number): number[] => Array.from({ length: bytes }, (_, k) => Math.floor(n / 256 ** k) & 255);
    const expected: number[] = [...lit];
    const body: number[] = [62 << 2, ...le(lit.length - 1, 3), ...lit];
    body.push(((64 - 1) << 2) | 3, ...le(70000, 4));
    for (let k = 0; k < 64; k++) expected.push(expected[expected.length - 70000]!);
    body.push(((10 - 1) << 2) | 3, ...le(1, 4));
    for (let k = 0; k < 10; k++) expected.push(expected[expected.length - 1]!);
    body.push(((20 - 1) << 2) | 2, ...le(300, 2));
    for (let k = 0; k < 20; k++) expected.push(expected[expected.length - 300]!);
    body.push(63 << 2, ...le(4, 4), 1, 2, 3, 4, 5);
    expected.push(1, 2, 3, 4, 5);
    const packed = Uint8Array.from([...varint(expected.length), ...body]);
    const want = Uint8Array.from(expected);
    expect(firstDifference(decompressDataPage('SNAPPY', packed, want.length), want)).toBe(-1);
    for (const prefix of [69999, 70001, 70070, want.length - 3]) {
      expect(firstDifference(decompressPrefix('SNAPPY', packed, want.length, prefix).subarray(0, prefix), want.subarray(0, prefix))).toBe(-1);
    }
  });

  // Repeating data compresses to a literal and long chains of copies at one offset, which the decoder
  // writes as one run: periods below, at and above the 64 bytes of a copy, cut by prefixes inside a run,
  // and runs broken by a literal or by a copy at another offset.
  for (const period of [1, 3, 8, 64, 85, 1250, 2737]) {
    it(`a pattern of ${period} bytes repeated (one run of copies), whole and by prefix`, () => {
      const r = rng(period);
      const unit = Array.from({ length: period }, () => r() & 255);
      const parts: number[] = [];
      let next = 5000;
      while (parts.length < 150_000) {
        parts.push(...unit);
        // Now and then a stretch of other bytes, then the pattern again (a run ends and another starts).
        if (parts.length >= next) {
          for (let k = 0; k < 37; k++) parts.push(r() & 255);
          next += 5000;
        }
      }
      const original = Uint8Array.from(parts);
      const n = original.length;
      const packed = new Uint8Array(snappy.compressSync(Buffer.from(original)));
      expect(packed.length).toBeLessThan(n / 4);
      expect(firstDifference(decompressDataPage('SNAPPY', packed, n), original)).toBe(-1);
      expect(firstDifference(decompressDictionaryPage('SNAPPY', packed, n), original)).toBe(-1);
      for (const prefix of [period + 1, 2 * period + 5, 4099, 65536 + 11, Math.floor(n / 2) + 3, n - 1]) {
        expect(firstDifference(decompressPrefix('SNAPPY', packed, n, prefix).subarray(0, prefix), original.subarray(0, prefix))).toBe(-1);
      }
    });
  }

  it('copies at one offset after a literal, then at another offset reading the run', () => {
    // Built by hand: a 4-byte literal, five copies at offset 4 (one run of 5 × 12 bytes), then a copy at
    // offset 7 whose source lies inside that run, then three more at offset 4.
    const le = (n: number, bytes: number): number[] => Array.from({ length: bytes }, (_, k) => Math.floor(n / 256 ** k) & 255);
    const expected: number[] = [9, 8, 7, 6];
    const body: number[] = [(3 << 2) | 0, 9, 8, 7, 6];
    const copy = (len: number, offset: number): void => {
      body.push(((len - 1) << 2) | 2, ...le(offset, 2));
      for (let k = 0; k < len; k++) expected.push(expected[expected.length - offset]!);
    };
    for (let k = 0; k < 5; k++) copy(12, 4);
    copy(20, 7);
    for (let k = 0; k < 3; k++) copy(30, 4);
    expect(expected.length).toBeGreaterThan(127);
    const packed = Uint8Array.from([(expected.length & 0x7f) | 0x80, expected.length >> 7, ...body]);
    const want = Uint8Array.from(expected);
    expect(firstDifference(decompressDataPage('SNAPPY', packed, want.length), want)).toBe(-1);
    for (let prefix = 1; prefix <= want.length; prefix += 5) {
      expect(firstDifference(decompressPrefix('SNAPPY', packed, want.length, prefix).subarray(0, prefix), want.subarray(0, prefix))).toBe(-1);
    }
  });

  it('corrupt blocks are refused, not read past', () => {
    const bad = [
      [5, 1 << 2, 9], // a copy before any output
      [8, (3 << 2) | 0, 1, 2, 3, 4, ((4 - 1) << 2) | 2, 0, 0], // offset 0
      [8, (3 << 2) | 0, 1, 2, 3, 4, ((4 - 1) << 2) | 2, 9, 0], // offset past the output
      [10, (9 << 2) | 0, 1, 2, 3], // literal past the input
      [4, (3 << 2) | 0, 1, 2, 3, 4, (0 << 2) | 0, 7], // more elements than the declared length
      [6, (3 << 2) | 0, 1, 2, 3, 4], // ends before the declared length
      [20, (3 << 2) | 0, 1, 2, 3, 4, ((4 - 1) << 2) | 2, 4, 0, ((4 - 1) << 2) | 2, 4, 0, ((12 - 1) << 2) | 2, 4, 0], // a run past the declared length
      [30, (3 << 2) | 0, 1, 2, 3, 4, ((4 - 1) << 2) | 2, 4, 0, ((4 - 1) << 2) | 2, 4, 0, ((4 - 1) << 2) | 2, 17, 0], // after a run, an offset past the output
    ];
    for (const b of bad) {
      const packed = Uint8Array.from(b);
      expect(() => decompressDataPage('SNAPPY', packed, b[0]!), JSON.stringify(b)).toThrow(/corrupt Snappy page/);
    }
  });

  it('a declared length that disagrees with the page is refused', () => {
    const packed = new Uint8Array(snappy.compressSync(Buffer.from(sample(9, 500))));
    expect(() => decompressDataPage('SNAPPY', packed, 499)).toThrow(/corrupt Snappy page/);
  });
});
