/**
 * One large partition held in memory whose calls are all positional (row_number, rank, dense_rank,
 * percent_rank, cume_dist, ntile): evaluated over the buffered batches where they lie, batch by batch.
 *
 * Such calls need only each row's peer group (its start, ordinal and end) and the partition's row count,
 * so nothing is re-read or copied into chunks with overlap as window-chunked.ts does for frames: one pass
 * marks where the ORDER BY keys change (within each batch and across batch edges, by key-changes.ts), a
 * backward pass turns that into peer ends when cume_dist needs them, and each batch is then emitted with
 * its result columns appended, yielding between batches.
 */
import type { Batch, Column } from '../../common/column.js';
import { yieldIfDue, type ExecContext } from '../../execution/context.js';
import type { MemoryReservation } from '../../execution/memory-pool.js';
import { ResultColumn } from '../../functions/window/window-function.js';
import { keyChanges, sameKeys } from '../key-changes.js';
import type { Comparator, SortKey } from '../sort-key.js';
import { ntileChunk, positional, type CallPlan, type NtileState } from './window-chunked.js';
import type { WindowCallDef } from './window.js';

/** Whether every call of a chunk plan can be evaluated by evaluatePositional. */
export function allPositional(plans: readonly CallPlan[]): boolean {
  return plans.every(
    (p) =>
      p.kind === 'row_number' ||
      p.kind === 'rank' ||
      p.kind === 'dense_rank' ||
      p.kind === 'percent_rank' ||
      p.kind === 'cume_dist' ||
      p.kind === 'ntile',
  );
}

/**
 * The batches of one complete partition, with one result column per call appended; null (nothing done)
 * when `res` cannot grow by the per-row peer bookkeeping, so the caller takes the chunked path instead.
 */
export function positionalPartition(
  batches: readonly Batch[],
  calls: readonly WindowCallDef[],
  plans: readonly CallPlan[],
  orderKeys: readonly SortKey[],
  orderCmp: Comparator | null,
  ctx: ExecContext,
  res: MemoryReservation,
): AsyncGenerator<Batch> | null {
  let total = 0;
  for (const b of batches) total += b.length;
  const needEnds = orderCmp !== null && plans.some((p) => p.kind === 'cume_dist');
  if (!res.tryGrow(total * (needEnds ? 5 : 1))) return null;
  return run(batches, total, needEnds, calls, plans, orderKeys, orderCmp, ctx, res);
}

