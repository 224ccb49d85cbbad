/**
 * HybridHashAggregate under tiny memory limits equals HashAggregate without a limit (as a multiset of
 * rows: spilled groups come out partition by partition), on high-cardinality keys and with every kind
 * of aggregate input (plain, FILTER, DISTINCT, ORDER BY inside the call), through each path: the
 * frozen table with hash partitions (one level and recursive), the buffering pass for aggregates whose
 * state grows, and the sort-based last resort; spill files are removed, also on errors.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { T, type Field, type Value } from '../../src/common/types.js';
import { batchRows, ColumnBuilder, type Batch } from '../../src/common/column.js';
import type { ExecContext } from '../../src/execution/context.js';
import { lookupAggregate } from '../../src/functions/aggregate/registry.js';
import type { ResolvedAggregate } from '../../src/functions/aggregate/aggregate-function.js';
import { PhysicalOperator } from '../../src/physical/operator.js';
import { HashAggregate, type HashAggregateConfig } from '../../src/physical/operators/hash-aggregate.js';
import { HybridHashAggregate } from '../../src/physical/operators/hybrid-hash-aggregate.js';
import { Source } from '../operators/helpers.js';
import { rng, rowKey, spillCtx, tempDir } from './helpers.js';


function resolve(name: string, types: (typeof T)[keyof typeof T][]): ResolvedAggregate {
  const r = lookupAggregate(name)!.resolve(types);
  if (r === null) throw new Error(`no ${name}`);
  return r;
}

const FIELDS: Field[] = [
  { name: 'k1', type: T.int4 },
  { name: 'k2', type: T.text },
  { name: 'v', type: T.int4 },
  { name: 't', type: T.text },
  { name: 'sep', type: T.text },
  { name: 'ord', type: T.int4 },
  { name: 'filt', type: T.bool },
];

function data(seed: number, rows: number, groups: number): Batch[] {
  const r = rng(seed);
  const out: Batch[] = [];
  for (let s = 0; s < rows; s += 1000) {
    const n = Math.min(1000, rows - s);
    const bs = FIELDS.map((f) => new ColumnBuilder(f.type, n));
    for (let i = 0; i < n; i++) {
      const row: Value[] = [
        r() < 0.05 ? null : Math.floor(r() * groups),
        r() < 0.05 ? null : ['x', 'y', 'long-' + 'q'.repeat(200)][Math.floor(r() * 3)]!,
        r() < 0.1 ? null : Math.floor(r() * 100),
        r() < 0.1 ? null : 'v' + Math.floor(r() * 1000),
        ',',
        Math.floor(r() * 5),
        r() < 0.2 ? null : r() < 0.5,
      ];
      row.forEach((v, c) => bs[c]!.push(v));
    }
    out.push({ columns: bs.map((b) => b.finish()), length: n });
  }
  return out;
}

const CONFIG: HashAggregateConfig = {
  keyCount: 2,
  keyTypes: [T.int4, T.text],
  aggs: [
    { impl: resolve('count', []), argCols: [], filterCol: null, distinct: false, orderBy: [] },
    { impl: resolve('sum', [T.int4]), argCols: [2], filterCol: null, distinct: false, orderBy: [] },
    { impl: resolve('min', [T.text]), argCols: [3], filterCol: null, distinct: false, orderBy: [] },
    { impl: resolve('count', [T.int4]), argCols: [2], filterCol: 6, distinct: true, orderBy: [] },
    { impl: resolve('string_agg', [T.text, T.text]), argCols: [3, 4], filterCol: null, distinct: false, orderBy: [{ col: 5, desc: true, nullsFirst: false, type: T.int4 }] },
  ],
};

/** Plain aggregates only: per-group state is bounded, so the table is frozen under pressure. */
const PLAIN: HashAggregateConfig = {
  keyCount: 2,
  keyTypes: [T.int4, T.text],
  aggs: [
    { impl: resolve('count', []), argCols: [], filterCol: null, distinct: false, orderBy: [] },
    { impl: resolve('sum', [T.int4]), argCols: [2], filterCol: null, distinct: false, orderBy: [] },
    { impl: resolve('min', [T.text]), argCols: [3], filterCol: null, distinct: false, orderBy: [] },
    { impl: resolve('max', [T.int4]), argCols: [5], filterCol: 6, distinct: false, orderBy: [] },
    { impl: resolve('avg', [T.int4]), argCols: [2], filterCol: null, distinct: false, orderBy: [] },
  ],
};

