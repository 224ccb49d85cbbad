/**
 * HashJoinAggregate: GROUP BY over an inner hash join (no residual) whose group keys are all build-side
 * columns and whose aggregate arguments are all probe-side columns — the star join "dimension attribute,
 * measures from the fact table" — or aggregates of probe-side columns without GROUP BY (one group, one
 * output row even when nothing joins).
 *
 * The build rows are grouped once, so each build row carries its group id; a probe then turns straight
 * into group ids for the accumulators, which read the probe batch's own argument columns. No joined row is
 * materialized: the build-side text keys are never gathered per pair and never hashed again by the
 * aggregate. Pairs are fed in the order HashJoin would emit them and groups come out in the order of their
 * first pair, so results (floating-point sums, string_agg order) are those of the join + HashAggregate plan.
 *
 * A direct-address build table (small non-negative int keys) is read without chain heads: its slots are
 * mapped once to what the probe needs (the group of a unique key, or a key's number of build rows for
 * count(*)), and count(*) evaluates an inner join's probe-side filter in the same loop. Without GROUP BY
 * over unique build keys, the matched probe rows are the pairs: accumulators that can fold a selection
 * into one group (count, float sum) read them without any group id being written.
 */
import type { Schema } from '../../common/types.js';
import { BATCH_SIZE, ColumnBuilder, makeColumn, sliceBatch, takeColumn, type Batch, type Column } from '../../common/column.js';
import { yieldEvery, yieldIfDue, type ExecContext } from '../../execution/context.js';
import { HASH_ENTRY_BYTES, queryMemory, type MemoryReservation } from '../../execution/memory-pool.js';
import type { GroupedAccumulator, ResolvedAggregate } from '../../functions/aggregate/aggregate-function.js';
import { PhysicalOperator } from '../operator.js';
import { compilePredicateKernel, compilePredicateWeightSum, type PredicateKernel, type PredicateWeightSum } from '../compile-expr.js';
import { Filter } from './filter.js';
import { makeGrouper } from './hash-aggregate.js';
import { allChainsSingle, chainLengths, directPairs, directSlots, directSum, joinedRows, type HashJoin } from './hash-join.js';

export interface JoinAggSpec {
  impl: ResolvedAggregate;
  /** Probe-side (left) columns holding the arguments; empty for count(*). */
  argCols: number[];
}

/** Per group: hash entry, first-seen flag and order slot, and a few bytes of state per aggregate. */
const GROUP_BYTES = HASH_ENTRY_BYTES + 8;
const STATE_BYTES = 16;

/** Where fillPairs stopped: probe row, and build row within its chain (-2 = chain not started). */
interface Resume {
  i: number;
  r: number;
}

// The loops below are plain functions rather than inline in the async generator, where V8 optimizes
// them far less.

/**
 * For a build side with unique keys: the batch rows of the matched probe rows and their groups, compacted
 * without a branch per row (written unconditionally, advanced on a match), so the accumulators get dense
 * group ids instead of skipping unmatched rows one mispredicted branch at a time.
 */
function uniquePairs(heads: Int32Array, m: number, sel: Uint32Array | null, buildGroup: Int32Array, rows: Uint32Array, gids: Int32Array): number {
  let n = 0;
  for (let i = 0; i < m; i++) {
    const h = heads[i]!;
    rows[n] = sel === null ? i : sel[i]!;
    // h & ~(h >> 31) is h, or 0 for no match (-1): a conditional here compiled to a branch that
    // mispredicted on every other row of a 50% match.
    gids[n] = buildGroup[h & ~(h >> 31)]!;
    n += ~h >>> 31;
  }
  return n;
}

/**
 * uniquePairs for one group (no GROUP BY): only the batch rows of the matched probe rows, compacted
 * branch-free; the accumulators then fold them into group 0 without group ids.
 */
function matchedRows(heads: Int32Array, m: number, sel: Uint32Array | null, rows: Uint32Array): number {
  let n = 0;
  for (let i = 0; i < m; i++) {
    rows[n] = sel === null ? i : sel[i]!;
    n += ~heads[i]! >>> 31;
  }
  return n;
}

/** matchedRows over int4 probe keys of a direct table: a row matches when its key's slot is not -1. */
function directMatchedRows(pd: Int32Array, sel: Uint32Array | null, m: number, heads: Int32Array, max: number, rows: Uint32Array): number {
  let n = 0;
  if (sel === null) {
    for (let i = 0; i < m; i++) {
      const v = pd[i]!;
      const h = v >>> 0 <= max ? heads[v]! : -1;
      rows[n] = i;
      n += ~h >>> 31;
    }
  } else {
    for (let j = 0; j < m; j++) {
      const i = sel[j]!;
      const v = pd[i]!;
      const h = v >>> 0 <= max ? heads[v]! : -1;
      rows[n] = i;
      n += ~h >>> 31;
    }
  }
  return n;
}