async function* run(
  batches: readonly Batch[],
  total: number,
  needEnds: boolean,
  calls: readonly WindowCallDef[],
  plans: readonly CallPlan[],
  orderKeys: readonly SortKey[],
  orderCmp: Comparator | null,
  ctx: ExecContext,
  res: MemoryReservation,
): AsyncGenerator<Batch> {
  try {
    // changes[r] = 1 where row r starts a new peer group (row 0 does not count: it starts the partition).
    const changes = new Uint8Array(total);
    let groups = 1;
    if (orderCmp !== null) {
      let at = 0;
      let prev: Batch | null = null;
      for (const b of batches) {
        await yieldIfDue(ctx);
        if (b.length === 0) continue;
        changes.set(keyChanges(b, orderKeys, orderCmp), at);
        if (prev !== null && !sameKeys(prev, prev.length - 1, b, 0, orderKeys, orderCmp)) changes[at] = 1;
        at += b.length;
        prev = b;
      }
      groups = countGroups(changes, total);
    }
    // Every row its own peer group (ORDER BY a unique key): a row's peer group ends right after it, so
    // cume_dist needs no peer-end array and no backward pass.
    const distinct = total > 0 && groups === total;
    let peerEnd: Int32Array | null = null;
    if (needEnds && !distinct) {
      await yieldIfDue(ctx);
      peerEnd = peerEnds(changes, total);
    }
    const ntile: NtileState[] = plans.map(() => ({ started: false, ntile: 0, inBucket: 0, boundary: 0, remainder: 0 }));
    const peers: PeerCursor = { start: 0, ord: 0 };
    let a = 0;
    // Peer starts and ordinals of the batch being emitted: read only while its result columns are
    // written, so one pair of arrays serves every batch (fresh ones per batch cost collections).
    let widest = 0;
    for (const b of batches) if (b.length > widest) widest = b.length;
    const absStartAll = new Float64Array(widest);
    const absOrdAll = new Float64Array(widest);
    for (const b of batches) {
      await yieldIfDue(ctx);
      const m = b.length;
      if (m === 0) continue;
      const absStart = absStartAll.subarray(0, m);
      const absOrd = absOrdAll.subarray(0, m);
      peerStarts(changes, a, m, peers, absStart, absOrd);
      const results: Column[] = [];
      for (let k = 0; k < calls.length; k++) {
        const p = plans[k]!;
        const out = new ResultColumn(calls[k]!.type, m);
        if (p.kind === 'ntile') ntileChunk(ntile[k]!, b.columns[p.arg]!, 0, total, out, m);
        else if (p.kind === 'cume_dist' && distinct && out.data instanceof Float64Array) distinctCumeDist(out.data, a, m, total);
        else if (!positional(p.kind, out, a, m, total, absStart, absOrd, peerEnd, 0)) writeBoxed(p.kind, out, a, m, total, absStart, absOrd, peerEnd);
        results.push(out.finish());
      }
      yield { columns: [...b.columns, ...results], length: m };
      a += m;
    }
  } finally {
    res.free();
  }
}

// The per-row loops live in plain functions: V8 optimizes a loop inside an async generator far less
// well than the same loop in an ordinary function.

/** Peer groups of the partition: row 0 starts one, and so does every row marked in `changes`. */
function countGroups(changes: Uint8Array, total: number): number {
  let g = total > 0 ? 1 : 0;
  for (let r = 1; r < total; r++) g += changes[r]!;
  return g;
}

/** cume_dist of rows a..a+m-1 when every row is its own peer group: (row number) / rows, PostgreSQL's division. */
function distinctCumeDist(od: Float64Array, a: number, m: number, total: number): void {
  for (let i = 0; i < m; i++) od[i] = (a + i + 1) / total;
}

/** peerEnd[r]: the row after the last peer of row r, from the peer-group starts marked in `changes`. */
function peerEnds(changes: Uint8Array, total: number): Int32Array {
  const peerEnd = new Int32Array(total);
  let e = total;
  for (let r = total - 1; r >= 0; r--) {
    peerEnd[r] = e;
    if (changes[r] === 1) e = r;
  }
  return peerEnd;
}

/** Where the peer group of the row being read starts, and its ordinal, carried across batches. */
interface PeerCursor {
  start: number;
  ord: number;
}

/** Peer-group start and ordinal of rows a..a+m-1 of the partition, into absStart/absOrd[0..m-1]. */
function peerStarts(changes: Uint8Array, a: number, m: number, c: PeerCursor, absStart: Float64Array, absOrd: Float64Array): void {
  let gStart = c.start;
  let gOrd = c.ord;
  for (let i = 0; i < m; i++) {
    if (changes[a + i] === 1) {
      gStart = a + i;
      gOrd++;
    }
    absStart[i] = gStart;
    absOrd[i] = gOrd;
  }
  c.start = gStart;
  c.ord = gOrd;
}

/** The same values as positional() for result columns not held in a Float64Array. */
function writeBoxed(
  kind: CallPlan['kind'],
  out: ResultColumn,
  a: number,
  m: number,
  total: number,
  absStart: Float64Array,
  absOrd: Float64Array,
  peerEnd: Int32Array | null,
): void {
  for (let i = 0; i < m; i++) {
    switch (kind) {
      case 'row_number':
        out.set(i, a + i + 1);
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
        out.set(i, peerEnd === null ? 1 : peerEnd[a + i]! / total);
        break;
    }
  }
}
