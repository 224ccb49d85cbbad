/**
 * CTE Scan: one reference to a materialized WITH query (logical/materialized-cte.ts). The first
 * reference to run evaluates the query to the end and keeps its rows for the rest of the statement (in
 * the statement's table of once-per-statement results, where uncorrelated subqueries keep theirs);
 * every reference, and every rerun of one, reads those rows. The evaluation is not tied to the
 * reference that started it, so a reference stopped early by a LIMIT still leaves complete rows for
 * the others.
 */
import type { Schema } from '../../common/types.js';
import { pickColumns, type Batch } from '../../common/column.js';
import { yieldIfDue, type ExecContext } from '../../execution/context.js';
import { batchBytes, queryMemory } from '../../execution/memory-pool.js';
import { PhysicalOperator, type ExplainHow, type ExplainInputs, type ExplainNode } from '../operator.js';

/** The evaluation every reference of one CTE shares (one per CTE in a physical plan). */
export class SharedCte {
  constructor(
    readonly name: string,
    readonly body: PhysicalOperator,
  ) {}

  /** The CTE's rows for this statement, evaluated on first use. */
  rows(ctx: ExecContext): Promise<Batch[]> {
    let p = ctx.initPlans.get(this) as Promise<Batch[]> | undefined;
    if (p === undefined) {
      p = this.evaluate(ctx);
      ctx.initPlans.set(this, p);
    }
    return p;
  }

  private async evaluate(ctx: ExecContext): Promise<Batch[]> {
    // Held until the statement ends: reserved from memory_limit, refused with 53200.
    const res = queryMemory(ctx).pool.register('CteScan', false);
    const out: Batch[] = [];
    for await (const b of this.body.execute(ctx)) {
      if (b.length === 0) continue;
      res.grow(batchBytes(b), `rows of WITH query "${this.name}"`);
      out.push(b);
      await yieldIfDue(ctx);
    }
    return out;
  }
}

export class CteScan extends PhysicalOperator {
  readonly name = 'CteScan';
  constructor(
    schema: Schema,
    readonly shared: SharedCte,
    /** Columns of the CTE's rows kept, in order (pruned by the optimizer); null = all. */
    readonly projection: readonly number[] | null,
    /** The first reference shows the CTE's plan under it in EXPLAIN; the others only name it. */
    readonly showsBody: boolean,
  ) {
    super(schema);
  }

  children(): readonly PhysicalOperator[] {
    return this.showsBody ? [this.shared.body] : [];
  }

  describe(): string {
    return `CTE ${this.shared.name}`;
  }
  override explainNode(_inputs: ExplainInputs, how: ExplainHow): ExplainNode {
    const alias = this.schema[0]?.table;
    return {
      label: `CTE Scan on ${this.shared.name}${alias !== undefined && alias !== this.shared.name ? ` ${alias}` : ''}`,
      details: [],
      outputs: this.schema.map((f) => (how.qualify ? `${f.table ?? this.shared.name}.${f.name}` : f.name)),
      projects: true,
    };
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    const rows = await this.shared.rows(ctx);
    const proj = this.projection;
    for (const b of rows) {
      yield proj === null ? b : { columns: pickColumns(b.columns, proj), length: b.length };
    }
  }
}
