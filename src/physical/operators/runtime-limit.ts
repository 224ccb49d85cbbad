/**
 * LIMIT / OFFSET whose arguments are known only when the plan runs: they read columns of an outer query
 * (`LIMIT t.n` in a correlated subquery) or hold a subquery the planner could not fold beforehand (one
 * inside an IN / EXISTS / scalar subquery's plan, or a correlated one under LATERAL). The arguments are
 * evaluated each time the operator runs, against that outer row, and the Limit or TopN they describe is
 * built for that run. Uncorrelated subqueries in them still run once per statement (evalSlots caches
 * them as InitPlans). Constant arguments never come here (the planner folds them).
 */
import { QuireError } from '../../common/errors.js';
import type { Batch } from '../../common/column.js';
import type { ExecContext } from '../../execution/context.js';
import { someExpr, type Expr } from '../../logical/expr.js';
import { compileKernel, evalConstant } from '../compile-expr.js';
import { explainExpr } from '../explain-expr.js';
import { PhysicalOperator } from '../operator.js';
import { evalSlots, type SlotPlan } from '../subquery-eval.js';

export class RuntimeLimit extends PhysicalOperator {
  readonly name: string;

  constructor(
    readonly input: PhysicalOperator,
    readonly count: Expr | null,
    readonly offset: Expr | null,
    /** Builds this run's operator over `input` from the evaluated count (null = no limit) and offset. */
    private readonly build: (count: number | null, offset: number) => PhysicalOperator,
    /** Plans the subqueries the arguments hold (the planner's slotPlan). */
    private readonly slotPlan: (e: Expr & { kind: 'subquery' }) => SlotPlan,
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
    // Only arguments that read an outer row change between runs; an uncorrelated subquery runs once.
    const perRow = [this.count, this.offset].some((e) => e !== null && someExpr(e, (x) => x.kind === 'outer' || (x.kind === 'subquery' && x.correlated)));
    parts.push(perRow ? 'evaluated per outer row' : 'evaluated once when run');
    return parts.join(', ');
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    const count = await evalLimitArgument(this.count, ctx, 'LIMIT', this.slotPlan);
    const offset = (await evalLimitArgument(this.offset, ctx, 'OFFSET', this.slotPlan)) ?? 0;
    yield* this.build(count, offset).execute(ctx);
  }
}

/**
 * limitArgument for arguments that may hold subqueries. A LIMIT has no row of its own query level to
 * read, so the arguments are evaluated over one empty row: a correlated subquery in them sees that
 * empty row as its nearest outer row, as the binder numbered the levels.
 */
export async function evalLimitArgument(
  e: Expr | null,
  ctx: ExecContext,
  what: 'LIMIT' | 'OFFSET',
  slotPlan: (e: Expr & { kind: 'subquery' }) => SlotPlan,
): Promise<number | null> {
  if (e === null) return null;
  const k = compileKernel(e);
  if (k.slots.length === 0) return limitArgument(e, ctx, what);
  const one: Batch = { columns: [], length: 1 };
  const col = k.run(one, ctx, await evalSlots(k.slots.map((s) => slotPlan(s.expr)), one, ctx));
  return limitValue(col.nulls !== null && col.nulls[0] === 1 ? null : (col.data[0] as number | bigint), what);
}

/**
 * A LIMIT / OFFSET argument's value: null for none or NULL (no limit), 2201W / 2201X when negative,
 * capped at the largest exact number. Shared by the planner (constant arguments) and RuntimeLimit.
 */
export function limitArgument(e: Expr | null, ctx: ExecContext, what: 'LIMIT' | 'OFFSET'): number | null {
  if (e === null) return null;
  return limitValue(evalConstant(e, ctx) as number | bigint | null, what);
}

function limitValue(v: number | bigint | null, what: 'LIMIT' | 'OFFSET'): number | null {
  if (v === null) return null;
  const n = Number(v);
  if (n < 0) {
    throw what === 'LIMIT' ? new QuireError('2201W', 'LIMIT must not be negative') : new QuireError('2201X', 'OFFSET must not be negative');
  }
  return Math.min(n, Number.MAX_SAFE_INTEGER);
}
