/**
 * Window: evaluates the window functions of one (PARTITION BY, ORDER BY) group over input that is
 * already sorted by the partition keys and then the ORDER BY keys (plan-window.ts puts a Sort below
 * when needed).
 *
 * Streaming: batches are buffered only until the current partition is known to be complete (a row with
 * different partition keys arrives, or the input ends); then every complete partition buffered so far is
 * evaluated as one columnar block and emitted with one result column per call appended. Memory holds the
 * current partition (plus the tail of the batch that ended it), never the whole input, and each input row
 * is copied into a block at most once.
 *
 * Per block: one pass finds partition starts and peer groups (rows equal on every ORDER BY key) from
 * the key-change flags of key-changes.ts; per partition, each distinct frame is computed once (frame.ts)
 * and shared by the calls that use it; each call's evaluator (src/functions/window) writes its results
 * straight into a typed result column.
 */
import { QuireError } from '../../common/errors.js';
import type { DataType, Field, Value } from '../../common/types.js';
import { BATCH_SIZE, concatBatches, sliceBatch, type Batch, type Column } from '../../common/column.js';
import { yieldIfDue, type ExecContext } from '../../execution/context.js';
import type { Expr } from '../../logical/expr.js';
import type { ResolvedAggregate } from '../../functions/aggregate/aggregate-function.js';
import { PartitionBuffer } from '../../execution/spill/partition-buffer.js';
import { queryMemory } from '../../execution/memory-pool.js';
import { FrameComputer, type BoundKind, type FrameUnits, type RangeKey, type ResolvedFrame } from '../../functions/window/frame.js';
import { ResultColumn, type ExcludeMode, type WindowBlock, type WindowEvaluator } from '../../functions/window/window-function.js';
import { evalConstant } from '../compile-expr.js';
import { keyChanges, leadingRunEnd, sameKeys, trailingRunStart } from '../key-changes.js';
import { PhysicalOperator, type ExplainHow, type ExplainInputs, type ExplainNode } from '../operator.js';
import { compileComparator, describeKeys, type Comparator, type SortKey } from '../sort-key.js';
import { allPositional, positionalPartition } from './window-positional.js';
import { evaluateSpilledPartition, notChunkable, planChunks, type ChunkPlan, type WindowShape } from './window-chunked.js';

/** Rows from which a partition held in memory is evaluated in chunks, with yields between them (see chunkInMemory). */
const IN_MEMORY_CHUNK_ROWS = 1 << 16;
/** Rows per chunk of such a partition: small enough that one chunk's work stays well under a loop turn's budget. */
const IN_MEMORY_CHUNK = 1 << 14;

/** A frame clause as planned: offsets are constant expressions, evaluated when execution starts. */
export interface WindowFrameDef {
  readonly units: FrameUnits;
  readonly startKind: BoundKind;
  readonly endKind: BoundKind;
  readonly startOffset: Expr | null;
  readonly endOffset: Expr | null;
  readonly exclude: ExcludeMode;
}

export interface WindowCallDef {
  readonly evaluator: WindowEvaluator;
  /** Index into the operator's frames, or -1 for functions that ignore the frame. */
  readonly frame: number;
  readonly type: DataType;
  /** EXPLAIN text, e.g. "sum(v) ROWS BETWEEN 10 PRECEDING AND CURRENT ROW". */
  readonly label: string;
  readonly name: string;
  /** Argument / FILTER columns, argument expressions and the aggregate (for aggregates over OVER): what
   * chunked evaluation of a spilled partition (window-chunked.ts) reads besides the evaluator. */
  readonly args?: readonly number[];
  readonly argExprs?: readonly Expr[];
  readonly filter?: number | null;
  readonly aggregate?: ResolvedAggregate | null;
}

export class Window extends PhysicalOperator {
  readonly name = 'Window';
  private readonly partCmp: Comparator | null;
  private readonly orderCmp: Comparator | null;
  /** Whether any call reads peer groups; when none does, blocks skip comparing the ORDER BY keys. */
  private readonly peers: boolean;

