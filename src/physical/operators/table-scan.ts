/** Reads an in-memory or connector table; projection keeps only the columns the plan needs. */
import type { Schema } from '../../common/types.js';
import type { Batch } from '../../execution/column.js';
import { checkCancel, type ExecContext } from '../../execution/context.js';
import { PhysicalOperator } from '../operator.js';

export interface ScannableSource {
  readonly name: string;
  scan(): AsyncIterable<Batch>;
  /** Extra EXPLAIN text, e.g. the SQL a connector table sends to its server. */
  describe?(): string;
}

export class TableScan extends PhysicalOperator {
  readonly name = 'TableScan';
  constructor(
    schema: Schema,
    readonly source: ScannableSource,
    /** Source column indexes to output, null = all. */
    readonly projection: number[] | null,
  ) {
    super(schema);
  }
  children(): readonly PhysicalOperator[] {
    return [];
  }
  describe(): string {
    const extra = this.source.describe?.();
    return `table: ${this.source.name}${this.projection ? `, columns: [${this.projection.map((i) => this.schema[this.projection!.indexOf(i)]!.name).join(', ')}]` : ''}${extra ? `, ${extra}` : ''}`;
  }
  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    const proj = this.projection;
    for await (const b of this.source.scan()) {
      checkCancel(ctx);
      yield proj === null ? b : { columns: proj.map((i) => b.columns[i]!), length: b.length };
    }
  }
}
