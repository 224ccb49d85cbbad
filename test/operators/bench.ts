/**
 * Micro-benchmark of Sort and TopN over 1M rows (not a test: `npx tsx test/operators/bench.ts`).
 * Prints the best of a few runs per case, wall and process CPU time (on a shared machine the minimum
 * and the CPU time are the least noisy; CPU includes GC helper threads).
 */
import { T, type Field, type Value } from '../../src/common/types.js';
import { BATCH_SIZE, ColumnBuilder, type Batch } from '../../src/common/column.js';
import type { PhysicalOperator } from '../../src/physical/operator.js';
import { Limit } from '../../src/physical/operators/limit.js';
import { Sort } from '../../src/physical/operators/sort.js';
import { TopN, type TopNStrategy } from '../../src/physical/operators/topn.js';
import type { SortKey } from '../../src/physical/sort-key.js';
import { makeCtx, rng, Source } from './helpers.js';

const N = Number(process.env.N ?? 1_000_000);
const fields: Field[] = [
  { name: 'id', type: T.int4 },
  { name: 'i', type: T.int4 },
  { name: 'f', type: T.float8 },
  { name: 's', type: T.text },
  { name: 'ts', type: T.timestamp },
];
const r = rng(7);
const batches: Batch[] = [];
for (let s = 0; s < N; s += BATCH_SIZE) {
  const n = Math.min(BATCH_SIZE, N - s);
  const bs = fields.map((f) => new ColumnBuilder(f.type, n));
  for (let k = 0; k < n; k++) {
    bs[0]!.push(s + k);
    bs[1]!.push(Math.floor(r() * 2 ** 31) - 2 ** 30);
    bs[2]!.push(r() < 0.01 ? null : (r() - 0.5) * 1e6);
    bs[3]!.push('user_' + Math.floor(r() * 1e7).toString(36) + (r() < 0.001 ? '\u{1F600}' : ''));
    bs[4]!.push(1.7e15 + Math.floor(r() * 3e13));
  }
  batches.push({ columns: bs.map((b) => b.finish()), length: n });
}
const src = new Source(fields, batches);
const key = (col: number, desc = false): SortKey => ({ col, type: fields[col]!.type, desc, nullsFirst: desc });

async function time(label: string, make: () => PhysicalOperator, runs = 3): Promise<void> {
  const ts: number[] = [];
  const cpu: number[] = [];
  let rows = 0;
  for (let i = 0; i < runs; i++) {
    const op = make();
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    rows = 0;
    for await (const b of op.execute(makeCtx())) rows += b.length;
    const c = process.cpuUsage(c0);
    ts.push(performance.now() - t0);
    cpu.push((c.user + c.system) / 1000);
  }
  ts.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  console.log(`${label.padEnd(52)} wall ${ts[0]!.toFixed(1).padStart(8)} ms  cpu ${cpu[0]!.toFixed(1).padStart(8)} ms  (${rows} rows)`);
}

const scan = (): Source => src;
await time('scan only', scan);
await time('Sort int4 (radix)', () => new Sort(scan(), [key(1)]));
await time('Sort float8 with nulls DESC (radix)', () => new Sort(scan(), [key(2, true)]));
await time('Sort timestamp (radix)', () => new Sort(scan(), [key(4)]));
await time('Sort text', () => new Sort(scan(), [key(3)]));
await time('Sort int4 DESC, text (comparator)', () => new Sort(scan(), [key(1, true), key(3)]));
for (const strategy of ['heap', 'select'] as TopNStrategy[]) {
  await time(`TopN k=10 int4 (${strategy})`, () => new TopN(scan(), [key(1)], 10, 0, false, strategy));
  await time(`TopN k=10 text (${strategy})`, () => new TopN(scan(), [key(3)], 10, 0, false, strategy));
  await time(`TopN k=10 float8 DESC, int4 (${strategy})`, () => new TopN(scan(), [key(2, true), key(1)], 10, 0, false, strategy));
  await time(`TopN k=1000 int4 (${strategy})`, () => new TopN(scan(), [key(1)], 1000, 0, false, strategy));
}
await time('TopN int4 LIMIT 10 OFFSET 500000 (select)', () => new TopN(scan(), [key(1)], 10, 500000));
await time('TopN text LIMIT 10 OFFSET 500000 (select)', () => new TopN(scan(), [key(3)], 10, 500000));
await time('TopN int4 LIMIT 10 OFFSET 500000 (heap, forced)', () => new TopN(scan(), [key(1)], 10, 500000, false, 'heap'), 1);
await time('Sort+Limit int4 LIMIT 10 OFFSET 500000 (baseline)', () => new Limit(new Sort(scan(), [key(1)]), 10, 500000));
await time('Sort+Limit text LIMIT 10 OFFSET 500000 (baseline)', () => new Limit(new Sort(scan(), [key(3)]), 10, 500000));