  constructor(
    readonly input: PhysicalOperator,
    readonly partitionKeys: readonly SortKey[],
    readonly orderKeys: readonly SortKey[],
    readonly frames: readonly WindowFrameDef[],
    readonly calls: readonly WindowCallDef[],
    /** EXPLAIN names of the partition / order keys (the projected helper columns have no useful names). */
    private readonly keyNames: { partition: string[]; order: string[] },
  ) {
    super([...input.schema, ...calls.map((c): Field => ({ name: c.name, type: c.type }))]);
    this.partCmp = partitionKeys.length > 0 ? compileComparator(partitionKeys) : null;
    this.orderCmp = orderKeys.length > 0 ? compileComparator(orderKeys) : null;
    this.peers = calls.some((c) => readsPeers(c, frames));
  }

  children(): readonly PhysicalOperator[] {
    return [this.input];
  }

  describe(): string {
    const parts: string[] = [];
    if (this.partitionKeys.length > 0) parts.push(`partition: [${this.keyNames.partition.join(', ')}]`);
    if (this.orderKeys.length > 0) {
      const names: string[] = [];
      this.orderKeys.forEach((k, i) => (names[k.col] = this.keyNames.order[i]!));
      parts.push(`order: ${describeKeys(this.orderKeys, names)}`);
    }
    parts.push(`functions: [${this.calls.map((c) => c.label).join(', ')}]`);
    return parts.join(', ');
  }
  override explainNode(inputs: ExplainInputs): ExplainNode {
    return { label: 'WindowAgg', details: [], outputs: [...(inputs[0] ?? []), ...this.calls.map((c) => `${c.label.replace(/\s+(ROWS|RANGE|GROUPS)\b.*$/, '')} OVER (?)`)], projects: true };
  }

  private resolveFrames(ctx: ExecContext): ResolvedFrame[] {
    return this.frames.map((f) => {
      const off = (e: Expr | null, which: 'starting' | 'ending'): Value => {
        if (e === null) return null;
        const v = evalConstant(e, ctx);
        if (v === null) throw new QuireError('22004', `frame ${which} offset must not be null`);
        if (f.units !== 'range' && (typeof v === 'bigint' ? v < 0n : (v as number) < 0)) {
          throw new QuireError('22013', `frame ${which} offset must not be negative`);
        }
        return v;
      };
      const startOffset = off(f.startOffset, 'starting');
      const endOffset = off(f.endOffset, 'ending');
      return { units: f.units, startKind: f.startKind, endKind: f.endKind, startOffset, endOffset, exclude: f.exclude };
    });
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    // Offsets are evaluated (and checked) before any input is read, as PostgreSQL does on its first call.
    const frames = this.resolveFrames(ctx);
    const types = this.input.schema.map((f) => f.type);
    // The current partition, accounted against memory_limit; it spills when the reservation cannot grow.
    const part = new PartitionBuffer(ctx, types, 'window');
    this.chunkPlan = null;
    this.frameCache = [];
    // The last row of the previous batch, to tell whether the next batch continues its partition.
    let last: Batch | null = null;
    const keys = this.partitionKeys;
    const cmp = this.partCmp;
    /** Whether row 0 of b continues the partition of the previous batch's last row. */
    const continues = (b: Batch): boolean => last !== null && sameKeys(last, last.length - 1, b, 0, keys, cmp!);
    /** End of the rows of b that equal row 0 (the partition continued from before b), up to x. */
    const headEnd = (b: Batch, x: number): number => leadingRunEnd(b, keys, cmp!, x);
    try {
      for await (const b of this.input.execute(ctx)) {
        if (b.length === 0) continue;
        await yieldIfDue(ctx);
        // Last partition start in b: where the run of rows equal to its last row begins.
        let x = 0;
        let boundary = false;
        if (cmp !== null) {
          x = trailingRunStart(b, keys, cmp);
          boundary = x > 0 || (part.rows > 0 && !continues(b));
        }
        if (!boundary) {
          await part.push(b);
          last = b;
          continue;
        }
        if (part.spilled || this.chunkInMemory(part, frames, types, ctx)) {
          // The spilled (or large) partition ends at b's first partition start; what follows up to x is complete.
          const x0 = continues(b) ? headEnd(b, x) : 0;
          if (x0 > 0) await part.push(sliceBatch(b, 0, x0));
          yield* this.emitSpilled(part, frames, types, ctx);
          await part.clear();
          if (x0 < x) yield* this.emit(sliceBatch(b, x0, x), frames, ctx);
        } else if (part.rows > 0 || x > 0) {
          // Only the partition continued from earlier batches is copied into a block of its own; the
          // complete partitions after it are evaluated on a slice of b, which copies nothing for typed
          // columns (with small partitions, copying every row into blocks cost more than the functions).
          const x0 = part.rows > 0 && x > 0 && continues(b) ? headEnd(b, x) : 0;
          if (part.rows > 0) {
            const head = x0 === 0 ? [...part.memoryBatches] : [...part.memoryBatches, sliceBatch(b, 0, x0)];
            await part.clear();
            yield* this.emit(concatBatches(types, head), frames, ctx);
          }
          if (x0 < x) yield* this.emit(sliceBatch(b, x0, x), frames, ctx);
        }
        const tail = x === 0 ? b : sliceBatch(b, x, b.length);
        await part.push(tail);
        last = tail;
      }
      if (part.rows > 0) {
        if (part.spilled || this.chunkInMemory(part, frames, types, ctx)) yield* this.emitSpilled(part, frames, types, ctx);
        else {
          const all = concatBatches(types, part.memoryBatches);
          await part.clear();
          yield* this.emit(all, frames, ctx);
        }
      }
    } finally {
      this.reportSpill(part);
      await part.close();
    }
  }

