/**
 * The page decoders the pickers by rank read: PageRanks.fromLevels (definition levels straight to
 * present bits and ranks), PackedStream.gather (a page's bit-packed indexes end to end) and PageRuns
 * with its pickers (a page's indexes as runs ending at rows, picked a run at a time). Checked
 * against a model over random pages: runs of every kind and length, RLE runs that leave the next run
 * off a byte boundary, a last bit-packed run cut short by the page's rows (its padding not read),
 * widths 1 to 25, and pages that end early or pass their end.
 */
import { describe, expect, it } from 'vitest';
import { PageRanks } from '../../src/storage/table-functions/parquet-ranked-pick.js';
import { PackedStream } from '../../src/storage/table-functions/parquet-packed-stream.js';
import { PageRuns, pickRunCodes, pickRunsF64, pickRunsI32 } from '../../src/storage/table-functions/parquet-page-runs.js';

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

/**
 * Indexes for `present` values: RLE runs of 1 to 60 equal values and bit-packed runs of 1 to 3 groups
 * (their values repeating now and then, as neighbours the reader merges), at `width` bits; the last
 * run may hold more values than the page (padding).
 */
function randomIndexes(rnd: (n: number) => number, present: number, width: number, rleShare: number): { values: number[]; bytes: Uint8Array; counted: number } {
  const values: number[] = [];
  // Entries as the headers count them (a run, or a bit-packed value below present), before merging.
  let counted = 0;
  const out: number[] = [];
  const top = 2 ** width;
  const valueBytes = (width + 7) >> 3;
  while (values.length < present) {
    if (rnd(100) < rleShare) {
      const n = 1 + rnd(60);
      const v = rnd(top);
      varint(out, n * 2);
      for (let i = 0; i < valueBytes; i++) out.push(Math.floor(v / 2 ** (8 * i)) % 256);
      for (let i = 0; i < n; i++) values.push(v);
      counted++;
    } else {
      const run: number[] = [];
      for (let i = 8 * (1 + rnd(3)); i > 0; i--) run.push(run.length > 0 && rnd(3) === 0 ? run[run.length - 1]! : rnd(top));
      packRun(out, run, width, top - 1);
      counted += Math.min(run.length, present - values.length);
      values.push(...run);
    }
  }
  out.push(0xff, 0xff, 0xff, 0xff, 0xff);
  return { values: values.slice(0, present), bytes: new Uint8Array(out), counted };
}

