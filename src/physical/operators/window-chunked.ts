/**
 * Chunked evaluation of one window partition that spilled (window.ts buffers partitions in a
 * PartitionBuffer; when it spills, the partition is larger than what memory_limit leaves us).
 *
 * The partition is read back in chunks of C rows, each with an overlap of P rows before and F rows
 * after (and, when a call needs peer ends, up to the end of the last chunk row's peer group). Per call:
 *
 *   - positional (row_number, rank, dense_rank, percent_rank, cume_dist, ntile): computed here from the
 *     absolute row number, the carried peer-group start and ordinal, the peer end and the row count the
 *     buffer knows before reading;
 *   - running aggregates (UNBOUNDED PRECEDING to CURRENT ROW / k PRECEDING / k FOLLOWING under ROWS, to
 *     CURRENT ROW with peers under RANGE/GROUPS): one accumulator carried across chunks, fed in row order
 *     exactly like the in-memory evaluator feeds it, so float sums round identically (sum/min/max over
 *     numbers without FILTER carry a plain number instead, typed-frame-aggregate.ts);
 *   - whole-partition aggregates and last_value (frames reaching both ends, or peers without ORDER BY): a
 *     first pass over the spilled partition; invertible aggregates from a ROWS start to UNBOUNDED FOLLOWING
 *     start from that whole-partition state and remove rows as the frame start passes them;
 *   - first_value from UNBOUNDED PRECEDING: the partition's first row, kept from the first chunk;
 *   - frames bounded in rows (N PRECEDING .. M FOLLOWING), lag/lead with a constant offset, last_value up to
 *     the current row: the ordinary evaluator runs over the chunk plus its overlap, taken as one
 *     partition; the overlap makes every chunk row's frame the same as in the whole partition.
 *
 * Anything else (value-based RANGE offsets, frames that start after the partition start and end at
 * UNBOUNDED FOLLOWING for min/max/float sums, EXCLUDE on running frames, lag/lead with a per-row offset) is named in the
 * 53200 raised by the caller when the partition cannot be materialised.
 */
import { QuireError } from '../../common/errors.js';
import type { DataType, Value } from '../../common/types.js';
import { concatBatches, sliceBatch, type Batch, type Column } from '../../common/column.js';
import { yieldIfDue, type ExecContext } from '../../execution/context.js';
import { batchBytes, formatBytes, queryMemory, type MemoryReservation } from '../../execution/memory-pool.js';
import type { PartitionBuffer } from '../../execution/spill/partition-buffer.js';
import type { ResolvedAggregate, SlidingAccumulator } from '../../functions/aggregate/aggregate-function.js';
import { FrameComputer, type RangeKey, type ResolvedFrame } from '../../functions/window/frame.js';
import { RunningTypedAggregate } from '../../functions/window/typed-frame-aggregate.js';
import { ResultColumn, valueAt, type WindowBlock } from '../../functions/window/window-function.js';
import { evalConstant } from '../compile-expr.js';
import { keyChanges } from '../key-changes.js';
import type { Comparator, KeyView, SortKey } from '../sort-key.js';
import type { WindowCallDef } from './window.js';

export type CallPlan =
  | { kind: 'row_number' | 'rank' | 'dense_rank' | 'percent_rank' | 'cume_dist' }
  | { kind: 'ntile'; arg: number }
  | { kind: 'local' }
  | { kind: 'running'; agg: ResolvedAggregate; args: readonly number[]; filter: number | null; peers: boolean; endDelta: number }
  | { kind: 'whole'; agg: ResolvedAggregate; args: readonly number[]; filter: number | null }
  | { kind: 'suffix'; agg: ResolvedAggregate; args: readonly number[]; filter: number | null; startDelta: number }
  | { kind: 'first'; arg: number; endDelta: number | null }
  /** The partition's last row; with startDelta, NULL once the frame start (row + startDelta) passes the end. */
  | { kind: 'last-whole'; arg: number; startDelta: number | null };