  /** How this execution evaluates spilled partitions (frame offsets are per execution). */
  private chunkPlan: ChunkPlan | { unsupported: string } | null = null;

  /**
   * Whether a partition held in memory is evaluated chunk by chunk, as a spilled one is: when it is
   * large enough that evaluating it in one piece would hold the event loop (and ignore cancel) for
   * too long, and its calls can be chunked (window-chunked.ts); otherwise in one piece.
   */
  private chunkInMemory(part: PartitionBuffer, frames: ResolvedFrame[], types: DataType[], ctx: ExecContext): boolean {
    if (part.rows < IN_MEMORY_CHUNK_ROWS) return false;
    if (this.chunkPlan === null) {
      const key0 = this.orderKeys[0];
      this.chunkPlan = planChunks(
        {
          calls: this.calls,
          frames,
          orderCmp: this.orderCmp,
          orderKeys: this.orderKeys,
          rangeKey: key0 === undefined ? null : { col: key0.col, type: key0.type, desc: key0.desc, nullsFirst: key0.nullsFirst },
          types,
        },
        ctx,
      );
    }
    return !('unsupported' in this.chunkPlan);
  }

  /** A partition that spilled: chunked evaluation, or (for calls that cannot be chunked) materialised. */
  private async *emitSpilled(part: PartitionBuffer, frames: ResolvedFrame[], types: DataType[], ctx: ExecContext): AsyncGenerator<Batch> {
    const key0 = this.orderKeys[0];
    const shape: WindowShape = {
      calls: this.calls,
      frames,
      orderCmp: this.orderCmp,
      orderKeys: this.orderKeys,
      rangeKey: key0 === undefined ? null : { col: key0.col, type: key0.type, desc: key0.desc, nullsFirst: key0.nullsFirst },
      types,
    };
    this.chunkPlan ??= planChunks(shape, ctx);
    const plan = this.chunkPlan;
    if (part.spilled) this.spilledPartitions++;
    if ('unsupported' in plan) {
      let all: Batch;
      try {
        all = await part.materialize();
      } catch (e) {
        if (e instanceof QuireError && e.code === '53200') throw notChunkable(plan.unsupported, part.rows, queryMemory(ctx).pool.limit, e);
        throw e;
      }
      await part.clear();
      yield* this.emit(all, frames, ctx);
      return;
    }
    const res = queryMemory(ctx).pool.register('window chunk', false);
    if (!part.spilled && allPositional(plan.calls)) {
      // Positional calls need no overlap or re-reading: one pass over the batches where they lie.
      const direct = positionalPartition(part.memoryBatches, this.calls, plan.calls, this.orderKeys, this.orderCmp, ctx, res);
      if (direct !== null) {
        yield* direct;
        return;
      }
    }
    yield* evaluateSpilledPartition(part, shape, plan, ctx, res, part.spilled ? undefined : IN_MEMORY_CHUNK);
  }