/**
 * The pairs of probe rows [at.i, m) with their chains, in join output order, until `rows` is full: the
 * probe batch row of each pair (sel maps probe index to batch row) and the group of its build row.
 */
function fillPairs(
  heads: Int32Array,
  next: Int32Array,
  sel: Uint32Array | null,
  m: number,
  buildGroup: Int32Array,
  rows: Uint32Array,
  gids: Int32Array,
  at: Resume,
): number {
  let n = 0;
  let i = at.i;
  let r = at.r;
  const cap = rows.length;
  for (;;) {
    if (r === -2) {
      if (i >= m) break;
      r = heads[i]!;
    }
    while (r !== -1) {
      if (n === cap) {
        at.i = i;
        at.r = r;
        return n;
      }
      rows[n] = sel === null ? i : sel[i]!;
      gids[n] = buildGroup[r]!;
      n++;
      r = next[r]!;
    }
    i++;
    r = -2;
  }
  at.i = i;
  at.r = -2;
  return n;
}

/**
 * The pairs' argument rows (batch rows `rows[0..n)`, or the batch's first n when null) into `acc`: read
 * through the rows when the accumulator can, else gathered for it.
 */
function feed(acc: GroupedAccumulator, gids: Int32Array, rows: Uint32Array | null, n: number, argCols: readonly number[], batch: Batch): void {
  const args: Column[] = new Array(argCols.length);
  for (let j = 0; j < argCols.length; j++) args[j] = batch.columns[argCols[j]!]!;
  if (rows === null) acc.update(gids, n, args);
  else if (acc.updateSel !== undefined) acc.updateSel(gids, rows, n, args);
  else {
    for (let j = 0; j < args.length; j++) args[j] = takeColumn(args[j]!, rows, n);
    acc.update(gids, n, args);
  }
}

/**
 * The probe side's Filter, when its predicate can run inside the probe loop: an inner join's probe side
 * (HashJoin.probeSide hands inner joins the Filter's selections too), no subqueries in the predicate, and
 * no EXPLAIN ANALYZE (which counts the Filter's own rows).
 */
function fusedFilter(join: HashJoin, ctx: ExecContext): { input: PhysicalOperator; weightSum: PredicateWeightSum; kernel: PredicateKernel } | null {
  const f = join.left;
  if (join.type !== 'inner' || !(f instanceof Filter) || ctx.analyze) return null;
  const weightSum = compilePredicateWeightSum(f.predicate);
  if (weightSum === null) return null;
  return { input: f.input, weightSum, kernel: compilePredicateKernel(f.predicate) };
}

function noteGroups(gids: Int32Array, n: number, seen: Uint8Array, order: Uint32Array, nSeen: number): number {
  for (let k = 0; k < n; k++) {
    const g = gids[k]!;
    if (seen[g] === 0) {
      seen[g] = 1;
      order[nSeen++] = g;
    }
  }
  return nSeen;
}

export class HashJoinAggregate extends PhysicalOperator {
  readonly name = 'HashJoinAggregate';

  constructor(
    readonly join: HashJoin,
    /** Build-side (right) columns that are the group keys, in GROUP BY order. */
    readonly keyCols: readonly number[],
    readonly aggs: readonly JoinAggSpec[],
    schema: Schema,
  ) {
    super(schema);
  }

  children(): readonly PhysicalOperator[] {
    return [this.join.left, this.join.right];
  }

