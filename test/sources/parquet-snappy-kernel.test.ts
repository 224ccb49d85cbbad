/**
 * The WebAssembly Snappy kernel (snappy-kernel.ts) on blocks built element by element here, so that
 * every kind of element is met at every length and offset the kernel treats apart: literals of 1 to
 * 16 bytes (one sixteen-byte copy), longer ones (memory.copy) and lengths in 1 to 4 extra bytes; copies
 * of 1 to 64 bytes at offsets 1-7 (byte by byte), 8-15 (eight bytes a step) and 16 and up (sixteen),
 * overlapping what they write (those of 16 bytes or fewer at offset 8 and up in one or two steps, no loop). The expected bytes are the block's meaning, worked out here, and the
 * JavaScript decoder must agree. Pages read_parquet decodes are views of the kernel's memory (no array
 * per page), and a dictionary page stays as it was while the kernel decodes the data pages after it.
 */
import { describe, expect, it } from 'vitest';
import { decompressDataPage, decompressDictionaryPage, snappyDecodeWith } from '../../src/storage/table-functions/parquet-codecs.js';
import { snappyKernel } from '../../src/storage/snappy-kernel.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s >>> 8;
  };
}

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

/** A block of the given elements, and the bytes it stands for. */
class Block {
  readonly elements: number[] = [];
  readonly output: number[] = [];

  literal(bytes: readonly number[], extra = 0): this {
    const n = bytes.length - 1;
    // extra: the length in that many bytes after the tag even where fewer would do (as writers may).
    const bytesFor = extra > 0 ? extra : n < 60 ? 0 : n < 256 ? 1 : n < 65536 ? 2 : n < 1 << 24 ? 3 : 4;
    if (bytesFor === 0) this.elements.push(n << 2);
    else {
      this.elements.push((59 + bytesFor) << 2);
      for (let k = 0; k < bytesFor; k++) this.elements.push((n >>> (8 * k)) & 255);
    }
    this.elements.push(...bytes);
    this.output.push(...bytes);
    return this;
  }

  /** A copy of len bytes `offset` back, in the element kind given (1: one offset byte, 2: two, 3: four). */
  copy(len: number, offset: number, kind: 1 | 2 | 3): this {
    if (kind === 1) this.elements.push(1 | ((len - 4) << 2) | ((offset >>> 8) << 5), offset & 255);
    else if (kind === 2) this.elements.push(2 | ((len - 1) << 2), offset & 255, offset >>> 8);
    else this.elements.push(3 | ((len - 1) << 2), offset & 255, (offset >>> 8) & 255, (offset >>> 16) & 255, offset >>> 24);
    for (let k = 0; k < len; k++) this.output.push(this.output[this.output.length - offset]!);
    return this;
  }

  bytes(): Uint8Array {
    return Uint8Array.from([...varint(this.output.length), ...this.elements]);
  }
}