  private spilledPartitions = 0;

  private reportSpill(part: PartitionBuffer): void {
    if (this.spilledPartitions === 0) return;
    const x = this.metrics.extra;
    x['spilled partitions'] = this.spilledPartitions;
    x['spill files'] = part.files;
    x['spilled bytes'] = part.spilledBytes;
  }

  /** Frame computers reused by the blocks of one execution (evaluateBlock); frame offsets are per execution. */
  private frameCache: FrameComputer[][] = [];

  private *emit(block: Batch, frames: ResolvedFrame[], ctx: ExecContext): Generator<Batch> {
    const results = evaluateBlock(block, frames, ctx, this.partCmp, this.orderCmp, this.peers, this.partitionKeys, this.orderKeys, this.calls, this.frameCache);
    const out: Batch = { columns: [...block.columns, ...results], length: block.length };
    if (out.length <= BATCH_SIZE * 4) {
      yield out;
      return;
    }
    for (let s = 0; s < out.length; s += BATCH_SIZE) yield sliceBatch(out, s, Math.min(out.length, s + BATCH_SIZE));
  }
}

/**
 * Functions that ignore peer groups: row_number, lag, lead and ntile depend on row positions only, and
 * so does a ROWS frame unless it excludes the current row's peers. Everything else (rank and its
 * relatives, RANGE and GROUPS frames, EXCLUDE GROUP / TIES) reads them.
 */
const PEER_FREE = new Set(['row_number', 'lag', 'lead', 'ntile']);

function readsPeers(c: WindowCallDef, frames: readonly WindowFrameDef[]): boolean {
  if (c.frame < 0) return !PEER_FREE.has(c.name);
  const f = frames[c.frame]!;
  return f.units !== 'rows' || f.exclude === 'group' || f.exclude === 'ties';
}

/** Blocks up to this many rows borrow the boundary arrays below instead of allocating their own. */
const SHARED_BOUNDARY_ROWS = 1 << 16;
let sharedBoundaries: { partStart: Uint8Array; peerStart: Int32Array; peerEnd: Int32Array; group: Int32Array } | null = null;

/**
 * Partition and peer boundaries of a block of n rows (partStart zeroed, the others to be written in full).
 * Blocks are mostly a batch long and there are hundreds of them per query: sharing one set of arrays
 * spares as many external allocations, which V8 pays for in collections. evaluateBlock runs without
 * yielding and no evaluator keeps the arrays past its call, so one set serves every query.
 */
function boundaryArrays(n: number): { partStart: Uint8Array; peerStart: Int32Array; peerEnd: Int32Array; group: Int32Array } {
  if (n > SHARED_BOUNDARY_ROWS) return { partStart: new Uint8Array(n), peerStart: new Int32Array(n), peerEnd: new Int32Array(n), group: new Int32Array(n) };
  if (sharedBoundaries === null || sharedBoundaries.partStart.length < n) {
    const cap = Math.min(SHARED_BOUNDARY_ROWS, Math.max(n, 2 * (sharedBoundaries?.partStart.length ?? 1024)));
    sharedBoundaries = { partStart: new Uint8Array(cap), peerStart: new Int32Array(cap), peerEnd: new Int32Array(cap), group: new Int32Array(cap) };
  }
  const b = sharedBoundaries;
  const partStart = b.partStart.subarray(0, n);
  partStart.fill(0);
  return { partStart, peerStart: b.peerStart.subarray(0, n), peerEnd: b.peerEnd.subarray(0, n), group: b.group.subarray(0, n) };
}

