/**
 * Sorts and ranking windows on double keys, which the radix sort orders by the words of each value's
 * IEEE image: -0 with 0, every NaN (whatever its sign and payload) above +Infinity, NULLs placed by
 * NULLS FIRST / LAST, ties in input order. Checked against a comparator sort and against PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { radixPermutation, sortRunAsync } from '../../src/physical/operators/sort.js';
import { T } from '../../src/common/types.js';
import { makeColumn, type Batch } from '../../src/common/column.js';
import { compileComparator, type SortKey } from '../../src/physical/sort-key.js';
import { testContext } from '../aggregate/helpers.js';
import { sortWordPairs } from '../../src/physical/word-pair-msd-sort.js';
import { agreementSuite } from '../harness/agree.js';
import { rng } from '../common/pg-helper.js';

/** PostgreSQL's float8 order: NaN above everything, -0 equal to 0. */
function pgCompare(a: number, b: number): number {
  const an = Number.isNaN(a);
  const bn = Number.isNaN(b);
  if (an || bn) return an === bn ? 0 : an ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A NaN with the sign bit set and another payload: must still sort as PostgreSQL's one NaN. */
function oddNaN(): number {
  const f = new Float64Array(1);
  const w = new Uint32Array(f.buffer);
  w[1] = 0xfff00001;
  w[0] = 0x1234;
  return f[0]!;
}

const SPECIALS = [0, -0, NaN, oddNaN(), Infinity, -Infinity, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, -Number.MAX_VALUE, 1, -1, 0.5, -0.5];

function values(seed: number, n: number): { data: Float64Array; nulls: Uint8Array } {
  const r = rng(seed);
  const data = new Float64Array(n);
  const nulls = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const x = r();
    if (x < 0.05) nulls[i] = 1;
    else if (x < 0.2) data[i] = SPECIALS[Math.floor(r() * SPECIALS.length)]!;
    else if (x < 0.4) data[i] = Math.floor(r() * 20) - 10; // ties
    else data[i] = (r() - 0.5) * 10 ** Math.floor(r() * 12 - 4);
  }
  return { data, nulls };
}

describe('radixPermutation on doubles', () => {
  for (const n of [50, 300, 5000, 70000]) {
    it(`${n} rows: every direction and NULL placement matches a stable comparator sort`, () => {
      const { data, nulls } = values(n, n);
      for (const desc of [false, true]) {
        for (const nullsFirst of [false, true]) {
          const ids = Array.from({ length: n }, (_, i) => i);
          ids.sort((a, b) => {
            const na = nulls[a] === 1;
            const nb = nulls[b] === 1;
            if (na || nb) return na === nb ? a - b : na === nullsFirst ? -1 : 1;
            const c = pgCompare(data[a]!, data[b]!);
            return (desc ? -c : c) || a - b;
          });
          const got = Array.from(radixPermutation(data, nulls, n, desc, nullsFirst));
          expect(got).toEqual(ids);
        }
      }
    });
  }

  it('without a null mask, and on a view that starts inside its buffer', () => {
    const { data } = values(9, 4097);
    const view = new Float64Array(data.buffer, 8, 4096);
    const got = Array.from(radixPermutation(view, null, 4096, false, false));
    const ids = Array.from({ length: 4096 }, (_, i) => i).sort((a, b) => pgCompare(view[a]!, view[b]!) || a - b);
    expect(got).toEqual(ids);
  });
});

describe('high word first (double keys of 65,536 rows and more)', () => {
  // Values that share their high word and differ in the low one: 1 + k·ε. Few k give runs of equal high
  // words short enough for insertion sort, many k runs long enough for the run's own radix sort.
  const cases: [string, (r: () => number) => number][] = [
    ['short runs of equal high words', (r) => 1 + Math.floor(r() * 40) * Number.EPSILON],
    ['long runs of equal high words', (r) => (r() < 0.5 ? -1 : 1) * (1 + Math.floor(r() * 50_000) * Number.EPSILON)],
    ['low words that differ only in their top byte', (r) => 1 + Math.floor(r() * 256) * 2 ** 24 * Number.EPSILON],
    ['one value', () => 2.5],
    ['spread values with specials and ties', (r) => (r() < 0.1 ? SPECIALS[Math.floor(r() * SPECIALS.length)]! : r() < 0.2 ? Math.floor(r() * 10) : r() * 1e6)],
  ];
  for (const [name, gen] of cases) {
    it(`${name}: equals a stable comparator sort in every direction`, () => {
      const n = 70_000;
      const r = rng(name.length);
      const data = new Float64Array(n);
      const nulls = new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        if (r() < 0.03) nulls[i] = 1;
        else data[i] = gen(r);
      }
      for (const desc of [false, true]) {
        for (const nullsFirst of [false, true]) {
          const got = radixPermutation(data, nulls, n, desc, nullsFirst);
          expectSorted(data, nulls, got, desc, nullsFirst);
          const noNulls = radixPermutation(data, null, n, desc, nullsFirst);
          expectSorted(data, null, noNulls, desc, nullsFirst);
        }
      }
    });
  }
});

