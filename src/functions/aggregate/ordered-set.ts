/**
 * Shared state of the ordered-set aggregates (percentile_cont, percentile_disc, mode): their input
 * arrives sorted by WITHIN GROUP (ORDER BY …) (the aggregate operator sorts inputs of aggregates with an
 * ORDER BY), so each group keeps its non-NULL ordered values in that order, plus its direct argument,
 * and the final function reads them. Direct arguments are evaluated per row here; PostgreSQL evaluates
 * them once per group, which is the same value for the constants and grouping columns it allows.
 */
import { QuireError } from '../../common/errors.js';
import type { Value } from '../../common/types.js';
import { getValue, type Column } from '../../common/column.js';
import type { GroupedAccumulator, SlidingAccumulator, WithinGroup } from './aggregate-function.js';
import { growArr } from './support.js';

export type OrderedFinal = (sorted: readonly Value[], direct: Value) => Value;

export class GroupedOrderedSet implements GroupedAccumulator {
  private readonly values: Value[][] = [];
  private readonly direct: Value[] = [];
  private readonly seen: boolean[] = [];
  /**
   * `hasDirect`: argument 0 is the direct argument and argument 1 the ordered one (else argument 0 is).
   * `constDirect`: the direct argument's value when it is a constant, so empty groups still check it.
   */
  constructor(
    private readonly final: OrderedFinal,
    private readonly hasDirect: boolean,
    private readonly constDirect: Value | undefined,
  ) {}
  grow(groups: number): void {
    for (let g = this.values.length; g < groups; g++) this.values.push([]);
    growArr(this.direct, groups, null);
    growArr(this.seen, groups, false);
  }
  update(gids: Int32Array, n: number, args: readonly Column[]): void {
    const dc = this.hasDirect ? args[0]! : null;
    const vc = args[this.hasDirect ? 1 : 0]!;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0) continue;
      if (!this.seen[g]) {
        this.seen[g] = true;
        if (dc !== null) this.direct[g] = getValue(dc, k);
      }
      const v = getValue(vc, k);
      if (v !== null) this.values[g]!.push(v);
    }
  }
  result(g: number): Value {
    const direct = this.constDirect !== undefined ? this.constDirect : this.direct[g] ?? null;
    if (this.hasDirect && this.constDirect === undefined && !this.seen[g]) return null;
    return this.final(this.values[g] ?? [], direct);
  }
}

/** Ordered-set aggregates have no moving form: OVER is refused when binding. */
export function noSliding(name: string): SlidingAccumulator {
  throw new QuireError('0A000', `OVER is not supported for ordered-set aggregate ${name}`);
}

export function constDirect(within: WithinGroup | undefined): Value | undefined {
  return within?.directValues[0];
}