/**
 * Every window call over one block of complete partitions. A plain function rather than a method: its
 * optimized code then does not check the shape of the per-query operator object, and survives from one
 * query to the next (see shape-anchor.ts).
 */
function evaluateBlock(
  block: Batch,
  frames: ResolvedFrame[],
  ctx: ExecContext,
  partCmp: Comparator | null,
  orderCmp: Comparator | null,
  peers: boolean,
  partitionKeys: readonly SortKey[],
  orderKeys: readonly SortKey[],
  calls: readonly WindowCallDef[],
  cache: FrameComputer[][],
): Column[] {
  const n = block.length;
  const { partStart, peerStart, peerEnd, group } = boundaryArrays(n);
  // Key changes per row (key-changes.ts): typed loops over the key columns instead of comparator calls.
  const pc = partCmp === null ? null : keyChanges(block, partitionKeys, partCmp);
  if (pc !== null) partStart.set(pc);
  partStart[0] = 1;
  if (peers) {
    const oc = orderCmp === null ? null : keyChanges(block, orderKeys, orderCmp);
    peerStart[0] = 0;
    group[0] = 0;
    let g = 0;
    let st = 0;
    for (let i = 1; i < n; i++) {
      if (partStart[i] === 1) {
        g = 0;
        st = i;
      } else if (oc !== null && oc[i] === 1) {
        g++;
        st = i;
      }
      peerStart[i] = st;
      group[i] = g;
    }
    // Peer ends: walk backwards.
    let e = n;
    for (let i = n - 1; i >= 0; i--) {
      peerEnd[i] = e;
      if (peerStart[i] === i) e = i;
    }
  }
  // Without peers (every call positional or over a ROWS frame that excludes no peers) nothing reads the
  // peer arrays, so they are left as they are.

  const wb: WindowBlock = { columns: block.columns, length: n, peerStart, peerEnd, group, ctx };
  const computers = frameComputers(cache, frames, n, orderKeys, ctx);
  const used = new Uint8Array(frames.length);
  for (const c of calls) if (c.frame >= 0) used[c.frame] = 1;
  const outs = calls.map((c) => new ResultColumn(c.type, n));
  let s = 0;
  while (s < n) {
    let e = s + 1;
    while (e < n && partStart[e] === 0) e++;
    for (let k = 0; k < computers.length; k++) if (used[k] === 1) computers[k]!.compute(wb, s, e);
    for (let k = 0; k < calls.length; k++) {
      const c = calls[k]!;
      c.evaluator.evaluate(wb, s, e, c.frame >= 0 ? computers[c.frame]!.bounds : null, outs[k]!);
    }
    s = e;
  }
  return outs.map((o) => o.finish());
}

/**
 * One FrameComputer per frame with room for n rows, kept across the blocks of one execution: blocks are
 * mostly a batch long, and allocating two bound arrays per frame per block cost collections.
 */
function frameComputers(cache: FrameComputer[][], frames: ResolvedFrame[], n: number, orderKeys: readonly SortKey[], ctx: ExecContext): FrameComputer[] {
  if (frames.length === 0) return [];
  const have = cache[0];
  if (have !== undefined && have[0]!.fs.length >= n) return have;
  const key0 = orderKeys[0];
  const rangeKey: RangeKey | null = key0 === undefined ? null : { col: key0.col, type: key0.type, desc: key0.desc, nullsFirst: key0.nullsFirst };
  const cap = have === undefined ? n : Math.max(n, 2 * have[0]!.fs.length);
  const made = frames.map((f) => new FrameComputer(f, cap, rangeKey, ctx.eval.timezone));
  cache[0] = made;
  return made;
}
