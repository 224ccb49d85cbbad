/** Keeps rows where the predicate is true; passes whole batches through when every row qualifies. */
import type { Schema } from '../../common/types.js';
import { takeBatch, type Batch } from '../../execution/column.js';
import type { ExecContext } from '../../execution/context.js';
import type { Expr } from '../../logical/expr.js';
import { compilePredicateKernel, type PredicateKernel } from '../compile-expr.js';
import { explainExpr } from '../explain-expr.js';
import { PhysicalOperator } from '../operator.js';
import { evalSlots, type SlotPlan } from '../subquery-eval.js';

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
  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    for await (const b of this.input.execute(ctx)) {
      if (b.length === 0) continue;
      const sv = await evalSlots(this.slots, b, ctx);
      const { sel, n } = this.kernel.run(b, ctx, sv);
      if (n === 0) continue;
      yield n === b.length ? b : takeBatch(b, sel, n, this.need);
    }
  }
}
