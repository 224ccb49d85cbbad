/** Reads an in-memory or connector table; projection keeps only the columns the plan needs. */
import type { Schema } from '../../common/types.js';
import { pgColumnName } from '../explain-pg-expr.js';
import { pickColumns, sliceBatch, type Batch } from '../../common/column.js';
import { checkCancel, yieldIfDue, type ExecContext } from '../../execution/context.js';
import { PhysicalOperator, type ExplainHow, type ExplainInputs, type ExplainNode } from '../operator.js';

export interface ScannableSource {
  readonly name: string;
  /** `opts.fetch`: the plan needs at most this many rows (push-limit-into-scan); a hint a source may ignore. */
  scan(opts?: { fetch?: number }): AsyncIterable<Batch>;
  /** Extra EXPLAIN text, e.g. the SQL a connector table sends to its server. */
  describe?(): string;
  /** The relation EXPLAIN names when `name` is an internal one. */
  readonly explainName?: string;
}

/** Sources that hand out their rows as an immutable list of batches (in-memory tables). */
interface SnapshotSource {
  snapshot(): readonly Batch[];
}

function isSnapshotSource(s: unknown): s is SnapshotSource {
  return typeof (s as { snapshot?: unknown }).snapshot === 'function';
}

export class TableScan extends PhysicalOperator {
  readonly name = 'TableScan';
  /**
   * An in-memory table's rows as of planning: the statement's start, or a cursor's DECLARE. Reading
   * them only when the first batch is pulled would let a cursor whose plan pulls late (an aggregate,
   * a sort) see rows inserted after DECLARE, which PostgreSQL's snapshot does not.
   */
  private readonly pinned: readonly Batch[] | null;
  constructor(
    schema: Schema,
    readonly source: ScannableSource,
    /** Source column indexes to output, null = all. */
    readonly projection: number[] | null,
    /** Stop after this many rows (push-limit-into-scan); null = all. */
    readonly fetch: number | null = null,
    /** The name the query gave the table (FROM t AS u), for EXPLAIN. */
    readonly alias: string | null = null,
  ) {
    super(schema);
    this.pinned = isSnapshotSource(source) ? source.snapshot() : null;
  }
  children(): readonly PhysicalOperator[] {
    return [];
  }
  describe(): string {
    const extra = this.source.describe?.();
    return `table: ${this.source.name}${this.projection ? `, columns: [${this.projection.map((i) => this.schema[this.projection!.indexOf(i)]!.name).join(', ')}]` : ''}${extra ? `, ${extra}` : ''}${this.fetch !== null ? `, fetch: ${this.fetch}` : ''}`;
  }
  override explainNode(_inputs: ExplainInputs, how: ExplainHow): ExplainNode {
    const remote = this.source.describe?.();
    const name = this.source.explainName ?? this.source.name;
    const table = this.alias ?? name;
    const qualified = how.verbose && !name.includes('.') ? `public.${name}` : name;
    const label = `${remote !== undefined ? 'Foreign Scan' : 'Seq Scan'} on ${qualified}${table !== name ? ` ${table}` : ''}`;
    const details = remote !== undefined ? [remote.replace(/^remote SQL: /, 'Remote SQL: ')] : [];
    const outputs = this.schema.map((f) => (how.qualify ? `${table}.${pgColumnName(f.name)}` : pgColumnName(f.name)));
    return { label, details, outputs, projects: true };
  }
  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    const proj = this.projection;
    const fetch = this.fetch;
    if (fetch === 0) return;
    let left = fetch ?? Infinity;
    for await (const b0 of this.pinned ?? this.source.scan(fetch === null ? undefined : { fetch })) {
      checkCancel(ctx);
      const due = yieldIfDue(ctx);
      if (due !== undefined) await due;
      const b = b0.length > left ? sliceBatch(b0, 0, left) : b0;
      yield proj === null ? b : { columns: pickColumns(b.columns, proj), length: b.length };
      left -= b.length;
      // Leaving the loop returns the source's iterator: an in-memory table stops reading here.
      if (left <= 0) return;
    }
  }
}