export interface ChunkPlan {
  readonly calls: readonly CallPlan[];
  /** Rows of overlap before / after each chunk. */
  readonly before: number;
  readonly after: number;
  /** Chunks extend to the end of their last row's peer group. */
  readonly peerEnds: boolean;
  readonly firstPass: boolean;
}

export interface WindowShape {
  readonly calls: readonly WindowCallDef[];
  readonly frames: readonly ResolvedFrame[];
  readonly orderCmp: Comparator | null;
  /** The ORDER BY keys orderCmp compares (peer groups come from key-changes.ts). */
  readonly orderKeys: readonly SortKey[];
  readonly rangeKey: RangeKey | null;
  readonly types: readonly DataType[];
}

function rowsOffset(v: Value): number {
  return typeof v === 'bigint' ? Number(v) : (v as number);
}

/** The plan for every call, or the label of the first call that cannot be evaluated in chunks. */
export function planChunks(w: WindowShape, ctx: ExecContext): ChunkPlan | { unsupported: string } {
  let before = 1;
  let after = 0;
  let peerEnds = false;
  let firstPass = false;
  const ordered = w.orderCmp !== null;
  const plans: CallPlan[] = [];
  for (const c of w.calls) {
    const f = c.frame >= 0 ? w.frames[c.frame]! : null;
    const args = c.args ?? [];
    const p = planCall(c.name, f, ordered, args, c, ctx);
    if (p === null) return { unsupported: c.label };
    if (p.kind === 'cume_dist' && ordered) peerEnds = true;
    if (p.kind === 'running') {
      if (p.peers) peerEnds = true;
      else if (p.endDelta > 0) after = Math.max(after, p.endDelta);
      else before = Math.max(before, -p.endDelta);
    }
    if (p.kind === 'whole' || p.kind === 'last-whole' || p.kind === 'suffix') firstPass = true;
    if (p.kind === 'suffix') {
      if (p.startDelta > 0) after = Math.max(after, p.startDelta);
      else before = Math.max(before, 1 - p.startDelta);
    }
    if (p.kind === 'local') {
      if (c.name === 'lag' || c.name === 'lead') {
        const k = lagOffset(c, ctx);
        if (k === null) return { unsupported: c.label };
        const d = c.name === 'lead' ? k : -k;
        if (d > 0) after = Math.max(after, d);
        else before = Math.max(before, -d);
      } else if (f !== null) {
        const need = rowsReach(f);
        before = Math.max(before, need.before);
        after = Math.max(after, need.after);
        if (f.units !== 'rows') peerEnds = true;
      }
    }
    plans.push(p);
  }
  return { calls: plans, before, after, peerEnds, firstPass };
}

/** Rows a bounded ROWS frame reaches before / after the current row. */
function rowsReach(f: ResolvedFrame): { before: number; after: number } {
  let before = 0;
  let after = 0;
  for (const [kind, off] of [
    [f.startKind, f.startOffset],
    [f.endKind, f.endOffset],
  ] as const) {
    if (kind === 'preceding') before = Math.max(before, rowsOffset(off) + 1);
    if (kind === 'following') after = Math.max(after, rowsOffset(off));
  }
  return { before, after };
}

/** lag/lead's offset (signed) when it is the same on every row (1 without the argument); null for a per-row offset. */
function lagOffset(c: WindowCallDef, ctx: ExecContext): number | null {
  const e = c.argExprs?.[1];
  if (e === undefined) return 1;
  const leaf = e.kind === 'cast' ? e.arg : e;
  if (leaf.kind !== 'const' && leaf.kind !== 'param') return null;
  const v = evalConstant(e, ctx);
  return v === null ? 0 : (v as number);
}