  describe(): string {
    const ls = this.join.left.schema;
    const rs = this.join.right.schema;
    const keys = this.keyCols.map((k) => rs[k]?.name ?? `#${k}`).join(', ');
    const aggs = this.aggs.map((a) => (a.argCols.length === 0 && a.impl.name === 'count' ? 'count(*)' : `${a.impl.name}(${a.argCols.map((c) => ls[c]?.name ?? `#${c}`).join(', ')})`));
    return `${this.join.describe()}, group keys: [${keys}], aggs: ${aggs.join(', ')}`;
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    const reservation = queryMemory(ctx).pool.register('HashJoinAggregate', false);
    try {
      yield* this.aggregate(ctx, reservation);
    } finally {
      reservation.free();
    }
  }

  /** The one output row of aggregates without GROUP BY (group 0). */
  private resultRow(accs: GroupedAccumulator[]): Batch {
    const columns = accs.map((acc, j) => {
      acc.grow(1);
      const b = new ColumnBuilder(this.aggs[j]!.impl.returnType, 1);
      b.push(acc.result(0));
      return b.finish();
    });
    return { columns, length: 1 };
  }

  private async *aggregate(ctx: ExecContext, reservation: MemoryReservation): AsyncGenerator<Batch> {
    // Only the join keys and the group keys of the build side are read: the other columns are not copied.
    const read = this.join.right.schema.map(() => false);
    for (const k of [...this.join.rightKeys, ...this.keyCols]) read[k] = true;
    const built = await this.join.buildSide(ctx, reservation, read);
    // Without GROUP BY there is exactly one row, even when nothing joins.
    const keyless = this.keyCols.length === 0;
    if (built === null) {
      if (keyless) yield this.resultRow(this.aggs.map((a) => a.impl.grouped()));
      return;
    }
    const { build, table } = built;
    const nb = build.length;
    const types = this.schema.map((f) => f.type);
    const grouper = makeGrouper(this.keyCols.map((_, i) => types[i]!));
    const buildGroup = new Int32Array(nb);
    const keyBatch: Batch = { columns: this.keyCols.map((k) => build.columns[k]!), length: nb };
    for (let s = 0; s < nb; s += BATCH_SIZE) {
      const e = Math.min(nb, s + BATCH_SIZE);
      buildGroup.set(grouper.assign(sliceBatch(keyBatch, s, e), e - s).subarray(0, e - s), s);
      const due = yieldIfDue(ctx);
      if (due !== undefined) await due;
    }
    const groups = grouper.count;
    reservation.grow(groups * (GROUP_BYTES + STATE_BYTES * this.aggs.length), 'hash aggregate groups and states');
    const accs: GroupedAccumulator[] = this.aggs.map((a) => a.impl.grouped());
    for (const acc of accs) acc.grow(groups);
    const seen = new Uint8Array(groups);
    const order = new Uint32Array(groups);
    let nSeen = 0;
    const next = table.next;
    const unique = allChainsSingle(next);
    let heads = new Int32Array(BATCH_SIZE);
    let gids = new Int32Array(BATCH_SIZE);
    let rows = new Uint32Array(BATCH_SIZE);
    const at: Resume = { i: 0, r: -2 };
    const argCols = this.aggs.map((a) => a.argCols);
    if (keyless && accs.every((acc, j) => this.aggs[j]!.argCols.length === 0 && this.aggs[j]!.impl.name === 'count' && acc.updateGroup !== undefined)) {
      // count(*) alone: the number of pairs is the sum of the matched chains' lengths, so no pair is
      // visited and no row or group id is written.
      const chainLength = unique ? null : chainLengths(next);
      const direct = table.direct;
      // A direct table's slots hold their chain's length, so an int4 probe key adds it in one read.
      const slotRows = direct === undefined ? null : directSlots(table.head, chainLength ?? new Int32Array(nb).fill(1), 0);
      let total = 0;
      const fused = slotRows === null ? null : fusedFilter(this.join, ctx);
      if (fused !== null) {
        // The probe side's filter runs inside the count: no selection vector per batch.
        const { input, weightSum, kernel } = fused;
        const { max, probeCol } = direct!;
        let buf = new Uint32Array(BATCH_SIZE);
        for await (const batch of input.execute(ctx)) {
          if (batch.length === 0) continue;
          if (batch.columns[probeCol]!.data instanceof Int32Array) total += weightSum(batch, ctx, probeCol, slotRows!, max);
          else {
            if (buf.length < batch.length) buf = new Uint32Array(batch.length);
            const { sel, n: m } = kernel.run(batch, ctx, [], buf);
            if (heads.length < m) heads = new Int32Array(m);
            table.probe(batch, heads, sel, m);
            total += joinedRows(heads, m, chainLength);
          }
          const due = yieldIfDue(ctx);
          if (due !== undefined) await due;
        }
        for (const acc of accs) acc.updateGroup!(0, total, []);
        yield this.resultRow(accs);
        return;
      }
      for await (const { batch, sel, n: m } of this.join.probeSide(ctx)) {
        const pc = direct === undefined ? null : batch.columns[direct.probeCol]!;
        if (slotRows !== null && pc!.data instanceof Int32Array && pc!.nulls === null) {
          total += directSum(pc!.data, sel, m, slotRows, direct!.max);
        } else {
          if (heads.length < m) heads = new Int32Array(m);
          table.probe(batch, heads, sel, m);
          total += joinedRows(heads, m, chainLength);
        }
        const due = yieldIfDue(ctx);
        if (due !== undefined) await due;
      }
      for (const acc of accs) acc.updateGroup!(0, total, []);
      yield this.resultRow(accs);
      return;
    }
    if (keyless && unique && accs.every((acc) => acc.updateGroupSel !== undefined && acc.updateGroup !== undefined)) {
      // One group and at most one build row per probe row: the matched probe rows are the pairs, in
      // join order, and each accumulator folds them into group 0 without group ids.
      const direct = table.direct;
      for await (const { batch, sel, n: m } of this.join.probeSide(ctx)) {
        if (rows.length < m) rows = new Uint32Array(m);
        const pc = direct === undefined ? null : batch.columns[direct.probeCol]!;
        let n: number;
        if (direct !== undefined && pc!.data instanceof Int32Array && pc!.nulls === null) {
          n = directMatchedRows(pc!.data, sel, m, table.head, direct.max, rows);
        } else {
          const fused = table.matchedRows === undefined ? null : table.matchedRows(batch, sel, m, rows);
          if (fused !== null) n = fused;
          else {
            if (heads.length < m) heads = new Int32Array(m);
            table.probe(batch, heads, sel, m);
            n = matchedRows(heads, m, sel, rows);
          }
        }
        if (n > 0) {
          const all = n === batch.length;
          for (let j = 0; j < accs.length; j++) {
            const ac = argCols[j]!;
            const args: Column[] = new Array(ac.length);
            for (let a = 0; a < ac.length; a++) args[a] = batch.columns[ac[a]!]!;
            if (all) accs[j]!.updateGroup!(0, n, args);
            else accs[j]!.updateGroupSel!(0, rows, n, args);
          }
        }
        const due = yieldIfDue(ctx);
        if (due !== undefined) await due;
      }
      yield this.resultRow(accs);
      return;
    }
    // Unique keys in a direct table: each slot holds its build row's group, so an int4 probe key turns
    // into a group id in one read, without writing chain heads first.
    const direct = unique && nb > 0 ? table.direct : undefined;
    const slotGroup = direct === undefined ? null : directSlots(table.head, buildGroup, -1);
    for await (const { batch, sel, n: m } of this.join.probeSide(ctx)) {
      if (heads.length < m) {
        heads = new Int32Array(m);
        gids = new Int32Array(m);
      }
      if (unique) {
        if (rows.length < m) rows = new Uint32Array(m);
        const pc = direct === undefined ? null : batch.columns[direct.probeCol]!;
        let n: number;
        if (slotGroup !== null && pc!.data instanceof Int32Array && pc!.nulls === null) {
          n = directPairs(pc!.data, sel, m, slotGroup, direct!.max, rows, gids);
        } else {
          table.probe(batch, heads, sel, m);
          n = nb === 0 ? 0 : uniquePairs(heads, m, sel, buildGroup, rows, gids);
        }
        // Once every group has had a pair, first appearances are all known.
        if (nSeen < groups) nSeen = noteGroups(gids, n, seen, order, nSeen);
        // Every row of the batch matched: its own columns are the arguments, in order.
        const all = n === batch.length;
        for (let j = 0; j < accs.length; j++) feed(accs[j]!, gids, all ? null : rows, n, argCols[j]!, batch);
      } else {
        table.probe(batch, heads, sel, m);
        at.i = 0;
        at.r = -2;
        while (at.i < m) {
          const n = fillPairs(heads, next, sel, m, buildGroup, rows, gids, at);
          if (n === 0) break;
          if (nSeen < groups) nSeen = noteGroups(gids, n, seen, order, nSeen);
          for (let j = 0; j < accs.length; j++) feed(accs[j]!, gids, rows, n, argCols[j]!, batch);
          const due = yieldIfDue(ctx);
          if (due !== undefined) await due;
        }
      }
      const due = yieldIfDue(ctx);
      if (due !== undefined) await due;
    }
    if (keyless) {
      yield this.resultRow(accs);
      return;
    }
    if (nSeen === 0) return;
    const keyColumns: Column[] = grouper.keyColumns().map((kc, i) => {
      const c = kc.slice(0, groups);
      return makeColumn(types[i]!, c.data, c.nulls, c.dict);
    });
    for (let start = 0; start < nSeen; start += BATCH_SIZE) {
      const due = yieldIfDue(ctx);
      if (due !== undefined) await due;
      const end = Math.min(nSeen, start + BATCH_SIZE);
      const sel = order.subarray(start, end);
      const columns: Column[] = keyColumns.map((c) => takeColumn(c, sel, end - start));
      for (let j = 0; j < accs.length; j++) {
        const acc = accs[j]!;
        const b = new ColumnBuilder(this.aggs[j]!.impl.returnType, end - start);
        for (let k = 0; k < end - start; k++) {
          b.push(acc.result(sel[k]!));
          const y = yieldEvery(ctx, 64);
          if (y !== undefined) await y;
        }
        columns.push(b.finish());
      }
      yield { columns, length: end - start };
    }
  }
}