describe('PageRuns: picking a run at a time', () => {
  it('picks what the model picks, for widths 1 to 32, from pages of RLE and bit-packed runs', () => {
    const pr = new PageRanks();
    const runs = new PageRuns();
    let taken = 0;
    for (let seed = 1; seed <= 500; seed++) {
      const rnd = random(seed);
      const count = 1 + rnd(seed % 7 === 0 ? 30 : 3000);
      const { levels, bytes: levelBytes } = randomLevels(rnd, count);
      // Half the pages' bits from NULL flags (PageRanks.build, as a page whose flags were written first).
      let present: number;
      if (seed % 2 === 0) present = pr.fromLevels(levelBytes, 0, levelBytes.length - 3, count);
      else {
        const flags = new Uint8Array(Math.ceil(count / 8) * 8 + 8);
        levels.forEach((l, t) => (flags[t] = 1 - l));
        pr.build(new Uint32Array(flags.buffer), flags, count);
        present = levels.filter((l) => l === 1).length;
      }
      if (present === 0) continue;
      const width = 1 + ((seed - 1) % 32);
      const { values, bytes, counted } = randomIndexes(rnd, present, width, seed % 5 === 0 ? 50 : 95);
      const max = runs.read(bytes, 0, bytes.length - 5, width, present, pr, count);
      // Refused exactly when the headers count more entries than a quarter of the present values.
      expect(max < 0, `seed ${seed}`).toBe(counted > present >> 2);
      if (max < 0) continue;
      taken++;
      // Equal neighbours merged.
      let entries = 0;
      for (let r = 0; r < present; r++) if (r === 0 || values[r] !== values[r - 1]) entries++;
      expect(runs.count, `seed ${seed}`).toBe(entries);
      expect(max, `seed ${seed}`).toBe(Math.max(...values));
      // Wanted rows: all, or about an eighth to nearly all, from a row offset.
      const row = rnd(1000);
      const density = [1, 2, 7, 8][rnd(4)]!;
      const only: number[] = [];
      for (let t = 0; t < count; t++) if (density === 8 || rnd(8) < density) only.push(row + t);
      const at = 3;
      const onlyArr = new Int32Array(at + only.length);
      onlyArr.set(only, at);
      const to = at + only.length;
      const dict = Float64Array.from({ length: 2 ** Math.min(width, 16) }, (_, i) => i * 0.5 - 3);
      const dictI = Int32Array.from(dict, (x) => x * 2);
      const outF = new Float64Array(to).fill(99);
      const outI = new Int32Array(to).fill(99);
      const outC = new Int32Array(to).fill(99);
      const nulls = new Uint8Array(to).fill(7);
      const small = width <= 16;
      if (small) {
        pickRunsF64(dict, runs, pr.bits, row, onlyArr, at, to, outF, nulls);
        pickRunsI32(dictI, runs, pr.bits, row, onlyArr, at, to, outI, nulls);
      }
      pickRunCodes(runs, pr.bits, row, onlyArr, at, to, outC, nulls);
      let rank = 0;
      let next = 0;
      for (let t = 0, j = at; t < count; t++) {
        if (next < only.length && only[next] === row + t) {
          const isNull = levels[t] === 0;
          const v = values[rank]!;
          const ctx = `seed ${seed}, width ${width}, row ${t}`;
          if (nulls[j] !== (isNull ? 1 : 0)) expect(nulls[j], ctx).toBe(isNull ? 1 : 0);
          if (outC[j] !== (isNull ? -1 : v | 0)) expect(outC[j], ctx).toBe(isNull ? -1 : v | 0);
          if (small && !isNull && (outF[j] !== dict[v] || outI[j] !== dictI[v])) expect([outF[j], outI[j]], ctx).toEqual([dict[v], dictI[v]]);
          next++;
          j++;
        }
        rank += levels[t]!;
      }
      // Nothing written before from.
      expect([outF[at - 1], outC[at - 1], nulls[at - 1]], `seed ${seed}`).toEqual([99, 99, 7]);
    }
    // Most pages are taken: the test checks the picks, not only the refusal.
    expect(taken).toBeGreaterThan(300);
  });

  it('refuses indexes that end early or pass their end, and pages without present values', () => {
    const pr = new PageRanks();
    const runs = new PageRuns();
    const levels = new Uint8Array([32 * 2, 1]);
    pr.fromLevels(levels, 0, 2, 32);
    // An RLE run of 20 values of 3 (width 2) for 32 present values: they end early.
    expect(() => runs.read(new Uint8Array([40, 3]), 0, 2, 2, 32, pr, 32)).toThrow('encoded values end early');
    // An RLE run without its value byte.
    expect(() => runs.read(new Uint8Array([64, 3]), 0, 1, 2, 32, pr, 32)).toThrow('encoded values extend past their page');
    // A bit-packed run of 4 groups (8 bytes at width 2) with 2 bytes behind it.
    expect(() => runs.read(new Uint8Array([9, 0, 0]), 0, 3, 2, 32, pr, 32)).toThrow('encoded values extend past their page');
    expect(runs.read(new Uint8Array([64, 3]), 0, 2, 2, 0, pr, 32)).toBe(-1);
    // The whole page one run: one entry, ending at the page's rows.
    expect(runs.read(new Uint8Array([64, 3]), 0, 2, 2, 32, pr, 32)).toBe(3);
    expect([runs.count, runs.ends[0], runs.values[0]]).toEqual([1, 32, 3]);
  });
});
