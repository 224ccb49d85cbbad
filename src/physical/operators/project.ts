/** Computes output columns; bare column references reuse the input column without copying. */
import type { Schema } from '../../common/types.js';
import type { Batch, Column } from '../../common/column.js';
import type { ExecContext } from '../../execution/context.js';
import type { Expr } from '../../logical/expr.js';
import { compileKernel, type Kernel } from '../compile-expr.js';
import { explainExpr } from '../explain-expr.js';
import { PhysicalOperator, type ExplainHow, type ExplainInputs, type ExplainNode } from '../operator.js';
import { pgExpr } from '../explain-pg-expr.js';
import type { SortKey } from '../sort-key.js';
import { evalSlots, type SlotPlan } from '../subquery-eval.js';

const NO_SLOTS: unknown[] = [];

export class Project extends PhysicalOperator {
  readonly name = 'Project';
  private readonly kernels: (Kernel | number)[];
  private readonly slots: SlotPlan[][];
  constructor(
    schema: Schema,
    readonly input: PhysicalOperator,
    readonly exprs: Expr[],
    slotPlan: (e: Expr & { kind: 'subquery' }) => SlotPlan,
  ) {
    super(schema);
    this.kernels = exprs.map((e) => (e.kind === 'column' ? e.index : compileKernel(e)));
    this.slots = this.kernels.map((k) => (typeof k === 'number' ? [] : k.slots.map((s) => slotPlan(s.expr))));
  }
  children(): readonly PhysicalOperator[] {
    return [this.input, ...this.slots.flat().map((s) => s.plan)];
  }
  describe(): string {
    return this.exprs.map((e, i) => {
      const s = explainExpr(e, this.input.schema);
      return s === this.schema[i]!.name ? s : `${s} AS ${this.schema[i]!.name}`;
    }).join(', ');
  }
  override explainNode(inputs: ExplainInputs): ExplainNode {
    const subplans = { n: 0 };
    return { label: 'Result', details: [], outputs: this.exprs.map((e) => pgExpr(e, inputs[0] ?? [], subplans)), merge: 'projection', selectsColumns: this.exprs.every((e) => e.kind === 'column') };
  }
  /** The input's ordering, as far as its key columns pass through unchanged. */
  override outputOrdering(): readonly SortKey[] {
    const out: SortKey[] = [];
    for (const k of this.input.outputOrdering()) {
      const j = this.kernels.indexOf(k.col);
      if (j === -1) break;
      out.push({ ...k, col: j });
    }
    return out;
  }
  /** True when the projection only picks columns (no computation). */
  isPureSelection(): boolean {
    return this.kernels.every((k) => typeof k === 'number');
  }
  /** The input column of each output column when the projection only picks columns; null otherwise. */
  pickedColumns(): number[] | null {
    return this.isPureSelection() ? (this.kernels as number[]).slice() : null;
  }
  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    for await (const b of this.input.execute(ctx)) {
      const cols: Column[] = new Array(this.kernels.length);
      for (let i = 0; i < this.kernels.length; i++) {
        const k = this.kernels[i]!;
        if (typeof k === 'number') cols[i] = b.columns[k]!;
        else {
          // evalSlots is async: awaiting it for a column without subqueries would cost a turn per batch.
          const slots = this.slots[i]!;
          cols[i] = k.run(b, ctx, slots.length === 0 ? NO_SLOTS : await evalSlots(slots, b, ctx));
        }
      }
      yield { columns: cols, length: b.length };
    }
  }
}
