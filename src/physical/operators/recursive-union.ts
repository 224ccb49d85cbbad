/**
 * WITH RECURSIVE: runs the anchor, then the recursive term over the previous iteration's rows
 * (the working table) until it yields nothing. UNION (not ALL) drops rows already produced.
 */
import { hashKey } from '../../common/compare.js';
import { QuireError } from '../../common/errors.js';
import type { Schema } from '../../common/types.js';
import { takeBatch, getValue, type Batch } from '../../common/column.js';
import { checkCancel, yieldEvery, type ExecContext } from '../../execution/context.js';
import { batchBytes, HASH_ENTRY_BYTES, queryMemory } from '../../execution/memory-pool.js';
import { PhysicalOperator, type ExplainHow, type ExplainInputs, type ExplainNode } from '../operator.js';

const MAX_ITERATIONS = 10_000_000;

export class RecursiveUnion extends PhysicalOperator {
  readonly name = 'RecursiveUnion';
  constructor(
    schema: Schema,
    readonly anchor: PhysicalOperator,
    readonly recursive: PhysicalOperator,
    readonly all: boolean,
    readonly id: number,
  ) {
    super(schema);
  }
  children(): readonly PhysicalOperator[] {
    return [this.anchor, this.recursive];
  }
  describe(): string {
    return this.all ? 'UNION ALL' : 'UNION';
  }
  override explainNode(): ExplainNode {
    return { label: 'Recursive Union', details: [] };
  }
  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    const seen = this.all ? null : new Set<string>();
    const types = this.schema.map((f) => f.type);
    // UNION's set of rows produced so far and the working tables (the previous iteration's rows and the
    // one being built) are held in memory: reserved, refused with 53200.
    const res = queryMemory(ctx).pool.register('RecursiveUnion', false);
    const dedupe = (b: Batch): Batch => {
      if (seen === null) return b;
      const keep: number[] = [];
      let bytes = 0;
      for (let i = 0; i < b.length; i++) {
        let k = '';
        for (let c = 0; c < types.length; c++) {
          const v = getValue(b.columns[c]!, i);
          k += (v === null ? '\u0000N' : String(hashKey(v, types[c]!))) + '\u0001';
        }
        if (!seen.has(k)) {
          seen.add(k);
          keep.push(i);
          bytes += HASH_ENTRY_BYTES + 24 + 2 * k.length;
        }
      }
      res.grow(bytes, 'set of rows already produced');
      return keep.length === b.length ? b : takeBatch(b, keep, keep.length);
    };
    try {
      let work: Batch[] = [];
      let workBytes = 0;
      for await (const b of this.anchor.execute(ctx)) {
        const d = dedupe(b);
        if (d.length) {
          const size = batchBytes(d);
          res.grow(size, 'working table');
          workBytes += size;
          work.push(d);
          yield d;
        }
      }
      let iterations = 0;
      while (work.length > 0) {
        checkCancel(ctx);
        // An iteration is often one row: the clock is read every few iterations, not each one.
        const y = yieldEvery(ctx, 16);
        if (y !== undefined) await y;
        if (++iterations > MAX_ITERATIONS) throw new QuireError('54000', 'recursive query exceeded the iteration limit');
        ctx.worktables.set(this.id, work);
        const next: Batch[] = [];
        let nextBytes = 0;
        for await (const b of this.recursive.execute(ctx)) {
          const d = dedupe(b);
          if (d.length) {
            const size = batchBytes(d);
            res.grow(size, 'working table');
            nextBytes += size;
            next.push(d);
            yield d;
          }
        }
        res.shrink(workBytes);
        work = next;
        workBytes = nextBytes;
      }
    } finally {
      ctx.worktables.delete(this.id);
      res.free();
    }
  }
}

export class WorkTableScan extends PhysicalOperator {
  readonly name = 'WorkTableScan';
  constructor(
    schema: Schema,
    readonly id: number,
    readonly cte: string,
  ) {
    super(schema);
  }
  children(): readonly PhysicalOperator[] {
    return [];
  }
  describe(): string {
    return this.cte;
  }
  override explainNode(): ExplainNode {
    return { label: `WorkTable Scan on ${this.cte}`, details: [], projects: true };
  }
  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    for (const b of ctx.worktables.get(this.id) ?? []) yield b;
  }
}
