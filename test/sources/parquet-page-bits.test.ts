/**
 * The two page decoders the pickers by rank read: PageRanks.fromLevels (definition levels straight to
 * present bits and ranks) and PackedStream.gather (a page's bit-packed indexes end to end). Checked
 * against a model over random pages: runs of every kind and length, RLE runs that leave the next run
 * off a byte boundary, a last bit-packed run cut short by the page's rows (its padding not read),
 * widths 1 to 25, and pages that end early or pass their end.
 */
import { describe, expect, it } from 'vitest';
import { PageRanks } from '../../src/storage/table-functions/parquet-ranked-pick.js';
import { PackedStream } from '../../src/storage/table-functions/parquet-packed-stream.js';

/** A small deterministic generator (xorshift), so a failure names its seed. */
function random(seed: number): (n: number) => number {
  let x = seed * 2654435761 + 1;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

const varint = (out: number[], v: number): void => {
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
};

/** values (of `width` bits) as a run of groups, each value's bits from bit k·width on; padding `pad`. */
function packRun(out: number[], values: number[], width: number, pad: number): void {
  const groups = Math.ceil(values.length / 8);
  varint(out, groups * 2 + 1);
  const bytes = new Array<number>(groups * width).fill(0);
  for (let k = 0; k < groups * 8; k++) {
    const v = k < values.length ? values[k]! : pad;
    for (let bit = 0; bit < width; bit++) if (Math.floor(v / 2 ** bit) % 2 === 1) bytes[(k * width + bit) >> 3]! |= 1 << ((k * width + bit) & 7);
  }
  out.push(...bytes);
}

/**
 * Levels for `count` rows in random runs: RLE runs of 1 to 40 rows (either level), bit-packed runs of
 * 1 to 40 groups; the last run may hold more rows than the page (its extra rows are padding, ones).
 */
function randomLevels(rnd: (n: number) => number, count: number): { levels: number[]; bytes: Uint8Array } {
  const levels: number[] = [];
  const out: number[] = [];
  const nullEvery = 2 + rnd(12);
  while (levels.length < count) {
    if (rnd(3) === 0) {
      const n = 1 + rnd(40);
      const level = rnd(4) === 0 ? 0 : 1;
      varint(out, n * 2);
      out.push(level);
      for (let i = 0; i < n; i++) levels.push(level);
    } else {
      const values = Array.from({ length: 8 * (1 + rnd(40)) }, () => (rnd(nullEvery) === 0 ? 0 : 1));
      packRun(out, values, 1, 1);
      levels.push(...values);
    }
  }
  // Bytes past the levels: a reader must not take them for levels.
  out.push(0xff, 0xff, 0xff);
  return { levels: levels.slice(0, count), bytes: new Uint8Array(out) };
}

describe('PageRanks.fromLevels', () => {
  it('gives the present bits, ranks and count of random pages', () => {
    const pr = new PageRanks();
    for (let seed = 1; seed <= 400; seed++) {
      const rnd = random(seed);
      const count = 1 + rnd(seed % 5 === 0 ? 20 : 3000);
      const { levels, bytes } = randomLevels(rnd, count);
      const present = pr.fromLevels(bytes, 0, bytes.length - 3, count);
      expect(present, `seed ${seed}`).toBe(levels.filter((l) => l === 1).length);
      let rank = 0;
      for (let t = 0; t <= count; t++) {
        if (pr.rankAt(t) !== rank) expect(pr.rankAt(t), `seed ${seed}, rank at ${t}`).toBe(rank);
        if (t < count) {
          const bit = (pr.bits[t >> 3]! >> (t & 7)) & 1;
          if (bit !== levels[t]) expect(bit, `seed ${seed}, bit ${t}`).toBe(levels[t]);
          rank += levels[t]!;
        }
      }
      // Rows past count in the last byte are not present.
      if ((count & 7) !== 0) expect(pr.bits[count >> 3]! >> (count & 7), `seed ${seed}`).toBe(0);
      const flags = new Uint8Array(count);
      pr.flagsInto(flags, count);
      expect(Array.from(flags), `seed ${seed}`).toEqual(levels.map((l) => 1 - l));
    }
  });

  it('refuses levels that end early or pass their end', () => {
    const pr = new PageRanks();
    // A bit-packed run of 2 groups (16 rows) for a page of 20 rows: the levels end early.
    expect(() => pr.fromLevels(new Uint8Array([5, 0xff, 0xff]), 0, 3, 20)).toThrow('definition levels end early');
    // A run header that says 4 groups, with 2 bytes behind it.
    expect(() => pr.fromLevels(new Uint8Array([9, 0xff, 0xff]), 0, 3, 32)).toThrow('definition levels extend past their page');
    // An RLE run without its value.
    expect(() => pr.fromLevels(new Uint8Array([40]), 0, 1, 20)).toThrow('definition levels end early');
    expect(() => pr.fromLevels(new Uint8Array([40, 1]), 0, 3, 20)).toThrow('definition levels extend past their page');
  });
});

describe('PackedStream.gather', () => {
  it('lays bit-packed runs end to end for every width 1 to 25', () => {
    const stream = new PackedStream();
    for (let seed = 1; seed <= 300; seed++) {
      const rnd = random(seed);
      const width = 1 + ((seed - 1) % 25);
      const n = 1 + rnd(2000);
      const values = Array.from({ length: n }, () => rnd(2 ** width));
      const out: number[] = [];
      for (let i = 0; i < n; ) {
        // Runs of 1 to 40 groups; the last one padded with the largest value (read by no rank below n).
        const take = Math.min(n - i, 8 * (1 + rnd(40)));
        packRun(out, values.slice(i, i + take), width, 2 ** width - 1);
        i += take;
      }
      const bytes = new Uint8Array(out);
      expect(stream.gather(bytes, 0, bytes.length, width, n), `seed ${seed}`).toBe(true);
      const mask = 2 ** width - 1;
      for (let r = 0; r <= n; r++) {
        const at = r * width;
        const v = (stream.view.getUint32(at >>> 3, true) >>> (at & 7)) & mask;
        // Rank n (read by a NULL row past the last present one) holds zeros.
        const want = r < n ? values[r]! : 0;
        if (v !== want) expect(v, `seed ${seed}, width ${width}, rank ${r}`).toBe(want);
      }
    }
  });

  it('leaves a page with an RLE run to the unpackers, and refuses runs that end early or pass their end', () => {
    const stream = new PackedStream();
    const out: number[] = [];
    packRun(out, [1, 2, 3, 4, 5, 6, 7, 0], 3, 0);
    out.push(8 * 2, 5);
    expect(stream.gather(new Uint8Array(out), 0, out.length, 3, 16)).toBe(false);
    // The first run is its header and 3 bytes.
    expect(stream.gather(new Uint8Array(out.slice(0, 4)), 0, 4, 3, 8)).toBe(true);
    expect(() => stream.gather(new Uint8Array(out.slice(0, 3)), 0, 3, 3, 8)).toThrow('encoded values extend past their page');
    expect(() => stream.gather(new Uint8Array(out.slice(0, 4)), 0, 4, 3, 16)).toThrow('encoded values end early');
    expect(() => stream.gather(new Uint8Array(out), 0, 0, 3, 8)).toThrow('encoded values end early');
  });
});