function planCall(name: string, f: ResolvedFrame | null, ordered: boolean, args: readonly number[], c: WindowCallDef, ctx: ExecContext): CallPlan | null {
  void ctx;
  switch (name) {
    case 'row_number':
    case 'rank':
    case 'dense_rank':
    case 'percent_rank':
    case 'cume_dist':
      return { kind: name };
    case 'ntile':
      return { kind: 'ntile', arg: args[0]! };
    case 'lag':
    case 'lead':
      return { kind: 'local' };
  }
  if (f === null) return null;
  const startsAtTop = f.startKind === 'unbounded-preceding' || (f.units !== 'rows' && !ordered && f.startKind === 'current-row');
  const endsAtBottom = f.endKind === 'unbounded-following' || (f.units !== 'rows' && !ordered && f.endKind === 'current-row');
  const bounded = (k: string): boolean => k === 'preceding' || k === 'current-row' || k === 'following';
  const rowsLocal = f.units === 'rows' && bounded(f.startKind) && bounded(f.endKind);
  // End of a running frame relative to the current row (ROWS), or null for "end of the peer group".
  let endDelta: number | null | undefined;
  if (f.units === 'rows') {
    if (f.endKind === 'current-row') endDelta = 0;
    else if (f.endKind === 'preceding') endDelta = -rowsOffset(f.endOffset);
    else if (f.endKind === 'following') endDelta = rowsOffset(f.endOffset);
  } else if (f.endKind === 'current-row' && ordered) endDelta = null;
  const running = f.startKind === 'unbounded-preceding' && endDelta !== undefined;
  const agg = c.aggregate ?? null;
  if (agg !== null) {
    if (f.exclude !== 'no-others') return rowsLocal ? { kind: 'local' } : null;
    if (startsAtTop && endsAtBottom) return { kind: 'whole', agg, args, filter: c.filter ?? null };
    if (running) return { kind: 'running', agg, args, filter: c.filter ?? null, peers: endDelta === null, endDelta: endDelta ?? 0 };
    if (agg.invertible && agg.noMerge !== true && f.units === 'rows' && f.endKind === 'unbounded-following' && bounded(f.startKind)) {
      // The whole partition's state, with rows removed as the frame start passes them: the same add/remove
      // sequence the in-memory evaluator runs for these frames.
      const k = f.startKind === 'current-row' ? 0 : rowsOffset(f.startOffset);
      return { kind: 'suffix', agg, args, filter: c.filter ?? null, startDelta: f.startKind === 'preceding' ? -k : k };
    }
    return rowsLocal ? { kind: 'local' } : null;
  }
  switch (name) {
    case 'first_value':
      if (f.exclude === 'no-others' && startsAtTop && (endsAtBottom || f.endKind === 'current-row' || f.endKind === 'following')) {
        return { kind: 'first', arg: args[0]!, endDelta: f.units === 'rows' ? (endDelta ?? 0) : null };
      }
      if (f.exclude === 'no-others' && f.units === 'rows' && f.startKind === 'unbounded-preceding' && f.endKind === 'preceding') {
        return { kind: 'first', arg: args[0]!, endDelta: endDelta ?? 0 };
      }
      // Only the frame start matters: the ordinary evaluator over the chunk with the start's overlap.
      if (f.units === 'rows' && bounded(f.startKind) && (bounded(f.endKind) || (f.endKind === 'unbounded-following' && f.exclude === 'no-others'))) return { kind: 'local' };
      return null;
    case 'last_value':
      if (f.exclude === 'no-others' && startsAtTop && endsAtBottom) return { kind: 'last-whole', arg: args[0]!, startDelta: null };
      if (f.exclude === 'no-others' && f.units === 'rows' && bounded(f.startKind) && f.endKind === 'unbounded-following') {
        const k = f.startKind === 'current-row' ? 0 : rowsOffset(f.startOffset);
        return { kind: 'last-whole', arg: args[0]!, startDelta: f.startKind === 'following' ? k : 0 };
      }
      // Only the frame end matters (the frame is never empty when it starts at the partition start).
      if (f.exclude === 'no-others' && f.startKind === 'unbounded-preceding' && (f.units === 'rows' ? f.endKind !== 'unbounded-following' : f.endKind === 'current-row' && ordered)) {
        return { kind: 'local' };
      }
      return rowsLocal ? { kind: 'local' } : null;
    default:
      return rowsLocal ? { kind: 'local' } : null;
  }
}