async function rowsOf(op: PhysicalOperator, ctx: ExecContext): Promise<Value[][]> {
  const out: Value[][] = [];
  for await (const b of op.execute(ctx)) for (const r of batchRows(b)) out.push(r);
  return out;
}

/** Multiset equality that reports the first differing group briefly instead of dumping every row. */
function sameRows(got: Value[][], expected: Value[][]): void {
  expect(got.length).toBe(expected.length);
  const key = (r: Value[]): string => rowKey(r.slice(0, 2));
  const exp = new Map(expected.map((r) => [key(r), r]));
  for (const r of got) {
    const e = exp.get(key(r));
    expect(e, `group ${key(r)} missing`).toBeDefined();
    for (let c = 0; c < r.length; c++) {
      if (rowKey([r[c]!]) !== rowKey([e![c]!])) {
        throw new Error(`group ${key(r)} column ${c}: got ${rowKey([r[c]!]).slice(0, 200)} expected ${rowKey([e![c]!]).slice(0, 200)}`);
      }
    }
  }
}

const dirs: ReturnType<typeof tempDir>[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});

describe('HybridHashAggregate', () => {
  it('equals HashAggregate under a 1MB limit on high-cardinality keys (seeded)', async () => {
    for (const seed of [1, 2, 3]) {
      const batches = data(seed, 60_000, 20_000);
      const d = tempDir();
      dirs.push(d);
      const expected = await rowsOf(new HashAggregate(new Source(FIELDS, batches), CONFIG), spillCtx({}));
      const op = new HybridHashAggregate(new Source(FIELDS, batches), CONFIG);
      const got = await rowsOf(op, spillCtx({ memory_limit: '1MB', temp_directory: d.dir }));
      // DISTINCT / ORDER BY states grow with the input: the buffering pass wrote every row out.
      expect(op.metrics.extra['spilled rows']).toBeGreaterThanOrEqual(60_000);
      expect(op.metrics.extra['partitions']).toBeGreaterThan(1);
      expect(got.length).toBe(expected.length);
      sameRows(got, expected);
      expect(d.files()).toEqual([]);
    }
  });

  it('is HashAggregate (same rows, same order) without memory pressure', async () => {
    const batches = data(4, 20_000, 500);
    const expected = await rowsOf(new HashAggregate(new Source(FIELDS, batches), CONFIG), spillCtx({}));
    const op = new HybridHashAggregate(new Source(FIELDS, batches), CONFIG);
    const got = await rowsOf(op, spillCtx({ memory_limit: '1GB' }));
    expect(got.map(rowKey)).toEqual(expected.map(rowKey));
    expect(op.metrics.extra['spilled']).toBe('none');
    expect(op.describe()).toBe(new HashAggregate(new Source(FIELDS, batches), CONFIG).describe());
  });

  it('keeps a group that spans many sorted batches whole', async () => {
    // Few groups, many rows each: chunks must not cut a group in two.
    const batches = data(5, 200_000, 3);
    const d = tempDir();
    dirs.push(d);
    const expected = await rowsOf(new HashAggregate(new Source(FIELDS, batches), CONFIG), spillCtx({}));
    // Small sort chunks, so that each of the ~16 groups spans several (and a partition is not small).
    const op = new HybridHashAggregate(new Source(FIELDS, batches), CONFIG, undefined, { parts: 16, maxLevel: 4, chunkRows: 4096 });
    const got = await rowsOf(op, spillCtx({ memory_limit: '2MB', temp_directory: d.dir }));
    sameRows(got, expected);
    // A partition holding one group does not shrink when split again: it is sorted instead.
    expect(op.metrics.extra['sorted partitions']).toBeGreaterThan(0);
    expect(d.files()).toEqual([]);
  });

  it('plain aggregates: the frozen table keeps its groups, other rows go to partitions (one level)', async () => {
    const batches = data(6, 60_000, 20_000);
    const d = tempDir();
    dirs.push(d);
    const expected = await rowsOf(new HashAggregate(new Source(FIELDS, batches), PLAIN), spillCtx({}));
    const op = new HybridHashAggregate(new Source(FIELDS, batches), PLAIN);
    const got = await rowsOf(op, spillCtx({ memory_limit: '2MB', temp_directory: d.dir }));
    sameRows(got, expected);
    const x = op.metrics.extra;
    // Some rows stayed in memory, the rest went out once.
    expect(x['spilled rows']).toBeGreaterThan(0);
    expect(x['spilled rows']).toBeLessThan(60_000);
    expect(x['depth']).toBe(1);
    expect(x['passes']).toBe(1 + (x['partitions'] as number));
    expect(x['sorted partitions']).toBeUndefined();
    expect(d.files()).toEqual([]);
  });

  it('plain aggregates: a tiny limit splits partitions again (recursion), and the last resort sorts', async () => {
    // Enough rows that a partition is several frames long after the first split.
    const batches = data(7, 80_000, 60_000);
    const expected = await rowsOf(new HashAggregate(new Source(FIELDS, batches), PLAIN), spillCtx({}));
    const d = tempDir();
    dirs.push(d);
    const deep = new HybridHashAggregate(new Source(FIELDS, batches), PLAIN);
    sameRows(await rowsOf(deep, spillCtx({ memory_limit: '64kB', temp_directory: d.dir })), expected);
    expect(deep.metrics.extra['depth']).toBeGreaterThanOrEqual(2);
    expect(deep.metrics.extra['spilled rows']).toBeGreaterThan(80_000);
    // Two partitions and one split allowed: partitions of the second level go to the sort.
    const sorted = new HybridHashAggregate(new Source(FIELDS, batches), PLAIN, undefined, { parts: 2, maxLevel: 1, chunkRows: 4096 });
    sameRows(await rowsOf(sorted, spillCtx({ memory_limit: '512kB', temp_directory: d.dir })), expected);
    expect(sorted.metrics.extra['sorted partitions']).toBeGreaterThan(0);
    expect(sorted.metrics.extra['depth']).toBe(1);
    expect(d.files()).toEqual([]);
  });

  it('plain aggregates with few groups never spill, whatever the input size', async () => {
    const batches = data(8, 200_000, 50);
    const expected = await rowsOf(new HashAggregate(new Source(FIELDS, batches), PLAIN), spillCtx({}));
    const op = new HybridHashAggregate(new Source(FIELDS, batches), PLAIN);
    // 200,000 rows of about 100 bytes: far more than the limit, but the table holds ~150 groups.
    const got = await rowsOf(op, spillCtx({ memory_limit: '256kB' }));
    expect(got.map(rowKey)).toEqual(expected.map(rowKey));
    expect(op.metrics.extra['spilled']).toBe('none');
  });

  it('removes its files when the consumer stops early, on errors and on cancellation', async () => {
    const batches = data(9, 60_000, 20_000);
    for (const config of [PLAIN, CONFIG]) {
      const d = tempDir();
      dirs.push(d);
      // Stops after the first output batch: spilled partitions are still on disk then.
      const op = new HybridHashAggregate(new Source(FIELDS, batches), config);
      for await (const b of op.execute(spillCtx({ memory_limit: '1MB', temp_directory: d.dir }))) if (b.length > 0) break;
      expect(d.files()).toEqual([]);
      // An input that fails after the spill began.
      class Failing extends Source {
        protected override async *run(): AsyncGenerator<Batch> {
          yield* this.batches;
          throw new Error('input failed');
        }
      }
      await expect(rowsOf(new HybridHashAggregate(new Failing(FIELDS, batches), config), spillCtx({ memory_limit: '1MB', temp_directory: d.dir }))).rejects.toThrow(
        'input failed',
      );
      expect(d.files()).toEqual([]);
      // Cancelled while partitions are being read back.
      const ac = new AbortController();
      const cancelled = new HybridHashAggregate(new Source(FIELDS, batches), config);
      let seen = 0;
      const run = async (): Promise<void> => {
        for await (const b of cancelled.execute(spillCtx({ memory_limit: '1MB', temp_directory: d.dir }, ac.signal))) {
          seen += b.length;
          if (seen > 0) ac.abort();
        }
      };
      await expect(run()).rejects.toMatchObject({ code: '57014' });
      expect(d.files()).toEqual([]);
    }
  });
});
