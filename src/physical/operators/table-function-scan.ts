/** Runs a table function (generate_series, read_csv, …) with its arguments evaluated once. */
import type { Schema } from '../../common/types.js';
import type { Batch } from '../../common/column.js';
import { checkCancel, yieldIfDue, type ExecContext } from '../../execution/context.js';
import type { Expr } from '../../logical/expr.js';
import type { TableFunctionImpl } from '../../logical/plan.js';
import { evalConstant } from '../compile-expr.js';
import { explainExpr } from '../explain-expr.js';
import { PhysicalOperator, type ExplainHow, type ExplainInputs, type ExplainNode } from '../operator.js';

export class TableFunctionScan extends PhysicalOperator {
  readonly name = 'FunctionScan';
  /**
   * Set by the planner when the only consumer is done with each batch before it pulls the next (see
   * markBatchesDropped in plan-memory.ts): the function may reuse the arrays behind handed-out batches.
   */
  dropsBatches = false;
  constructor(
    schema: Schema,
    readonly fn: string,
    readonly args: Expr[],
    readonly impl: TableFunctionImpl,
  ) {
    super(schema);
  }
  children(): readonly PhysicalOperator[] {
    return [];
  }
  describe(): string {
    const extra = this.impl.describe?.();
    return `${this.fn}(${this.args.map((a) => explainExpr(a, [])).join(', ')})${extra ? `, ${extra}` : ''}`;
  }
  override explainNode(_inputs: ExplainInputs, how: ExplainHow): ExplainNode {
    const alias = this.schema[0]?.table;
    const extra = this.impl.describe?.();
    return {
      label: `Function Scan on ${this.fn}${alias !== undefined && alias !== this.fn ? ` ${alias}` : ''}`,
      details: extra ? [extra.charAt(0).toUpperCase() + extra.slice(1)] : [],
      outputs: this.schema.map((f) => (how.qualify ? `${f.table ?? this.fn}.${f.name}` : f.name)),
      projects: true,
    };
  }
  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    const values = this.args.map((a) => evalConstant(a, ctx));
    for await (const b of this.impl.execute(values, ctx.eval, ctx.signal, ctx, this.dropsBatches)) {
      checkCancel(ctx);
      await yieldIfDue(ctx);
      yield b;
    }
  }
}