const equal = (a: Uint8Array, b: readonly number[] | Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

function decodeBoth(block: Block): [Uint8Array, Uint8Array] {
  const input = block.bytes();
  return [snappyDecodeWith('wasm', input, block.output.length), snappyDecodeWith('js', input, block.output.length)];
}

describe('the Snappy kernel', () => {
  it('is available here', () => {
    expect(snappyKernel()).not.toBeNull();
  });

  it('literals of every length to 300 bytes, with lengths in 0 to 4 extra bytes', () => {
    const r = rng(1);
    for (let n = 1; n <= 300; n++) {
      for (const extra of n <= 60 ? [0, 1, 2] : [0, 2, 3, 4]) {
        const b = new Block().literal(Array.from({ length: n }, () => r() & 255), extra).literal([1, 2, 3]);
        const [wasm, js] = decodeBoth(b);
        expect([n, extra, equal(wasm, b.output)]).toEqual([n, extra, true]);
        expect(equal(js, b.output)).toBe(true);
      }
    }
  });

  it('copies of 1 to 64 bytes at offsets 1 to 40 and far back, in each element kind', () => {
    const r = rng(2);
    const head = Array.from({ length: 3000 }, () => r() & 255);
    for (let offset = 1; offset <= 40; offset++) {
      for (let len = 1; len <= 64; len++) {
        for (const kind of [1, 2, 3] as const) {
          if (kind === 1 && (len < 4 || len > 11)) continue;
          // A literal after the copy: the copy's sixteen-byte steps write past its end, which must not show.
          const b = new Block().literal(head.slice(0, 64)).copy(len, offset, kind).literal([200, 201]).copy(len, offset + 2, kind);
          const [wasm, js] = decodeBoth(b);
          expect([offset, len, kind, equal(wasm, b.output)]).toEqual([offset, len, kind, true]);
          expect(equal(js, b.output)).toBe(true);
        }
      }
    }
    for (const offset of [64, 255, 256, 2047, 2048, 2999]) {
      const b = new Block().literal(head).copy(11, Math.min(offset, 2047), 1).copy(64, offset, 2).copy(33, offset, 3);
      const [wasm, js] = decodeBoth(b);
      expect([offset, equal(wasm, b.output)]).toEqual([offset, true]);
      expect(equal(js, b.output)).toBe(true);
    }
  });

  it('random blocks of every element kind agree with their meaning and with the JavaScript decoder', () => {
    const r = rng(3);
    for (let t = 0; t < 300; t++) {
      const b = new Block().literal([r() & 255]);
      const elements = 1 + (r() % 200);
      for (let e = 0; e < elements; e++) {
        const k = r() % 4;
        if (k === 0) b.literal(Array.from({ length: 1 + (r() % (r() % 8 === 0 ? 200 : 20)) }, () => r() & 255));
        else {
          const offset = 1 + (r() % Math.min(b.output.length, k === 1 ? 2047 : 70000));
          const len = k === 1 ? 4 + (r() % 8) : 1 + (r() % 64);
          b.copy(len, offset, k as 1 | 2 | 3);
        }
      }
      const [wasm, js] = decodeBoth(b);
      expect([t, equal(wasm, b.output)]).toEqual([t, true]);
      expect(equal(js, b.output)).toBe(true);
    }
  });

  it('fails on a copy or literal running past the declared length by one byte, a reference one byte too far back, and a block one element short', () => {
    const good = new Block().literal([1, 2, 3, 4, 5, 6, 7, 8]).copy(20, 8, 2);
    const n = good.output.length;
    const bad: [number[], number][] = [
      // The copy one byte longer than the output has room for.
      [[...varint(n), ...good.elements.slice(0, 9), 2 | (20 << 2), 8, 0], n],
      // A reference 9 back after 8 bytes.
      [[...varint(n), ...good.elements.slice(0, 9), 2 | (19 << 2), 9, 0], n],
      // The literal alone: 20 bytes short.
      [[...varint(n), ...good.elements.slice(0, 9)], n],
      // A literal one byte longer than the input holds.
      [[...varint(9), 8 << 2, 1, 2, 3, 4, 5, 6, 7, 8], 9],
    ];
    expect(equal(snappyDecodeWith('wasm', good.bytes(), n), good.output)).toBe(true);
    for (const [bytes, len] of bad) {
      expect(() => snappyDecodeWith('wasm', Uint8Array.from(bytes), len)).toThrow('corrupt Snappy page');
      expect(() => snappyDecodeWith('js', Uint8Array.from(bytes), len)).toThrow('corrupt Snappy page');
    }
  });
});

describe("read_parquet's pages from the kernel", () => {
  const page = (seed: number, n: number): Block => {
    const r = rng(seed);
    const b = new Block();
    while (b.output.length < n) {
      const s = [...`user-${r() % 1000000}`].map((c) => c.charCodeAt(0));
      b.literal([s.length, 0, 0, 0, ...s]);
      if (b.output.length > 64) b.copy(16, 16, 2);
    }
    return b;
  };

  it('data pages are read in the kernel memory (no array per page); a dictionary page stays intact while data pages are decoded', () => {
    const dict = page(5, 100_000);
    const d1 = page(6, 200_000);
    const d2 = page(7, 150_000);
    const dictPage = decompressDictionaryPage('SNAPPY', dict.bytes(), dict.output.length);
    const a = decompressDataPage('SNAPPY', d1.bytes(), d1.output.length);
    expect(equal(a, d1.output)).toBe(true);
    const b = decompressDataPage('SNAPPY', d2.bytes(), d2.output.length);
    expect(equal(b, d2.output)).toBe(true);
    // Both data pages in the same memory: nothing allocated per page.
    expect(a.buffer).toBe(b.buffer);
    expect(dictPage.buffer).not.toBe(b.buffer);
    expect(equal(dictPage, dict.output)).toBe(true);
  });
});
