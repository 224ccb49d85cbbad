/**
 * LATERAL join: the right side is re-run for every left row, with that row visible to it as the
 * innermost outer row (its `outer` references with levels = 1). Inner and left joins only, as in
 * PostgreSQL (a right or full join cannot be lateral).
 */
import type { Schema, Value } from '../../common/types.js';
import { getValue, takeColumn, type Batch, type Column } from '../../common/column.js';
import { yieldIfDue, withOuterRow, type ExecContext } from '../../execution/context.js';
import type { CompiledPredicate } from '../compiled.js';
import { PhysicalOperator, type ExplainHow, type ExplainInputs, type ExplainNode } from '../operator.js';
import { nullColumn } from './hash-join.js';

export class LateralJoin extends PhysicalOperator {
  readonly name = 'LateralJoin';
  constructor(
    readonly left: PhysicalOperator,
    readonly right: PhysicalOperator,
    readonly type: 'inner' | 'left',
    readonly condition: CompiledPredicate | null,
  ) {
    super([...left.schema, ...right.schema] as Schema);
  }
  children(): readonly PhysicalOperator[] {
    return [this.left, this.right];
  }
  describe(): string {
    return this.type === 'left' ? 'LEFT' : 'INNER';
  }
  override explainNode(inputs: ExplainInputs): ExplainNode {
    const outputs = [...(inputs[0] ?? []), ...(inputs[1] ?? [])].slice(0, this.schema.length);
    return { label: this.type === 'left' ? 'Nested Loop Left Join' : 'Nested Loop', details: [], outputs, projects: true };
  }
  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    const nl = this.left.schema.length;
    for await (const lb of this.left.execute(ctx)) {
      for (let i = 0; i < lb.length; i++) {
        await yieldIfDue(ctx);
        const row: Value[] = new Array(nl);
        for (let c = 0; c < nl; c++) row[c] = getValue(lb.columns[c]!, i);
        let matched = false;
        for await (const rb of this.right.execute(withOuterRow(ctx, row))) {
          if (rb.length === 0) continue;
          const sel = new Uint32Array(rb.length).fill(i);
          const cols: Column[] = [...lb.columns.map((c) => takeColumn(c, sel, rb.length)), ...rb.columns];
          let out: Batch = { columns: cols, length: rb.length };
          if (this.condition !== null) {
            const r = this.condition(out, ctx);
            if (r.n === 0) continue;
            if (r.n < out.length) out = { columns: out.columns.map((c) => takeColumn(c, r.sel, r.n)), length: r.n };
          }
          matched = true;
          yield out;
        }
        if (!matched && this.type === 'left') {
          const one = new Uint32Array(1).fill(i);
          yield {
            columns: [...lb.columns.map((c) => takeColumn(c, one, 1)), ...this.right.schema.map((f) => nullColumn(f.type, 1))],
            length: 1,
          };
        }
      }
    }
  }
}
