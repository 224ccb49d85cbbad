/**
 * The WebAssembly SIMD kernel that lists special-byte positions for the CSV scanner, against the
 * scalar loop that stands in for it without WebAssembly: every byte value, windows at any offset and
 * of any length (including the partial last 64-byte block), needles that coincide.
 */
import { describe, expect, it } from 'vitest';
import { INDEX_WINDOW, SpecialByteIndex } from '../../src/storage/special-byte-index.js';
import { rng } from '../common/pg-helper.js';

function expected(buf: Uint8Array, from: number, to: number, needles: number[]): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) if (needles.includes(buf[i]!) || buf[i] === 10 || buf[i] === 13) out.push(i);
  return out;
}

describe('SpecialByteIndex', () => {
  it('uses the WebAssembly kernel on this Node', () => {
    expect(new SpecialByteIndex(44, 34, 34).simd).toBe(true);
    expect(new SpecialByteIndex(44, 34, 34, false).simd).toBe(false);
  });

  it('finds the same positions as a plain loop, for any window and byte values', () => {
    const r = rng(3);
    const needleSets = [
      [44, 34, 34],
      [59, 39, 92],
      [9, 34, 255],
      [0, 128, 127],
    ];
    for (let trial = 0; trial < 600; trial++) {
      const needles = needleSets[trial % needleSets.length]!;
      const simd = new SpecialByteIndex(needles[0]!, needles[1]!, needles[2]!);
      const scalar = new SpecialByteIndex(needles[0]!, needles[1]!, needles[2]!, false);
      const long = trial % 50 === 0;
      const n = long ? INDEX_WINDOW + 200 : Math.floor(r() * 300);
      const buf = new Uint8Array(n);
      // Dense with needles in some trials (every byte special), sparse or uniform in others.
      const density = [1, 0.5, 0.05, 0][trial % 4]!;
      for (let i = 0; i < n; i++) buf[i] = r() < density ? (r() < 0.4 ? [10, 13][i & 1]! : needles[Math.floor(r() * 3)]!) : Math.floor(r() * 256);
      const from = Math.floor(r() * Math.min(n, 70));
      const to = Math.min(n, from + (long ? INDEX_WINDOW : Math.floor(r() * (n - from + 1))));
      const want = expected(buf, from, to, needles);
      for (const ix of [simd, scalar]) {
        const got = ix.fill(buf, from, to);
        expect({ trial, simd: ix.simd, got: Array.from(ix.positions.subarray(0, got)) }).toEqual({ trial, simd: ix.simd, got: want });
      }
    }
  });

  it('keeps each index\'s positions apart although the kernel and its memory are shared', () => {
    const indexes = Array.from({ length: 5000 }, (_, i) => new SpecialByteIndex(i % 2 === 0 ? 44 : 59, 34, 34));
    const text = Buffer.from('a,b;c\nd"e');
    const counts = indexes.map((ix) => ix.fill(text, 0, text.length));
    expect(Array.from(indexes[0]!.positions.subarray(0, counts[0]))).toEqual([1, 5, 7]);
    expect(Array.from(indexes[1]!.positions.subarray(0, counts[1]))).toEqual([3, 5, 7]);
    expect(Array.from(indexes[4998]!.positions.subarray(0, counts[4998]))).toEqual([1, 5, 7]);
  });

  it('ignores what earlier, longer windows left in its memory', () => {
    const ix = new SpecialByteIndex(44, 34, 34);
    ix.fill(Buffer.from(',,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,'), 0, 80);
    const n = ix.fill(Buffer.from('ab,c'), 0, 4);
    expect(Array.from(ix.positions.subarray(0, n))).toEqual([2]);
    expect(() => ix.fill(new Uint8Array(INDEX_WINDOW + 1), 0, INDEX_WINDOW + 1)).toThrow(RangeError);
  });
});
