/**
 * SpillingAggregate under tiny memory limits equals HashAggregate without a limit (as a multiset of
 * rows: the spilled path emits groups in key order), on high-cardinality keys and with every kind of
 * aggregate input (plain, FILTER, DISTINCT, ORDER BY inside the call); spill files are removed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { T, type Field, type Value } from '../../src/common/types.js';
import { batchRows, ColumnBuilder, type Batch } from '../../src/common/column.js';
import type { ExecContext } from '../../src/execution/context.js';
import { lookupAggregate } from '../../src/functions/aggregate/registry.js';
import type { ResolvedAggregate } from '../../src/functions/aggregate/aggregate-function.js';
import { PhysicalOperator } from '../../src/physical/operator.js';
import { HashAggregate, type HashAggregateConfig } from '../../src/physical/operators/hash-aggregate.js';
import { SpillingAggregate } from '../../src/physical/operators/spilling-aggregate.js';
import { rng, rowKey, spillCtx, tempDir } from './helpers.js';

class Source extends PhysicalOperator {
  readonly name = 'Source';
  constructor(
    schema: Field[],
    readonly batches: Batch[],
  ) {
    super(schema);
  }
  children(): readonly PhysicalOperator[] {
    return [];
  }
  describe(): string {
    return '';
  }
  protected async *run(): AsyncGenerator<Batch> {
    yield* this.batches;
  }
}

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

describe('SpillingAggregate', () => {
  it('equals HashAggregate under a 1MB limit on high-cardinality keys (seeded)', async () => {
    for (const seed of [1, 2, 3]) {
      const batches = data(seed, 60_000, 20_000);
      const d = tempDir();
      dirs.push(d);
      const expected = await rowsOf(new HashAggregate(new Source(FIELDS, batches), CONFIG), spillCtx({}));
      const op = new SpillingAggregate(new Source(FIELDS, batches), CONFIG);
      const got = await rowsOf(op, spillCtx({ memory_limit: '1MB', temp_directory: d.dir }));
      expect(op.metrics.extra['strategy']).toBe('sort (spilled)');
      expect(got.length).toBe(expected.length);
      sameRows(got, expected);
      expect(d.files()).toEqual([]);
    }
  });

  it('is HashAggregate (same rows, same order) without memory pressure', async () => {
    const batches = data(4, 20_000, 500);
    const expected = await rowsOf(new HashAggregate(new Source(FIELDS, batches), CONFIG), spillCtx({}));
    const op = new SpillingAggregate(new Source(FIELDS, batches), CONFIG);
    const got = await rowsOf(op, spillCtx({ memory_limit: '1GB' }));
    expect(got.map(rowKey)).toEqual(expected.map(rowKey));
    expect(op.metrics.extra['strategy']).toBeUndefined();
    expect(op.describe()).toBe(new HashAggregate(new Source(FIELDS, batches), CONFIG).describe());
  });

  it('keeps a group that spans many sorted batches whole', async () => {
    // Few groups, many rows each: chunks must not cut a group in two.
    const batches = data(5, 200_000, 3);
    const d = tempDir();
    dirs.push(d);
    const expected = await rowsOf(new HashAggregate(new Source(FIELDS, batches), CONFIG), spillCtx({}));
    const got = await rowsOf(new SpillingAggregate(new Source(FIELDS, batches), CONFIG), spillCtx({ memory_limit: '2MB', temp_directory: d.dir }));
    sameRows(got, expected);
    expect(d.files()).toEqual([]);
  });
});
