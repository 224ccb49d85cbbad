/**
 * LIMIT / OFFSET whose arguments read columns of an outer query (`LIMIT t.n` in a correlated subquery):
 * the arguments are evaluated each time the subquery runs, against that outer row, and the Limit or TopN
 * they describe is built for that run. Constant arguments never come here (the planner folds them).
 */
import { QuireError } from '../../common/errors.js';
import type { Batch } from '../../execution/column.js';
import type { ExecContext } from '../../execution/context.js';
import type { Expr } from '../../logical/expr.js';
import { evalConstant } from '../compile-expr.js';
import { explainExpr } from '../explain-expr.js';
import { PhysicalOperator } from '../operator.js';

export class RuntimeLimit extends PhysicalOperator {
  readonly name: string;

  constructor(
    readonly input: PhysicalOperator,
    readonly count: Expr | null,
    readonly offset: Expr | null,
    /** Builds this run's operator over `input` from the evaluated count (null = no limit) and offset. */
    private readonly build: (count: number | null, offset: number) => PhysicalOperator,
    /** For EXPLAIN: what `build` makes ('Limit', or 'TopN' with its sort keys). */
    private readonly shape: { name: 'Limit' } | { name: 'TopN'; keys: string } = { name: 'Limit' },
  ) {
    super(input.schema);
    this.name = shape.name;
  }

  children(): readonly PhysicalOperator[] {
    return [this.input];
  }

  describe(): string {
    const parts: string[] = [];
    if (this.shape.name === 'TopN') parts.push(`keys: ${this.shape.keys}`);
    if (this.count !== null) parts.push(`limit: ${explainExpr(this.count, this.input.schema)}`);
    if (this.offset !== null) parts.push(`offset: ${explainExpr(this.offset, this.input.schema)}`);
    parts.push('evaluated per outer row');
    return parts.join(', ');
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    const count = limitArgument(this.count, ctx, 'LIMIT');
    const offset = limitArgument(this.offset, ctx, 'OFFSET') ?? 0;
    yield* this.build(count, offset).execute(ctx);
  }
}

/**
 * A LIMIT / OFFSET argument's value: null for none or NULL (no limit), 2201W / 2201X when negative,
 * capped at the largest exact number. Shared by the planner (constant arguments) and RuntimeLimit.
 */
export function limitArgument(e: Expr | null, ctx: ExecContext, what: 'LIMIT' | 'OFFSET'): number | null {
  if (e === null) return null;
  const v = evalConstant(e, ctx);
  if (v === null) return null;
  const n = Number(v as number | bigint);
  if (n < 0) {
    throw what === 'LIMIT' ? new QuireError('2201W', 'LIMIT must not be negative') : new QuireError('2201X', 'OFFSET must not be negative');
  }
  return Math.min(n, Number.MAX_SAFE_INTEGER);
}