/** Reads a PartitionBuffer in row order and hands out row ranges as single batches. */
class RowQueue {
  private readonly it: AsyncIterator<Batch>;
  private readonly q: Batch[] = [];
  private readonly bytes: number[] = [];
  /** Absolute row number of q[0]'s first row. */
  private start = 0;
  private end = 0;
  private done = false;
  private readonly views = new WeakMap<Batch, KeyView>();

  constructor(
    part: PartitionBuffer,
    private readonly types: readonly DataType[],
    private readonly res: MemoryReservation,
    private readonly forcedBytes: number,
  ) {
    this.it = part.scan()[Symbol.asyncIterator]();
  }

  get loaded(): number {
    return this.end;
  }

  /** Closes the spill file reader (an abandoned scan would keep its file handle). */
  async close(): Promise<void> {
    this.q.length = 0;
    await this.it.return?.(undefined);
  }

  async ensure(upTo: number): Promise<void> {
    while (this.end < upTo && !this.done) {
      const r = await this.it.next();
      if (r.done === true) {
        this.done = true;
        break;
      }
      const b = r.value;
      if (b.length === 0) continue;
      const size = batchBytes(b);
      if (!this.res.tryGrow(size)) {
        // The chunk itself must be held; beyond a few chunks' worth, an overlap that does not fit is an error.
        if (this.res.size + size > this.forcedBytes) throw this.res.outOfMemory(size, 'the rows of a window chunk and its overlap');
        this.res.forceGrow(size);
      }
      this.q.push(b);
      this.bytes.push(size);
      this.end += b.length;
    }
  }

  /** Forgets rows before `row`. */
  drop(row: number): void {
    while (this.q.length > 0 && this.start + this.q[0]!.length <= row) {
      this.start += this.q.shift()!.length;
      this.res.shrink(this.bytes.shift()!);
    }
  }

  /** Rows [lo, hi) as one batch. */
  rows(lo: number, hi: number): Batch {
    const parts: Batch[] = [];
    let at = this.start;
    for (const b of this.q) {
      const s = Math.max(lo, at);
      const e = Math.min(hi, at + b.length);
      if (s < e) parts.push(s === at && e === at + b.length ? b : sliceBatch(b, s - at, e - at));
      at += b.length;
      if (at >= hi) break;
    }
    return parts.length === 1 ? parts[0]! : concatBatches(this.types, parts);
  }

  private locate(row: number): [Batch, number] {
    let at = this.start;
    for (const b of this.q) {
      if (row < at + b.length) return [b, row - at];
      at += b.length;
    }
    throw new Error('RowQueue: row not loaded');
  }

  private view(cmp: Comparator, b: Batch): KeyView {
    let v = this.views.get(b);
    if (v === undefined) {
      v = cmp.view(b);
      this.views.set(b, v);
    }
    return v;
  }

  /** One past the last row (< total) that is a peer of row `row`, loading rows as needed. */
  async peerEnd(cmp: Comparator, row: number, total: number): Promise<number> {
    const [rb, ri] = this.locate(row);
    const rv = this.view(cmp, rb);
    let e = row + 1;
    while (e < total) {
      await this.ensure(e + 1);
      const [b, i0] = this.locate(e);
      const f = cmp.cross(rv, this.view(cmp, b));
      let i = i0;
      while (i < b.length && f(ri, i) === 0) i++;
      e += i - i0;
      if (i < b.length) break;
    }
    return e;
  }
}

