/**
 * NestedLoopJoin: any join condition (a CompiledPredicate over the combined row: left columns then right
 * columns), all join types. Used for non-equi joins and cross joins (predicate null = every pair matches).
 *
 * The right (inner) side is materialised once per execution; for each left batch we enumerate
 * (left row, right row) pairs in chunks of BATCH_SIZE and evaluate the predicate on a whole chunk at a time,
 * so the per-pair cost is an index write plus a vectorised predicate, not a per-row predicate call.
 */
import { allocData, concatBatches, makeColumn, type Batch } from '../../common/column.js';
import { yieldIfDue, type ExecContext } from '../../execution/context.js';
import { batchBytes, queryMemory } from '../../execution/memory-pool.js';
import type { CompiledPredicate } from '../compiled.js';
import { PhysicalOperator, type ExplainHow, type ExplainInputs, type ExplainNode } from '../operator.js';
import { joinSchema, PairCollector, type JoinType } from './hash-join.js';

export class NestedLoopJoin extends PhysicalOperator {
  readonly name = 'NestedLoopJoin';

  constructor(
    readonly left: PhysicalOperator,
    readonly right: PhysicalOperator,
    readonly type: JoinType,
    readonly predicate: CompiledPredicate | null = null,
  ) {
    super(joinSchema(type, left.schema, right.schema));
  }

  children(): readonly PhysicalOperator[] {
    return [this.left, this.right];
  }

  describe(): string {
    return `${this.type}${this.predicate === null ? ', no condition' : ', join filter'}`;
  }
  override explainNode(inputs: ExplainInputs): ExplainNode {
    const kind = { inner: '', cross: '', left: ' Left Join', right: ' Right Join', full: ' Full Join', semi: ' Semi Join', anti: ' Anti Join' }[this.type];
    const outputs = [...(inputs[0] ?? []), ...(inputs[1] ?? [])].slice(0, this.schema.length);
    return { label: `Nested Loop${kind}`, details: this.predicate !== null ? ['Join Filter: (join condition)'] : [], outputs, projects: true };
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    // The inner side is held (and copied once into one batch) for the whole join: reserved, 53200.
    const res = queryMemory(ctx).pool.register('NestedLoopJoin', false);
    try {
      yield* this.join(ctx, (b) => res.grow(batchBytes(b) * 2, 'inner side of the join'));
    } finally {
      res.free();
    }
  }

  private async *join(ctx: ExecContext, reserve: (b: Batch) => void): AsyncGenerator<Batch> {
    const leftTypes = this.left.schema.map((f) => f.type);
    const rightTypes = this.right.schema.map((f) => f.type);
    const parts: Batch[] = [];
    for await (const b of this.right.execute(ctx)) {
      if (b.length === 0) continue;
      reserve(b);
      parts.push(b);
    }
    const type = this.type;
    if (parts.length === 0 && (type === 'inner' || type === 'semi' || type === 'right')) return;
    const inner: Batch =
      parts.length === 0
        ? { columns: rightTypes.map((t) => makeColumn(t, allocData(t, 0), null)), length: 0 }
        : concatBatches(rightTypes, parts);
    parts.length = 0;
    const nr = inner.length;
    const pairs = new PairCollector(type, leftTypes, rightTypes, inner, this.predicate, ctx);
    // Semi/anti without a condition: a left row matches iff the inner side is non-empty.
    const existence = (type === 'semi' || type === 'anti') && this.predicate === null;
    for await (const b of this.left.execute(ctx)) {
      const m = b.length;
      if (m === 0) continue;
      pairs.startProbe(b);
      if (existence) {
        if (nr > 0) pairs.leftMatched.fill(1);
      } else {
        for (let i = 0; i < m; i++) {
          for (let r = 0; r < nr; r++) {
            pairs.add(i, r);
            if (pairs.full) {
              const out = pairs.flush();
              if (out !== null) yield out;
              await yieldIfDue(ctx);
            }
          }
        }
        const out = pairs.flush();
        if (out !== null) yield out;
      }
      const rest = pairs.finishProbe();
      if (rest !== null) yield rest;
    }
    yield* pairs.unmatchedRight();
  }
}
