/**
 * SetOp: UNION [ALL], INTERSECT [ALL], EXCEPT [ALL] with PostgreSQL multiset semantics. Rows are compared
 * on all columns with NULLs equal (set operations treat NULLs as not distinct).
 *
 *   UNION ALL      left rows, then right rows (streamed)
 *   UNION          each distinct row once (streamed; first occurrence wins)
 *   INTERSECT ALL  each distinct row min(l, r) times;   INTERSECT  once if l > 0 and r > 0
 *   EXCEPT ALL     each distinct row max(l - r, 0) times; EXCEPT   once if l > 0 and r = 0
 * (l, r: how often the row occurs on each side.) Both inputs must already have the output's column types.
 */
import { QuireError } from '../../common/errors.js';
import { BATCH_SIZE, ColumnBuilder, takeBatch, type Batch } from '../../common/column.js';
import { yieldIfDue, type ExecContext } from '../../execution/context.js';
import { HASH_ENTRY_BYTES, queryMemory, valueBytes, type MemoryReservation } from '../../execution/memory-pool.js';
import { PhysicalOperator, type ExplainHow, type ExplainInputs, type ExplainNode } from '../operator.js';
import { ShardedKeyMap, ShardedKeySet } from '../key-shards.js';
import { allColumns, newRows, rowKeys } from './distinct.js';

export type SetOpKind = 'union' | 'intersect' | 'except';

export class SetOp extends PhysicalOperator {
  readonly name: string;

  constructor(
    readonly kind: SetOpKind,
    readonly all: boolean,
    readonly left: PhysicalOperator,
    readonly right: PhysicalOperator,
  ) {
    super(left.schema);
    if (left.schema.length !== right.schema.length) {
      throw new QuireError('42601', `each ${kind.toUpperCase()} query must have the same number of columns`);
    }
    this.name = kind === 'union' ? (all ? 'Append' : 'HashSetOp Union') : `HashSetOp ${kind === 'intersect' ? 'Intersect' : 'Except'}${all ? ' All' : ''}`;
  }

  children(): readonly PhysicalOperator[] {
    return [this.left, this.right];
  }

  describe(): string {
    return `${this.kind}${this.all ? ' all' : ''}`;
  }
  override explainNode(): ExplainNode {
    if (this.kind === 'union') return { label: this.all ? 'Append' : 'HashAggregate', details: [] };
    return { label: `HashSetOp ${this.kind === 'intersect' ? 'Intersect' : 'Except'}${this.all ? ' All' : ''}`, details: [] };
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    if (this.kind === 'union' && this.all) {
      yield* this.union(ctx, null);
      return;
    }
    // The distinct rows seen so far stay in memory until the end: reserved, refused with 53200.
    const res = queryMemory(ctx).pool.register(this.name, false);
    try {
      if (this.kind === 'union') yield* this.union(ctx, res);
      else yield* this.intersectExcept(ctx, res);
    } finally {
      res.free();
    }
  }

  private async *intersectExcept(ctx: ExecContext, res: MemoryReservation): AsyncGenerator<Batch> {
    const cols = allColumns(this.schema.length);
    const types = this.schema.map((f) => f.type);
    // One representative row per distinct left row, with its count on each side.
    const group = new ShardedKeyMap<number>();
    const reps = types.map((t) => new ColumnBuilder(t));
    const leftCount: number[] = [];
    const rightCount: number[] = [];
    for await (const b of this.left.execute(ctx)) {
      await yieldIfDue(ctx);
      const keys = rowKeys(b, cols);
      let bytes = 0;
      for (let i = 0; i < b.length; i++) {
        const k = keys[i]!;
        const g = group.get(k);
        if (g === undefined) {
          group.set(k, leftCount.length);
          leftCount.push(1);
          rightCount.push(0);
          for (let c = 0; c < reps.length; c++) reps[c]!.pushFrom(b.columns[c]!, i);
          // The key, and the representative row kept next to it (about as large again).
          bytes += HASH_ENTRY_BYTES + 16 + 2 * valueBytes(k);
        } else {
          leftCount[g]!++;
        }
      }
      res.grow(bytes, 'hash table of distinct rows');
    }
    if (leftCount.length === 0) return;
    for await (const b of this.right.execute(ctx)) {
      await yieldIfDue(ctx);
      const keys = rowKeys(b, cols);
      for (let i = 0; i < b.length; i++) {
        const g = group.get(keys[i]!);
        if (g !== undefined) rightCount[g]!++;
      }
    }
    const rep: Batch = { columns: reps.map((r) => r.finish()), length: leftCount.length };
    const intersect = this.kind === 'intersect';
    const all = this.all;
    let sel = new Uint32Array(BATCH_SIZE);
    let w = 0;
    for (let g = 0; g < leftCount.length; g++) {
      const l = leftCount[g]!;
      const r = rightCount[g]!;
      let times: number;
      if (intersect) times = all ? Math.min(l, r) : r > 0 ? 1 : 0;
      else times = all ? Math.max(l - r, 0) : r === 0 ? 1 : 0;
      for (let t = 0; t < times; t++) {
        sel[w++] = g;
        if (w === BATCH_SIZE) {
          yield takeBatch(rep, sel, w);
          sel = new Uint32Array(BATCH_SIZE);
          w = 0;
        }
      }
    }
    if (w > 0) yield takeBatch(rep, sel, w);
  }

  private async *union(ctx: ExecContext, res: MemoryReservation | null): AsyncGenerator<Batch> {
    if (res === null) {
      for await (const b of this.left.execute(ctx)) yield b;
      for await (const b of this.right.execute(ctx)) yield this.retype(b);
      return;
    }
    const cols = allColumns(this.schema.length);
    const seen = new ShardedKeySet();
    for (const side of [this.left, this.right]) {
      for await (const b of side.execute(ctx)) {
        await yieldIfDue(ctx);
        if (b.length === 0) continue;
        const { batch, bytes } = newRows(b, cols, seen);
        res.grow(bytes, 'hash table of distinct rows');
        if (batch !== null) yield this.retype(batch);
      }
    }
  }

  /** Right-side batches carry the output's column types (e.g. varchar(n) typmods of the left side). */
  private retype(b: Batch): Batch {
    const cols = b.columns;
    let same = true;
    for (let c = 0; c < cols.length; c++) if (cols[c]!.type !== this.schema[c]!.type) same = false;
    if (same) return b;
    return { columns: cols.map((c, i) => ({ type: this.schema[i]!.type, data: c.data, nulls: c.nulls })), length: b.length };
  }
}