/** A carried accumulator plus the FILTER / argument columns of the block it currently reads. */
class Feed {
  readonly acc: SlidingAccumulator;
  private readonly vals: Value[];
  constructor(
    readonly agg: ResolvedAggregate,
    private readonly args: readonly number[],
    private readonly filter: number | null,
  ) {
    this.acc = agg.sliding();
    this.vals = new Array<Value>(args.length).fill(null);
  }
  add(b: Batch, i: number): void {
    if (this.filter !== null) {
      const f = b.columns[this.filter]!;
      if ((f.nulls !== null && f.nulls[i] === 1) || (f.data as Uint8Array)[i] !== 1) return;
    }
    for (let k = 0; k < this.args.length; k++) this.vals[k] = valueAt(b.columns[this.args[k]!]!, i);
    this.acc.add(this.vals);
  }
  remove(b: Batch, i: number): void {
    if (this.filter !== null) {
      const f = b.columns[this.filter]!;
      if ((f.nulls !== null && f.nulls[i] === 1) || (f.data as Uint8Array)[i] !== 1) return;
    }
    for (let k = 0; k < this.args.length; k++) this.vals[k] = valueAt(b.columns[this.args[k]!]!, i);
    this.acc.remove!(this.vals);
  }
}

/** Peer groups of a block taken as one partition (window.ts does the same across partitions). */
function blockPeers(n: number, changes: Uint8Array | null): { peerStart: Int32Array; peerEnd: Int32Array; group: Int32Array } {
  const peerStart = new Int32Array(n);
  const peerEnd = new Int32Array(n);
  const group = new Int32Array(n);
  let g = 0;
  let st = 0;
  for (let i = 1; i < n; i++) {
    if (changes !== null && changes[i] === 1) {
      g++;
      st = i;
    }
    peerStart[i] = st;
    group[i] = g;
  }
  if (n > 0) peerEnd[n - 1] = n;
  for (let i = n - 2; i >= 0; i--) peerEnd[i] = peerStart[i + 1] === peerStart[i] ? peerEnd[i + 1]! : i + 1;
  return { peerStart, peerEnd, group };
}

function sliceColumn(c: Column, n: number, s: number, e: number): Column {
  return sliceBatch({ columns: [c], length: n }, s, e).columns[0]!;
}

/** Rows of one chunk, from the partition's average row size and the memory limit. */
function chunkRows(part: PartitionBuffer, limit: number): number {
  const rowBytes = Math.max(1, part.bytes / Math.max(1, part.rows));
  return Math.max(64, Math.min(4096, Math.floor(limit / 8 / rowBytes)));
}

/**
 * Emits the partition's rows with one result column per call appended, chunk by chunk. `res` is the
 * Window's reservation for chunk rows; it is empty again when this returns or throws.
 */