/** Sorted by PostgreSQL's order, ties (and NULLs) in input order; checked in one pass. */
function expectSorted(data: Float64Array, nulls: Uint8Array | null, perm: Uint32Array, desc: boolean, nullsFirst: boolean): void {
  const n = data.length;
  expect(perm.length).toBe(n);
  const seen = new Uint8Array(n);
  let bad = -1;
  for (let i = 0; i < n && bad < 0; i++) {
    const r = perm[i]!;
    if (seen[r] === 1) bad = i;
    seen[r] = 1;
    if (i === 0) continue;
    const p = perm[i - 1]!;
    const np = nulls !== null && nulls[p] === 1;
    const nr = nulls !== null && nulls[r] === 1;
    let c: number;
    if (np || nr) c = np === nr ? 0 : np === nullsFirst ? -1 : 1;
    else c = desc ? -pgCompare(data[p]!, data[r]!) : pgCompare(data[p]!, data[r]!);
    if (c > 0 || (c === 0 && p > r)) bad = i;
  }
  expect(bad, `first row out of order at ${bad}`).toBe(-1);
}

describe('MSD sort of word pairs (double keys of millions of rows)', () => {
  it('sortWordPairs orders random, clustered and tied pairs stably', () => {
    const n = 200_000;
    const r = rng(11);
    const hi = new Uint32Array(n);
    const lo = new Uint32Array(n);
    const idx = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      idx[i] = i;
      const x = r();
      // A shared top, a few distinct middles, random and tied low words.
      hi[i] = x < 0.3 ? 0x80000000 + Math.floor(r() * 4) : Math.floor(r() * 2 ** 32);
      lo[i] = x < 0.5 ? Math.floor(r() * 3) : Math.floor(r() * 2 ** 32);
    }
    const h0 = hi.slice();
    const l0 = lo.slice();
    const want = Array.from(idx).sort((a, b) => h0[a]! - h0[b]! || l0[a]! - l0[b]! || a - b);
    const steps = sortWordPairs(idx, hi, lo, new Uint32Array(n), new Uint32Array(n), new Uint32Array(n), n);
    let yields = 0;
    while (steps.next().done !== true) yields++;
    expect(Array.from(idx)).toEqual(want);
    expect(yields).toBeGreaterThan(0);
    // The key words moved along with their rows.
    let moved = 0;
    for (let i = 0; i < n; i++) if (hi[i] === h0[idx[i]!] && lo[i] === l0[idx[i]!]) moved++;
    expect(moved).toBe(n);
  });

  it('radixPermutation past the MSD threshold: specials, ties, NULLs, both directions', () => {
    // About 5% of the rows are NULL; the non-null rows must still number more than the threshold (2^22).
    const n = (1 << 22) + (1 << 19);
    const { data, nulls } = values(5, n);
    expectSorted(data, nulls, radixPermutation(data, nulls, n, false, false), false, false);
    expectSorted(data, nulls, radixPermutation(data, nulls, n, true, true), true, true);
  }, 120_000);

  it('past the MSD threshold the key column comes back decoded in sorted order, unless it holds -0', async () => {
    const ctx = testContext();
    const n = (1 << 22) + 1234;
    // No -0 in these values (NaNs of any payload, infinities, subnormals, ties and NULLs are kept).
    const { data, nulls } = values(9, n);
    for (let i = 0; i < n; i++) if (Object.is(data[i], -0)) data[i] = 0.25;
    for (const [desc, nullsFirst] of [
      [false, false],
      [true, true],
      [false, true],
    ] as const) {
      const keys: SortKey[] = [{ col: 0, type: T.float8, desc, nullsFirst }];
      const b: Batch = { columns: [makeColumn(T.float8, data, nulls)], length: n };
      const run = await sortRunAsync(b, keys, compileComparator(keys), ctx);
      expectSorted(data, nulls, run.order, desc, nullsFirst);
      const col = run.sorted?.get(0);
      expect(col).toBeDefined();
      let bad = 0;
      for (let i = 0; i < n; i++) {
        const r = run.order[i]!;
        const isNull = nulls[r] === 1;
        if (isNull !== (col!.nulls !== null && col!.nulls[i] === 1)) bad++;
        // NaN payloads are not kept (PostgreSQL has one NaN); every other value is, bit for bit.
        else if (!isNull && !Object.is(col!.data[i], data[r]) && !(Number.isNaN(col!.data[i]) && Number.isNaN(data[r]))) bad++;
      }
      expect(bad).toBe(0);
    }
    // One -0 among the rows: -0 and 0 share an image, so the column is gathered, not decoded.
    const withNegZero = Float64Array.from(data);
    withNegZero[n - 5] = -0;
    const keys: SortKey[] = [{ col: 0, type: T.float8, desc: false, nullsFirst: false }];
    const run = await sortRunAsync({ columns: [makeColumn(T.float8, withNegZero, nulls)], length: n }, keys, compileComparator(keys), ctx);
    expectSorted(withNegZero, nulls, run.order, false, false);
    expect(run.sorted?.get(0)).toBeUndefined();
  }, 180_000);
});

