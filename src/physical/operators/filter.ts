/** Keeps rows where the predicate is true; passes whole batches through when every row qualifies. */
import type { Schema } from '../../common/types.js';
import { BATCH_SIZE, takeBatch, type Batch } from '../../common/column.js';
import type { ExecContext } from '../../execution/context.js';
import type { Expr } from '../../logical/expr.js';
import { compilePredicateKernel, type PredicateKernel } from '../compile-expr.js';
import { explainExpr } from '../explain-expr.js';
import { PhysicalOperator, type ExplainHow, type ExplainInputs, type ExplainNode } from '../operator.js';
import { pgExpr } from '../explain-pg-expr.js';
import type { SortKey } from '../sort-key.js';
import { evalSlots, type SlotPlan } from '../subquery-eval.js';

/** Slot values of a predicate without subqueries: evalSlots is async, and awaiting it costs a turn per batch. */
const NO_SLOTS: unknown[] = [];

/** Rows `sel[0..n)` of `batch`, or its first n (= all) rows when `sel` is null. */
export interface SelectedBatch {
  batch: Batch;
  sel: Uint32Array | null;
  n: number;
}

/** Operator and function calls a qual makes per row (PostgreSQL's cost_qual_eval: IS NULL tests are free). */
function qualCost(e: Expr): number {
  switch (e.kind) {
    case 'column':
    case 'outer':
    case 'const':
    case 'param':
      return 0;
    case 'is-null':
    case 'bool-test':
    case 'not':
    case 'cast':
      return qualCost(e.arg);
    case 'and':
    case 'or':
      return e.args.reduce((n, a) => n + qualCost(a), 0);
    case 'compare':
    case 'distinct-from':
      return 1 + qualCost(e.left) + qualCost(e.right);
    case 'call':
      return 1 + e.args.reduce((n, a) => n + qualCost(a), 0);
    default:
      return 1;
  }
}

export class Filter extends PhysicalOperator {
  readonly name = 'Filter';
  private readonly kernel: PredicateKernel;
  private readonly slots: SlotPlan[];
  constructor(
    readonly input: PhysicalOperator,
    readonly predicate: Expr,
    slotPlan: (e: Expr & { kind: 'subquery' }) => SlotPlan,
    /** Output columns read downstream (planner's column pruning); the others are not copied. null = all. */
    readonly need: readonly boolean[] | null = null,
  ) {
    super(input.schema as Schema);
    this.kernel = compilePredicateKernel(predicate);
    this.slots = this.kernel.slots.map((s) => slotPlan(s.expr));
  }
  children(): readonly PhysicalOperator[] {
    return [this.input, ...this.slots.map((s) => s.plan)];
  }
  describe(): string {
    return explainExpr(this.predicate, this.input.schema);
  }
  override explainNode(inputs: ExplainInputs): ExplainNode {
    // PostgreSQL orders quals by their per-row cost (order_qual_clauses, a stable sort), and the
    // equalities it derives from equivalence classes come after the written quals of the same cost.
    const p = this.predicate;
    const conj = p.kind === 'and' ? p.args : [p];
    const isEcEquality = (e: Expr): boolean => e.kind === 'compare' && e.op === '=' && ((e.left.kind === 'column' && e.right.kind === 'const') || (e.left.kind === 'const' && e.right.kind === 'column'));
    // With subqueries the written order stays: their SubPlan numbers follow the plans' order.
    const ordered = this.children().length > 1 ? conj : conj.map((e, i) => ({ e, i, cost: qualCost(e), ec: isEcEquality(e) ? 1 : 0 })).sort((x, y) => x.cost - y.cost || x.ec - y.ec || x.i - y.i).map((x) => x.e);
    const subplans = { n: 0 };
    const text = ordered.length === 1 ? pgExpr(ordered[0]!, inputs[0] ?? [], subplans) : `(${ordered.map((e) => pgExpr(e, inputs[0] ?? [], subplans)).join(' AND ')})`;
    return { label: 'Filter', details: [`Filter: ${text}`], merge: 'filter' };
  }
  override outputOrdering(): readonly SortKey[] {
    const keys = this.input.outputOrdering();
    const need = this.need;
    if (need === null) return keys;
    // Columns nobody reads are not copied, so an ordering can only be claimed up to the first of them.
    const cut = keys.findIndex((k) => need[k.col] !== true);
    return cut === -1 ? keys : keys.slice(0, cut);
  }
  /**
   * The qualifying rows of each input batch as a selection over the unchanged batch (sel null: every
   * row), for a consumer that reads only some rows itself (a join probe) and so need not have them
   * copied. The selection is only valid until the next batch is pulled: its buffer is reused. Records
   * the same EXPLAIN ANALYZE figures as execute().
   */
  async *selections(ctx: ExecContext): AsyncGenerator<SelectedBatch> {
    const m = this.metrics;
    const analyze = ctx.analyze;
    if (analyze) m.loops++;
    const it = this.input.execute(ctx);
    // One selection buffer per execution, reused batch after batch: a consumer of selections() is done
    // with a batch's rows before it pulls the next (see the contract above).
    let buf = new Uint32Array(BATCH_SIZE);
    try {
      for (;;) {
        const t0 = analyze ? performance.now() : 0;
        const r = await it.next();
        if (r.done) {
          if (analyze) m.timeMs += performance.now() - t0;
          break;
        }
        const b = r.value;
        if (b.length === 0) continue;
        const sv = this.slots.length === 0 ? NO_SLOTS : await evalSlots(this.slots, b, ctx);
        if (buf.length < b.length) buf = new Uint32Array(b.length);
        const { sel, n } = this.kernel.run(b, ctx, sv, buf);
        if (analyze) {
          m.timeMs += performance.now() - t0;
          m.rows += n;
          m.batches++;
        }
        if (n === 0) continue;
        yield { batch: b, sel: n === b.length ? null : sel, n };
      }
    } finally {
      await it.return(undefined);
    }
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    // The qualifying rows are copied out of the batch, so one selection buffer serves every batch (a
    // fresh one per batch made the collector run on memory pressure alone).
    let buf = new Uint32Array(BATCH_SIZE);
    for await (const b of this.input.execute(ctx)) {
      if (b.length === 0) continue;
      const sv = this.slots.length === 0 ? NO_SLOTS : await evalSlots(this.slots, b, ctx);
      if (buf.length < b.length) buf = new Uint32Array(b.length);
      const { sel, n } = this.kernel.run(b, ctx, sv, buf);
      if (n === 0) continue;
      yield n === b.length ? b : takeBatch(b, sel, n, this.need);
    }
  }
}
