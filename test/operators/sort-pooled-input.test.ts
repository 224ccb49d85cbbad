/**
 * The in-memory Sort concatenates its input batches into pooled scratch memory and gives it back when
 * its output ends. Output batches must therefore never be views of that memory: batches kept from one
 * sort stay intact while later sorts reuse (and overwrite) the same buffers, including sorts that run
 * interleaved with the first one's output.
 */
import { describe, expect, it } from 'vitest';
import { T, type Field, type Value } from '../../src/common/types.js';
import { batchRows, ColumnBuilder, type Batch } from '../../src/common/column.js';
import { ExternalSort } from '../../src/physical/operators/external-sort.js';
import { compileComparator, type SortKey } from '../../src/physical/sort-key.js';
import { concatBatches } from '../../src/common/column.js';
import { identity } from '../../src/physical/operators/sort.js';
import { makeCtx, rng, Source } from './helpers.js';

const FIELDS: Field[] = [
  { name: 'g', type: T.int4 },
  { name: 'ts', type: T.timestamp },
  { name: 'v', type: T.float8 },
  { name: 's', type: T.text },
];

/** n rows in batches of 4,096: g with NULLs, whole-second timestamps, doubles with NULLs, short text. */
function batches(n: number, seed: number): Batch[] {
  const r = rng(seed);
  const out: Batch[] = [];
  for (let s = 0; s < n; s += 4096) {
    const m = Math.min(4096, n - s);
    const bs = FIELDS.map((f) => new ColumnBuilder(f.type, m));
    for (let i = 0; i < m; i++) {
      bs[0]!.push(r() < 0.05 ? null : Math.floor(r() * 300));
      bs[1]!.push((1.6e9 + Math.floor(r() * 1e7)) * 1e6);
      bs[2]!.push(r() < 0.1 ? null : r() * 1000);
      bs[3]!.push(r() < 0.1 ? null : `s${Math.floor(r() * 50)}é`);
    }
    out.push({ columns: bs.map((b) => b.finish()), length: m });
  }
  return out;
}

function rowsOf(bs: readonly Batch[]): Value[][] {
  return bs.flatMap((b) => batchRows(b));
}

/** (g ASC NULLS LAST, ts DESC), stable: a plain comparison sort of the rows. */
function reference(input: Batch[]): string[] {
  const rows = rowsOf(input);
  const idx = rows.map((_, i) => i);
  idx.sort((a, b) => {
    const ga = rows[a]![0] as number | null;
    const gb = rows[b]![0] as number | null;
    if (ga !== gb) {
      if (ga === null) return 1;
      if (gb === null) return -1;
      return ga - gb;
    }
    return (rows[b]![1] as number) - (rows[a]![1] as number) || a - b;
  });
  return idx.map((i) => JSON.stringify(rows[i]));
}

const KEYS: SortKey[] = [
  { col: 0, type: T.int4, desc: false, nullsFirst: false },
  { col: 1, type: T.timestamp, desc: true, nullsFirst: false },
];

async function sortAll(input: Batch[]): Promise<Batch[]> {
  const out: Batch[] = [];
  for await (const b of new ExternalSort(new Source(FIELDS, input), KEYS).execute(makeCtx())) out.push(b);
  return out;
}

describe('Sort over pooled input memory', () => {
  it('kept output batches survive later sorts that reuse the pool', async () => {
    const a = batches(200_000, 1);
    const first = await sortAll(a);
    const expected = reference(a);
    for (let k = 0; k < 3; k++) await sortAll(batches(210_000, 10 + k));
    expect(rowsOf(first).map((r) => JSON.stringify(r))).toEqual(expected);
  });

  it('a sort started while another one is still emitting gets buffers of its own', async () => {
    const a = batches(150_000, 2);
    const b = batches(160_000, 3);
    const itA = new ExternalSort(new Source(FIELDS, a), KEYS).execute(makeCtx())[Symbol.asyncIterator]();
    const kept: Batch[] = [];
    const first = await itA.next();
    kept.push(first.value as Batch);
    // The whole second sort runs (and gives its buffers back) between two batches of the first.
    const other = await sortAll(b);
    for (let r = await itA.next(); r.done !== true; r = await itA.next()) kept.push(r.value);
    expect(rowsOf(kept).map((r) => JSON.stringify(r))).toEqual(reference(a));
    expect(rowsOf(other).map((r) => JSON.stringify(r))).toEqual(reference(b));
  });

  it('an output abandoned early gives its buffers back and later sorts are still right', async () => {
    const a = batches(120_000, 4);
    const it = new ExternalSort(new Source(FIELDS, a), KEYS).execute(makeCtx())[Symbol.asyncIterator]();
    await it.next();
    await it.return?.(undefined);
    const c = batches(130_000, 5);
    expect(rowsOf(await sortAll(c)).map((r) => JSON.stringify(r))).toEqual(reference(c));
  });

  it('text keys ranked through pooled arrays: computed dictionaries, kept batches and later sorts', async () => {
    const keys: SortKey[] = [
      { col: 3, type: T.text, desc: true, nullsFirst: true },
      { col: 0, type: T.int4, desc: false, nullsFirst: false },
    ];
    const byComparator = (input: Batch[]): string[] => {
      const all = concatBatches(FIELDS.map((f) => f.type), input);
      const cmp = compileComparator(keys);
      const rows = batchRows(all);
      return Array.from(cmp.sort(identity(all.length), cmp.view(all)), (i) => JSON.stringify(rows[i]));
    };
    const run = async (input: Batch[]): Promise<Batch[]> => {
      const out: Batch[] = [];
      for await (const b of new ExternalSort(new Source(FIELDS, input), keys).execute(makeCtx())) out.push(b);
      return out;
    };
    const a = batches(180_000, 6);
    const first = await run(a);
    const c = batches(190_000, 7);
    const second = await run(c);
    await sortAll(batches(200_000, 8));
    expect(rowsOf(first).map((r) => JSON.stringify(r))).toEqual(byComparator(a));
    expect(rowsOf(second).map((r) => JSON.stringify(r))).toEqual(byComparator(c));
  });

  it('one double key with NULLs, decoded over its own pooled column, in every direction', async () => {
    for (const [desc, nullsFirst] of [[false, false], [true, true], [false, true], [true, false]] as const) {
      const keys: SortKey[] = [{ col: 2, type: T.float8, desc, nullsFirst }];
      const input = batches(140_000, desc ? 11 : 12);
      const all = concatBatches(FIELDS.map((f) => f.type), input);
      const cmp = compileComparator(keys);
      const rows = batchRows(all);
      const want = Array.from(cmp.sort(identity(all.length), cmp.view(all)), (i) => JSON.stringify(rows[i]));
      const out: Batch[] = [];
      for await (const b of new ExternalSort(new Source(FIELDS, input), keys).execute(makeCtx())) out.push(b);
      await sortAll(batches(150_000, 13));
      expect(rowsOf(out).map((r) => JSON.stringify(r))).toEqual(want);
    }
  });
});