const ROWS = 4000;

function setupSql(seed: number): string[] {
  const r = rng(seed);
  const special = ["'NaN'", "'-0'", "'Infinity'", "'-Infinity'", '0', '1e-310', '-1e-310', '1.5', '-1.5'];
  const vals: string[] = [];
  for (let i = 1; i <= ROWS; i++) {
    const x = r();
    const f =
      x < 0.05
        ? 'NULL'
        : x < 0.2
          ? special[Math.floor(r() * special.length)]!
          : x < 0.45
            ? String(Math.floor(r() * 30) - 15)
            : ((r() - 0.4) * 10 ** Math.floor(r() * 8 - 2)).toString();
    vals.push(`(${i}, ${Math.floor(r() * 5)}, ${f})`);
  }
  return ['CREATE TABLE d (id int, g int, f float8)', `INSERT INTO d VALUES ${vals.join(', ')}`];
}

describe('double keys vs PostgreSQL', () => {
  const { agree } = agreementSuite(() => setupSql(4242));

  it('ORDER BY a double in every direction and NULL placement, ties by id', async () => {
    const qs: string[] = [];
    for (const dir of ['', ' DESC']) {
      for (const nulls of ['', ' NULLS FIRST', ' NULLS LAST']) {
        qs.push(`SELECT id, f FROM d ORDER BY f${dir}${nulls}, id`);
        // Without a tiebreak only the keys are determined (0 and -0 are peers, and print differently).
        qs.push(`SELECT f = 0, f::text FROM d WHERE f <> 0 OR f IS NULL ORDER BY f${dir}${nulls}`);
      }
    }
    await agree(qs);
  }, 300_000);

  it('ntile, percent_rank, cume_dist, rank over a double order, one partition and several', async () => {
    const r = rng(7);
    const qs: string[] = [];
    for (let i = 0; i < 16; i++) {
      const dir = r() < 0.5 ? ' DESC' : '';
      const nulls = r() < 0.5 ? ' NULLS FIRST' : ' NULLS LAST';
      const part = r() < 0.5 ? 'PARTITION BY g ' : '';
      const tiles = 1 + Math.floor(r() * 120);
      const w = `(${part}ORDER BY f${dir}${nulls})`;
      // ntile splits peer groups, so it gets a tiebreak to be deterministic; the rest are per peer group.
      const wt = `(${part}ORDER BY f${dir}${nulls}, id)`;
      qs.push(
        `SELECT id, ntile(${tiles}) OVER ${wt}, percent_rank() OVER w, cume_dist() OVER w, rank() OVER w, dense_rank() OVER w FROM d WINDOW w AS ${w} ORDER BY id`,
      );
      qs.push(`SELECT sum(n), sum(p), sum(c) FROM (SELECT ntile(${tiles}) OVER ${w} AS n, percent_rank() OVER ${w} AS p, cume_dist() OVER ${w} AS c FROM d) x`);
    }
    await agree(qs);
  }, 300_000);
});
