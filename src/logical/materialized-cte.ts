/**
 * A WITH query that is read more than once (or written MATERIALIZED): PostgreSQL evaluates such a
 * query once per statement and every reference reads the same rows, so a volatile function in it
 * (random(), nextval(), clock_timestamp()) gives every reference the same values, and an expensive
 * body runs once. Each reference is a scan of this source; the physical planner turns the scans into
 * CTE scans over one shared evaluation of `plan`.
 */
import type { Schema } from '../common/types.js';
import type { LogicalPlan, TableSource } from './plan.js';

export class MaterializedCte implements TableSource {
  constructor(
    readonly name: string,
    readonly schema: Schema,
    /** The WITH query's plan, with the output names of the CTE. */
    readonly plan: LogicalPlan,
  ) {}

  rowCount(): number | undefined {
    return undefined;
  }

  /** The same CTE over another plan for its body (the optimizer's rewrite of it). */
  withPlan(plan: LogicalPlan): MaterializedCte {
    return new MaterializedCte(this.name, this.schema, plan);
  }
}
