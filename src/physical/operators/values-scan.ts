/** VALUES lists and the single empty row of a SELECT without FROM. */
import type { Schema } from '../../common/types.js';
import { ColumnBuilder, type Batch } from '../../common/column.js';
import type { ExecContext } from '../../execution/context.js';
import type { Expr } from '../../logical/expr.js';
import { compileKernel } from '../compile-expr.js';
import { evalSlots, type SlotPlan } from '../subquery-eval.js';
import { PhysicalOperator, type ExplainHow, type ExplainInputs, type ExplainNode } from '../operator.js';

export class ValuesScan extends PhysicalOperator {
  readonly name = 'Values';
  private readonly kernels;
  constructor(
    schema: Schema,
    readonly rows: Expr[][],
    private readonly slotPlans: (e: Expr & { kind: 'subquery' }) => SlotPlan,
  ) {
    super(schema);
    this.kernels = rows.map((r) => r.map((e) => compileKernel(e)));
  }
  children(): readonly PhysicalOperator[] {
    return [];
  }
  describe(): string {
    return `rows: ${this.rows.length}`;
  }
  override explainNode(_inputs: ExplainInputs, how: ExplainHow): ExplainNode {
    return { label: 'Values Scan on "*VALUES*"', details: [], outputs: this.schema.map((f, i) => (how.qualify ? `"*VALUES*".column${i + 1}` : f.name)), projects: true };
  }
  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    const one: Batch = { columns: [], length: 1 };
    const builders = this.schema.map((f) => new ColumnBuilder(f.type, this.rows.length));
    for (const row of this.kernels) {
      for (let c = 0; c < row.length; c++) {
        const k = row[c]!;
        const slots = await evalSlots(k.slots.map((s) => this.slotPlans(s.expr)), one, ctx);
        builders[c]!.pushFrom(k.run(one, ctx, slots), 0);
      }
    }
    yield { columns: builders.map((b) => b.finish()), length: this.rows.length };
  }
}

/** Exactly one row with no columns (SELECT 1), or no rows at all (a provably empty relation). */
export class OneRow extends PhysicalOperator {
  readonly name: string;
  constructor(
    schema: Schema,
    readonly rows: 0 | 1,
  ) {
    super(schema);
    this.name = rows === 1 ? 'Result' : 'Empty';
  }
  children(): readonly PhysicalOperator[] {
    return [];
  }
  describe(): string {
    return '';
  }
  override explainNode(): ExplainNode {
    return this.rows === 1 ? { label: 'Result', details: [], projects: true } : { label: 'Result', details: ['One-Time Filter: false'], projects: true };
  }
  protected async *run(): AsyncGenerator<Batch> {
    if (this.rows === 1) yield { columns: [], length: 1 };
  }
}