export async function* evaluateSpilledPartition(
  part: PartitionBuffer,
  w: WindowShape,
  plan: ChunkPlan,
  ctx: ExecContext,
  res: MemoryReservation,
  /** Rows per chunk for a partition held in memory (chunked only to yield between pieces). */
  inMemoryChunk?: number,
): AsyncGenerator<Batch> {
  const total = part.rows;
  const limit = queryMemory(ctx).pool.limit;
  // In memory, a chunk is at least four times its overlap so that re-reading the overlap stays cheap.
  const C = part.spilled || inMemoryChunk === undefined ? chunkRows(part, limit) : Math.max(inMemoryChunk, 4 * (plan.before + plan.after));
  const rowBytes = Math.max(1, part.bytes / Math.max(1, total));
  const forced = Math.max(4 * C * rowBytes, 4 * batchBytesHint(part));
  const calls = w.calls;

  // First pass: whole-partition aggregates and the last row's value.
  const whole: Value[] = new Array<Value>(calls.length).fill(null);
  const suffixFeeds: (Feed | null)[] = calls.map(() => null);
  /** Per running / suffix call: rows added to (removed from) its carried state so far. */
  const added = new Float64Array(calls.length);
  if (plan.firstPass) {
    const feeds = plan.calls.map((p) => (p.kind === 'whole' || p.kind === 'suffix' ? new Feed(p.agg, p.args, p.filter) : null));
    // A suffix frame starting k rows after the first row never contains the first k rows (the in-memory
    // evaluator never adds them either).
    const skip = plan.calls.map((p) => (p.kind === 'suffix' ? Math.max(0, Math.min(total, p.startDelta)) : 0));
    let last: Batch | null = null;
    let at = 0;
    for await (const b of part.scan()) {
      await yieldIfDue(ctx);
      feeds.forEach((f, k) => {
        if (f !== null) for (let i = Math.max(0, skip[k]! - at); i < b.length; i++) f.add(b, i);
      });
      at += b.length;
      last = b;
    }
    skip.forEach((n, k) => (added[k] = n));
    plan.calls.forEach((p, k) => {
      if (p.kind === 'whole') whole[k] = feeds[k]!.acc.value();
      else if (p.kind === 'suffix') suffixFeeds[k] = feeds[k]!;
      else if (p.kind === 'last-whole' && last !== null) whole[k] = valueAt(last.columns[p.arg]!, last.length - 1);
    });
  }

  const q = new RowQueue(part, w.types, res, forced);
  const feeds = plan.calls.map((p) => (p.kind === 'running' ? new Feed(p.agg, p.args, p.filter) : null));
  // sum/min/max without FILTER over numbers: the running state without boxing or accumulator calls.
  const typedRunning = plan.calls.map((p) => (p.kind === 'running' && p.filter === null && p.args.length === 1 ? RunningTypedAggregate.create(p.agg, total) : null));
  const empties = plan.calls.map((p) => (p.kind === 'running' || p.kind === 'suffix' ? p.agg.sliding().value() : null));
  const lastT = new Float64Array(calls.length).fill(-1);
  const lastV: Value[] = new Array<Value>(calls.length).fill(null);
  const firstVal: Value[] = new Array<Value>(calls.length).fill(null);
  const ntile = plan.calls.map(() => ({ started: false, ntile: 0, inBucket: 0, boundary: 0, remainder: 0 }));
  const tz = ctx.eval.timezone;
  let gStart = 0;
  let gOrd = 0;
  try {
    for (let a = 0; a < total; ) {
      await yieldIfDue(ctx);
      const b = Math.min(total, a + C);
      const lo = Math.max(0, a - plan.before);
      q.drop(lo);
      await q.ensure(Math.min(total, b + plan.after));
      let hi = Math.min(total, b + plan.after, q.loaded);
      if (plan.peerEnds && w.orderCmp !== null && b < total) hi = Math.max(hi, await q.peerEnd(w.orderCmp, b - 1, total));
      if (hi < b) throw new QuireError('XX000', `spilled window partition has ${q.loaded} rows, expected ${total}`);
      const blk = q.rows(lo, hi);
      const n = hi - lo;
      const m = b - a;
      const off = a - lo;
      const changes = w.orderCmp === null ? null : keyChanges(blk, w.orderKeys, w.orderCmp);
      const peers = blockPeers(n, changes);
      const wb: WindowBlock = { columns: blk.columns, length: n, ...peers, ctx };

      // Carried peer group of each chunk row (absolute start and ordinal) and its absolute end.
      const absStart = new Float64Array(m);
      const absOrd = new Float64Array(m);
      for (let r = a; r < b; r++) {
        if (r === 0) {
          gStart = 0;
          gOrd = 0;
        } else if (changes !== null && changes[r - lo] === 1) {
          gStart = r;
          gOrd++;
        }
        absStart[r - a] = gStart;
        absOrd[r - a] = gOrd;
      }
      const absEnd = (r: number): number => (w.orderCmp === null ? total : lo + peers.peerEnd[r - lo]!);

      const locals = new Map<number, FrameComputer>();
      const results: Column[] = [];
      for (let k = 0; k < calls.length; k++) {
        const p = plan.calls[k]!;
        const c = calls[k]!;
        if (p.kind === 'local') {
          let bounds = null;
          if (c.frame >= 0) {
            let fc = locals.get(c.frame);
            if (fc === undefined) {
              fc = new FrameComputer(w.frames[c.frame]!, n, w.rangeKey, tz);
              fc.compute(wb, 0, n);
              locals.set(c.frame, fc);
            }
            bounds = fc.bounds;
          }
          const full = new ResultColumn(c.type, n);
          c.evaluator.evaluate(wb, 0, n, bounds, full);
          results.push(sliceColumn(full.finish(), n, off, off + m));
          continue;
        }
        const out = new ResultColumn(c.type, m);
        if (positional(p.kind, out, a, m, total, absStart, absOrd, w.orderCmp === null ? null : peers.peerEnd, lo)) {
          results.push(out.finish());
          continue;
        }
        if (p.kind === 'ntile') {
          ntileChunk(ntile[k]!, blk.columns[p.arg]!, off, total, out, m);
          results.push(out.finish());
          continue;
        }
        const tr = typedRunning[k];
        if (p.kind === 'running' && tr !== null && tr !== undefined) {
          const col = blk.columns[p.args[0]!]!;
          let done = added[k]!;
          for (let i = 0; i < m; i++) {
            const r = a + i;
            const t = p.peers ? absEnd(r) : Math.max(0, Math.min(total, r + 1 + p.endDelta));
            while (done < t) tr.add(col, done++ - lo);
            tr.write(out, i);
          }
          added[k] = done;
          results.push(out.finish());
          continue;
        }
        for (let i = 0; i < m; i++) {
          const r = a + i;
          switch (p.kind) {
            case 'row_number':
              out.set(i, r + 1);
              break;
            case 'rank':
              out.set(i, absStart[i]! + 1);
              break;
            case 'dense_rank':
              out.set(i, absOrd[i]! + 1);
              break;
            case 'percent_rank':
              out.set(i, total > 1 ? absStart[i]! / (total - 1) : 0);
              break;
            case 'cume_dist':
              out.set(i, absEnd(r) / total);
              break;
            case 'whole':
              out.set(i, whole[k]!);
              break;
            case 'last-whole':
              out.set(i, p.startDelta === null || r + p.startDelta < total ? whole[k]! : null);
              break;
            case 'first': {
              if (r === 0) firstVal[k] = valueAt(blk.columns[p.arg]!, 0 - lo);
              const nonEmpty = p.endDelta === null || r + 1 + p.endDelta > 0;
              out.set(i, nonEmpty ? firstVal[k]! : null);
              break;
            }
            case 'suffix': {
              const st = Math.max(0, Math.min(total, r + p.startDelta));
              if (st !== lastT[k]) {
                const f = suffixFeeds[k]!;
                while (added[k]! < st) {
                  f.remove(blk, added[k]! - lo);
                  added[k]!++;
                }
                lastT[k] = st;
                lastV[k] = st === total ? empties[k]! : f.acc.value();
              }
              out.set(i, lastV[k]!);
              break;
            }
            case 'running': {
              const t = p.peers ? absEnd(r) : Math.max(0, Math.min(total, r + 1 + p.endDelta));
              if (t !== lastT[k]) {
                const f = feeds[k]!;
                while (added[k]! < t) {
                  f.add(blk, added[k]! - lo);
                  added[k]!++;
                }
                lastT[k] = t;
                lastV[k] = t === 0 ? empties[k]! : f.acc.value();
              }
              out.set(i, lastV[k]!);
              break;
            }
          }
        }
        results.push(out.finish());
      }
      const rowsOut = off === 0 && m === n ? blk : sliceBatch(blk, off, off + m);
      yield { columns: [...rowsOut.columns, ...results], length: m };
      a = b;
    }
  } finally {
    await q.close();
    res.free();
  }
}

