/**
 * ExternalSort under tiny memory limits must return exactly what the in-memory Sort returns (same rows,
 * same order: both are stable), for every key type, ASC/DESC, NULLS FIRST/LAST, long strings and wide
 * rows; spill files must be gone after success, errors and cancellation.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { batchRows, type Batch } from '../../src/common/column.js';
import type { ExecContext } from '../../src/execution/context.js';
import { PhysicalOperator } from '../../src/physical/operator.js';
import { ExternalSort } from '../../src/physical/operators/external-sort.js';
import { Sort } from '../../src/physical/operators/sort.js';
import type { SortKey } from '../../src/physical/sort-key.js';
import { liveSpillDirectories } from '../../src/execution/spill/spill-manager.js';
import type { Field, Value } from '../../src/common/types.js';
import { FUZZ_FIELDS, fuzzBatches, rng, rowKey, spillCtx, tempDir } from './helpers.js';

class Source extends PhysicalOperator {
  readonly name = 'Source';
  constructor(
    schema: Field[],
    readonly batches: Batch[],
    private readonly onBatch?: (i: number) => void,
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
    let i = 0;
    for (const b of this.batches) {
      this.onBatch?.(i++);
      yield b;
    }
  }
}

async function rowsOf(op: PhysicalOperator, ctx: ExecContext): Promise<Value[][]> {
  const out: Value[][] = [];
  for await (const b of op.execute(ctx)) for (const r of batchRows(b)) out.push(r);
  return out;
}

const dirs: ReturnType<typeof tempDir>[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});
function dir(): ReturnType<typeof tempDir> {
  const d = tempDir();
  dirs.push(d);
  return d;
}

function randomKeys(r: () => number, fields: readonly Field[]): SortKey[] {
  const n = 1 + Math.floor(r() * 3);
  const keys: SortKey[] = [];
  const used = new Set<number>();
  while (keys.length < n) {
    const col = Math.floor(r() * fields.length);
    if (used.has(col)) continue;
    used.add(col);
    keys.push({ col, type: fields[col]!.type, desc: r() < 0.5, nullsFirst: r() < 0.5 });
  }
  return keys;
}

describe('ExternalSort', () => {
  it('equals the in-memory sort under a 1MB limit (seeded fuzz over key types, directions, NULL placement)', async () => {
    for (let seed = 1; seed <= 12; seed++) {
      const r = rng(seed * 7919);
      const rows = 2000 + Math.floor(r() * 6000);
      const batches = fuzzBatches(seed, rows, FUZZ_FIELDS, 1 + Math.floor(r() * 700));
      const keys = randomKeys(r, FUZZ_FIELDS);
      const d = dir();
      const expected = await rowsOf(new Sort(new Source(FUZZ_FIELDS, batches), keys), spillCtx({ memory_limit: 'unlimited' }));
      const op = new ExternalSort(new Source(FUZZ_FIELDS, batches), keys);
      const got = await rowsOf(op, spillCtx({ memory_limit: '1MB', temp_directory: d.dir, 'quire.spill_compression': seed % 2 ? 'on' : 'off' }));
      expect(op.metrics.extra['sort method'], `seed ${seed}`).toBe('external merge');
      expect(got.length).toBe(expected.length);
      expect(got.map(rowKey), `seed ${seed} keys ${JSON.stringify(keys)}`).toEqual(expected.map(rowKey));
      expect(d.files()).toEqual([]);
    }
  });

  it('single numeric key (radix path) and multi-pass merge with a tiny fan-in', async () => {
    const fields: Field[] = [FUZZ_FIELDS[2]!, FUZZ_FIELDS[0]!];
    const batches = fuzzBatches(99, 60_000, fields, 1000);
    for (const desc of [false, true]) {
      for (const nullsFirst of [false, true]) {
        const keys: SortKey[] = [{ col: 0, type: fields[0]!.type, desc, nullsFirst }];
        const d = dir();
        const expected = await rowsOf(new Sort(new Source(fields, batches), keys), spillCtx({}));
        const op = new ExternalSort(new Source(fields, batches), keys);
        const got = await rowsOf(op, spillCtx({ memory_limit: '256kB', temp_directory: d.dir }));
        expect(got.map(rowKey)).toEqual(expected.map(rowKey));
        expect(Number(op.metrics.extra['spill runs'])).toBeGreaterThan(4);
        // More runs than the fan-in the budget allows: at least one intermediate pass.
        expect(Number(op.metrics.extra['merge passes'])).toBeGreaterThanOrEqual(2);
        expect(d.files()).toEqual([]);
      }
    }
  });

  it('costs nothing without memory pressure: same batches as Sort, no spill', async () => {
    const batches = fuzzBatches(5, 5000);
    const keys: SortKey[] = [{ col: 3, type: FUZZ_FIELDS[3]!.type, desc: false, nullsFirst: false }];
    const op = new ExternalSort(new Source(FUZZ_FIELDS, batches), keys);
    const got = await rowsOf(op, spillCtx({ memory_limit: '1GB' }));
    const expected = await rowsOf(new Sort(new Source(FUZZ_FIELDS, batches), keys), spillCtx({}));
    expect(got.map(rowKey)).toEqual(expected.map(rowKey));
    expect(op.metrics.extra['sort method']).not.toBe('external merge');
  });

  it('removes its files when the consumer stops early', async () => {
    const d = dir();
    const batches = fuzzBatches(8, 20_000, FUZZ_FIELDS, 500);
    const op = new ExternalSort(new Source(FUZZ_FIELDS, batches), [{ col: 0, type: FUZZ_FIELDS[0]!.type, desc: false, nullsFirst: false }]);
    const it = op.execute(spillCtx({ memory_limit: '1MB', temp_directory: d.dir }));
    const first = await it.next();
    expect(first.done).toBe(false);
    expect(d.files().length).toBeGreaterThan(0);
    await it.return(undefined);
    expect(d.files()).toEqual([]);
    expect(liveSpillDirectories().filter((x) => x.startsWith(d.dir))).toEqual([]);
  });

  it('removes its files when the statement is cancelled mid-spill (57014)', async () => {
    const d = dir();
    const ac = new AbortController();
    const batches = fuzzBatches(9, 30_000, FUZZ_FIELDS, 500);
    // Cancel once several runs have been written.
    const src = new Source(FUZZ_FIELDS, batches, (i) => {
      if (i === 40) ac.abort();
    });
    const op = new ExternalSort(src, [{ col: 3, type: FUZZ_FIELDS[3]!.type, desc: true, nullsFirst: false }]);
    await expect(rowsOf(op, spillCtx({ memory_limit: '1MB', temp_directory: d.dir }, ac.signal))).rejects.toMatchObject({ code: '57014' });
    expect(d.files()).toEqual([]);
  });

  it('raises 53100 when temp space runs out, and cleans up', async () => {
    const d = dir();
    const batches = fuzzBatches(10, 20_000, FUZZ_FIELDS, 500);
    const op = new ExternalSort(new Source(FUZZ_FIELDS, batches), [{ col: 0, type: FUZZ_FIELDS[0]!.type, desc: false, nullsFirst: false }]);
    await expect(rowsOf(op, spillCtx({ memory_limit: '1MB', temp_directory: d.dir, max_temp_directory_size: '2MB' }))).rejects.toMatchObject({
      code: '53100',
    });
    expect(d.files()).toEqual([]);
  });

  it('raises 53200 when not even a two-way merge fits, and cleans up', async () => {
    const d = dir();
    const batches = fuzzBatches(11, 4000, FUZZ_FIELDS, 200);
    const op = new ExternalSort(new Source(FUZZ_FIELDS, batches), [{ col: 8, type: FUZZ_FIELDS[8]!.type, desc: false, nullsFirst: false }]);
    await expect(rowsOf(op, spillCtx({ memory_limit: '8kB', temp_directory: d.dir }))).rejects.toMatchObject({ code: '53200' });
    expect(d.files()).toEqual([]);
  });
});

describe('PartitionBuffer (window partition hook)', () => {
  it('spills past the limit and scans back every row in arrival order, repeatably', async () => {
    const { PartitionBuffer } = await import('../../src/execution/spill/partition-buffer.js');
    const d = dir();
    const batches = fuzzBatches(21, 20_000, FUZZ_FIELDS, 700);
    const ctx = spillCtx({ memory_limit: '1MB', temp_directory: d.dir });
    const buf = new PartitionBuffer(ctx, FUZZ_FIELDS.map((f) => f.type), 'window');
    try {
      for (const b of batches) await buf.push(b);
      expect(buf.spilled).toBe(true);
      expect(buf.rows).toBe(20_000);
      const expected = batches.flatMap((b) => batchRows(b)).map(rowKey);
      for (let pass = 0; pass < 2; pass++) {
        const got: string[] = [];
        for await (const b of buf.scan()) for (const r of batchRows(b)) got.push(rowKey(r));
        expect(got).toEqual(expected);
      }
      await buf.clear();
      expect(buf.rows).toBe(0);
      await buf.push(batches[0]!);
      expect(batchRows(await buf.materialize()).map(rowKey)).toEqual(batchRows(batches[0]!).map(rowKey));
    } finally {
      await buf.close();
    }
    expect(d.files()).toEqual([]);
  });
});
