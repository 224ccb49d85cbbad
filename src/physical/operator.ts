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
  /** Wall time until the first batch came out, summed over loops (EXPLAIN ANALYZE's startup time). */
  startupMs: number;
  loops: number;
  extra: Record<string, number | string>;
}

/** One node of EXPLAIN's text as PostgreSQL prints it. */
export interface ExplainNode {
  /** The node in PostgreSQL's words with its target ("Seq Scan on t", "Index Scan using i on t"); Quire's own name where PostgreSQL has no such node. */
  readonly label: string;
  /** Lines printed under the node, each "Name: value" ("Index Cond: (a = 1)", "Sort Key: b"). */
  readonly details: readonly string[];
  /**
   * The text of each output column as PostgreSQL deparses it (parents print their expressions over
   * these; VERBOSE prints them as "Output:"). Absent: the input's texts when the node passes its
   * input's columns through unchanged, else the column names.
   */
  readonly outputs?: readonly string[];
  /**
   * Work PostgreSQL does inside the node below rather than in a node of its own: 'filter' (the
   * node's one detail line becomes the input's "Filter:"), 'projection' (the outputs become the
   * input's). Where the input cannot take it (Sort, Limit: they neither filter nor project),
   * the work shows as a Result node, as PostgreSQL plans it.
   */
  readonly merge?: 'filter' | 'projection';
  /** A projection that only picks input columns (at the top of a plan, PostgreSQL's junk filter does that). */
  readonly selectsColumns?: boolean;
  /** Whether this node evaluates quals and projections itself (scans, joins, aggregates) — see merge. */
  readonly projects?: boolean;
  /**
   * A node per child to show between this node and that child: a hash join's "Hash" over its build
   * side (rows: the child's), a Top-N's "Sort" under its "Limit" (rows: this node's).
   */
  readonly childWrappers?: readonly (ExplainWrapper | null)[];
}

export interface ExplainWrapper {
  readonly label: string;
  readonly details: readonly string[];
  readonly rowsOf: 'child' | 'self';
}

/** The column texts of each child, as explainNode reads them. */
export type ExplainInputs = readonly (readonly string[])[];

export interface ExplainHow {
  /** EXPLAIN VERBOSE: schema-qualified relations, "Output:" lines. */
  readonly verbose: boolean;
  /** Column references carry their relation's name (VERBOSE, or a plan over several relations). */
  readonly qualify: boolean;
}

export abstract class PhysicalOperator {
  abstract readonly name: string;
  readonly metrics: OperatorMetrics = { rows: 0, batches: 0, timeMs: 0, startupMs: 0, loops: 0, extra: {} };

  constructor(readonly schema: Schema) {}

  abstract children(): readonly PhysicalOperator[];

  /** One line of EXPLAIN detail after the operator name, e.g. "keys: [a ASC]". */
  abstract describe(): string;

  /** EXPLAIN's node for this operator; operators PostgreSQL also has override it to use PostgreSQL's vocabulary. */
  explainNode(_inputs: ExplainInputs, _how: ExplainHow): ExplainNode {
    const d = this.describe().replace(/\u0000([a-z]+(?: [a-z]+)*)/g, '[$1]');
    return { label: this.name, details: d ? [d.charAt(0).toUpperCase() + d.slice(1)] : [] };
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
    let first = true;
    try {
      for (;;) {
        const t0 = performance.now();
        const r = await it.next();
        const dt = performance.now() - t0;
        m.timeMs += dt;
        if (first) {
          m.startupMs += dt;
          first = false;
        }
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