/**
 * row_number, rank, dense_rank, percent_rank and cume_dist of chunk rows [a, a + m) straight into the
 * result's typed storage; false for other kinds.
 */
export function positional(
  kind: CallPlan['kind'],
  out: ResultColumn,
  a: number,
  m: number,
  total: number,
  absStart: Float64Array,
  absOrd: Float64Array,
  peerEnd: Int32Array | null,
  lo: number,
): boolean {
  const od = out.data;
  if (!(od instanceof Float64Array)) return false;
  switch (kind) {
    case 'row_number':
      for (let i = 0; i < m; i++) od[i] = a + i + 1;
      return true;
    case 'rank':
      for (let i = 0; i < m; i++) od[i] = absStart[i]! + 1;
      return true;
    case 'dense_rank':
      for (let i = 0; i < m; i++) od[i] = absOrd[i]! + 1;
      return true;
    case 'percent_rank':
      for (let i = 0; i < m; i++) od[i] = total > 1 ? absStart[i]! / (total - 1) : 0;
      return true;
    case 'cume_dist':
      if (peerEnd === null) od.fill(1, 0, m);
      else for (let i = 0; i < m; i++) od[i] = (lo + peerEnd[a + i - lo]!) / total;
      return true;
    default:
      return false;
  }
}

/** ntile over chunk rows [0, m) (block rows from `off`): once the bucket size is known, a plain counting loop. */
export function ntileChunk(s: NtileState, arg: Column, off: number, total: number, out: ResultColumn, m: number): void {
  let i = 0;
  for (; i < m && !s.started; i++) ntileStep(s, valueAt(arg, off + i), total, out, i);
  const od = out.data;
  if (!(od instanceof Int32Array)) {
    for (; i < m; i++) ntileStep(s, null, total, out, i);
    return;
  }
  let { ntile, inBucket, boundary, remainder } = s;
  for (; i < m; i++) {
    inBucket++;
    if (boundary < inBucket) {
      if (remainder !== 0 && ntile === remainder) {
        remainder = 0;
        boundary -= 1;
      }
      ntile += 1;
      inBucket = 1;
    }
    od[i] = ntile;
  }
  s.ntile = ntile;
  s.inBucket = inBucket;
  s.boundary = boundary;
  s.remainder = remainder;
}

