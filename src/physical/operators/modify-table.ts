/**
 * ModifyTable: INSERT, UPDATE or DELETE over its input (as PostgreSQL's ModifyTable and DuckDB's
 * PhysicalInsert/Update/Delete). It gathers the whole input before changing anything, so the rows a
 * statement reads are never the rows it has just written (an UPDATE that joins its own table, an
 * INSERT … SELECT from the table it fills), then hands them to the target and emits RETURNING rows.
 */
import type { Schema } from '../../common/types.js';
import type { Batch } from '../../common/column.js';
import { yieldIfDue, type ExecContext } from '../../execution/context.js';
import { batchBytes, queryMemory } from '../../execution/memory-pool.js';
import type { ModifyKind, ModifyTarget } from '../../logical/plan.js';
import { PhysicalOperator, type ExplainHow, type ExplainInputs, type ExplainNode } from '../operator.js';

const VERB: Record<ModifyKind, string> = { insert: 'Insert', update: 'Update', delete: 'Delete' };

export class ModifyTable extends PhysicalOperator {
  readonly name: string;

  constructor(
    schema: Schema,
    readonly kind: ModifyKind,
    readonly table: string,
    private readonly input: PhysicalOperator,
    private readonly target: ModifyTarget,
  ) {
    super(schema);
    this.name = `${VERB[kind]} on ${table}`;
  }

  children(): readonly PhysicalOperator[] {
    return [this.input];
  }

  describe(): string {
    return '';
  }
  override explainNode(): ExplainNode {
    return { label: `${this.kind.charAt(0).toUpperCase()}${this.kind.slice(1)} on ${this.table}`, details: [] };
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    const res = queryMemory(ctx).pool.register(this.name, false);
    try {
      const gathered: Batch[] = [];
      for await (const b of this.input.execute(ctx)) {
        if (b.length === 0) continue;
        res.grow(batchBytes(b), 'rows to modify');
        gathered.push(b);
        await yieldIfDue(ctx);
      }
      const out = await this.target.apply(gathered, ctx);
      for (const b of out) {
        await yieldIfDue(ctx);
        yield b;
      }
    } finally {
      res.free();
    }
  }
}
