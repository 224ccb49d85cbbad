/**
 * User-defined aggregates (CREATE AGGREGATE): the bound transition expression is evaluated per input
 * row over the virtual row [state, arguments…], the final expression once per group over [state].
 * Row at a time, as PostgreSQL calls a transition function; fast enough for aggregates that call SQL
 * functions, which is what user-defined aggregates are.
 */
import { QuireError } from '../common/errors.js';
import type { DataType, Value } from '../common/types.js';
import { ColumnBuilder, getValue, type Batch, type Column } from '../common/column.js';
import type { ExecContext } from '../execution/context.js';
import type { GroupedAccumulator, ResolvedAggregate, SlidingAccumulator } from '../functions/aggregate/aggregate-function.js';
import type { UserAggregateSpec } from '../logical/plan.js';
import { compileSimple } from './compile-expr.js';

function single(type: DataType, v: Value): Column {
  const b = new ColumnBuilder(type, 1);
  b.push(v);
  return b.finish();
}

export function userAggregate(name: string, spec: UserAggregateSpec, argTypes: readonly DataType[], returnType: DataType, ctx: ExecContext): ResolvedAggregate {
  const transition = compileSimple(spec.transition);
  const final = spec.final === null ? null : compileSimple(spec.final);
  /** `seeded`: false until the first non-null input of an aggregate with no initial value. */
  const step = (state: Value, args: readonly Value[], seeded: boolean): Value => {
    if (spec.strict) {
      if (args.some((a) => a === null)) return state;
      // The first non-null input becomes the state (its type is the state type: CREATE AGGREGATE checks).
      if (!seeded) return args.length > 0 ? args[0]! : state;
      // A strict transition function that returned NULL leaves the state NULL for the rest of the group.
      if (state === null) return null;
    }
    const batch: Batch = { columns: [single(spec.stateType, state), ...args.map((a, i) => single(argTypes[i]!, a))], length: 1 };
    return getValue(transition(batch, ctx), 0);
  };
  const finish = (state: Value): Value => {
    if (final === null) return state;
    if (state === null && spec.finalStrict) return null;
    return getValue(final({ columns: [single(spec.stateType, state)], length: 1 }, ctx), 0);
  };
  const grouped = (): GroupedAccumulator => {
    const states: Value[] = [];
    const seeded: boolean[] = [];
    return {
      grow(groups: number): void {
        while (states.length < groups) {
          states.push(spec.initial);
          seeded.push(spec.initial !== null);
        }
      },
      update(gids: Int32Array, n: number, args: readonly Column[]): void {
        for (let k = 0; k < n; k++) {
          const g = gids[k]!;
          if (g < 0) continue;
          const values = args.map((c) => getValue(c, k));
          states[g] = step(states[g]!, values, seeded[g]!);
          if (!values.some((v) => v === null)) seeded[g] = true;
        }
      },
      result(g: number): Value {
        return finish(g < states.length ? states[g]! : spec.initial);
      },
    };
  };
  const sliding = (): SlidingAccumulator => {
    let state: Value = spec.initial;
    let seeded = spec.initial !== null;
    return {
      add(args: readonly Value[]): void {
        state = step(state, args, seeded);
        if (!args.some((v) => v === null)) seeded = true;
      },
      merge(): void {
        throw new QuireError('0A000', `aggregate ${name} has no combine function`);
      },
      value(): Value {
        return finish(state);
      },
      reset(): void {
        state = spec.initial;
        seeded = spec.initial !== null;
      },
    };
  };
  return { name, returnType, argTypes, invertible: false, retainsInput: true, grouped, sliding };
}
