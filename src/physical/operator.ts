/**
 * Physical operators pull batches from their children. `execute` is lazy (no work until the first
 * `next()`), may be called again for a fresh run (correlated subqueries re-run their plan), and
 * releases what it holds when the consumer stops early (generator `return`).
 */
import type { Schema } from '../common/types.js';
import type { Batch } from '../common/column.js';
import type { ExecContext } from '../execution/context.js';
import type { SortKey } from './sort-key.js';

export interface OperatorMetrics {
  rows: number;
  batches: number;
  /** Wall time inside this operator including children, milliseconds. */
  timeMs: number;
  loops: number;
  extra: Record<string, number | string>;
}

/** One node of EXPLAIN's text as PostgreSQL prints it. */
export interface ExplainNode {
  /** The node in PostgreSQL's words with its target ("Seq Scan on t", "Index Scan using i on t"); Quire's own name where PostgreSQL has no such node. */
  readonly label: string;
  /** Lines printed under the node, each "Name: value" ("Index Cond: (a = 1)", "Sort Key: b"). */
  readonly details: readonly string[];
}

export abstract class PhysicalOperator {
  abstract readonly name: string;
  readonly metrics: OperatorMetrics = { rows: 0, batches: 0, timeMs: 0, loops: 0, extra: {} };

  constructor(readonly schema: Schema) {}

  abstract children(): readonly PhysicalOperator[];

  /** One line of EXPLAIN detail after the operator name, e.g. "keys: [a ASC]". */
  abstract describe(): string;

  /** EXPLAIN's node for this operator; operators PostgreSQL also has override it to use PostgreSQL's vocabulary. */
  explainNode(): ExplainNode {
    const d = this.describe();
    return { label: d ? `${this.name} (${d})` : this.name, details: [] };
  }

  /**
   * The order rows come out in, as keys over this operator's output columns (a prefix of it may be all
   * that is known; empty when none is). The planner reads it to skip sorts an input already did, so an
   * operator may only claim what holds for every run, spilled or not.
   */
  outputOrdering(): readonly SortKey[] {
    return [];
  }

  protected abstract run(ctx: ExecContext): AsyncGenerator<Batch>;

  /** Wraps run() with metrics when EXPLAIN ANALYZE asks for them. */
  execute(ctx: ExecContext): AsyncGenerator<Batch> {
    return ctx.analyze ? this.measured(ctx) : this.run(ctx);
  }

  private async *measured(ctx: ExecContext): AsyncGenerator<Batch> {
    const m = this.metrics;
    m.loops++;
    const it = this.run(ctx);
    try {
      for (;;) {
        const t0 = performance.now();
        const r = await it.next();
        m.timeMs += performance.now() - t0;
        if (r.done) break;
        m.rows += r.value.length;
        m.batches++;
        yield r.value;
      }
    } finally {
      await it.return(undefined);
    }
  }
}