export type NtileState = { started: boolean; ntile: number; inBucket: number; boundary: number; remainder: number };

/** PostgreSQL's window_ntile, one row at a time, so its state carries across chunks (see ntile.ts). */
function ntileStep(s: NtileState, arg: Value, total: number, out: ResultColumn, i: number): void {
  if (!s.started) {
    if (arg === null) {
      out.setNull(i);
      return;
    }
    const buckets = arg as number;
    if (buckets <= 0) throw new QuireError('22014', 'argument of ntile must be greater than zero');
    s.started = true;
    s.ntile = 1;
    s.inBucket = 0;
    s.boundary = Math.trunc(total / buckets);
    if (s.boundary <= 0) s.boundary = 1;
    else {
      s.remainder = total % buckets;
      if (s.remainder !== 0) s.boundary++;
    }
  }
  s.inBucket++;
  if (s.boundary < s.inBucket) {
    if (s.remainder !== 0 && s.ntile === s.remainder) {
      s.remainder = 0;
      s.boundary -= 1;
    }
    s.ntile += 1;
    s.inBucket = 1;
  }
  out.set(i, s.ntile);
}

function batchBytesHint(part: PartitionBuffer): number {
  return Math.max(1, part.maxBatchBytes);
}

/** The 53200 for a spilled partition whose calls cannot all be evaluated in chunks and that does not fit. */
export function notChunkable(label: string, rows: number, limit: number, cause: QuireError): QuireError {
  return new QuireError('53200', 'out of memory', {
    detail:
      `A window partition of ${rows} rows spilled (memory_limit is ${formatBytes(limit)}) and ${label} cannot be ` +
      `evaluated in chunks, so the whole partition must fit in memory: ${cause.detail ?? cause.message}`,
    hint: "Increase memory_limit (SET memory_limit = '1GB'), or use a frame bounded in rows.",
  });
}
