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
import { checkCancel } from '../execution/context.js';

function single(type: DataType, v: Value): Column {
  const b = new ColumnBuilder(type, 1);
  b.push(v);
  return b.finish();
}

/**
 * `moving`: run the moving-aggregate mode (spec.moving) where one exists, as PostgreSQL does for a window
 * whose frame start moves; the aggregate is then invertible.
 */
/**
 * A check of the statement's deadline and cancel signal every 1,024 transition calls. A window whose
 * frame start moves runs a user-defined aggregate's transition O(rows × frame) times inside one
 * partition, with no batch boundary where the operators would check.
 */
function cancelTicker(ctx: ExecContext): () => void {
  let n = 0;
  return () => {
    if ((++n & 1023) === 0) checkCancel(ctx);
  };
}

export function userAggregate(name: string, spec: UserAggregateSpec, argTypes: readonly DataType[], returnType: DataType, ctx: ExecContext, moving = false): ResolvedAggregate {
  if (moving && spec.moving !== undefined) return movingAggregate(name, spec.moving, argTypes, returnType, ctx);
  const transition = compileSimple(spec.transition);
  const final = spec.final === null ? null : compileSimple(spec.final);
  const tick = cancelTicker(ctx);
  /** `seeded`: false until the first non-null input of an aggregate with no initial value. */
  const step = (state: Value, args: readonly Value[], seeded: boolean): Value => {
    tick();
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
  return { name, returnType, argTypes, invertible: false, noMerge: true, retainsInput: true, grouped, sliding };
}

/**
 * Moving-aggregate mode, with PostgreSQL's rules: the state counts the rows in it; a strict transition
 * or inverse function skips rows with a NULL argument; the first row of a strict transition with no
 * initial value becomes the state; taking out the last row restores the initial state without a call;
 * a NULL from the transition function is an error, a NULL from the inverse asks for a rebuild.
 */
function movingAggregate(name: string, m: NonNullable<UserAggregateSpec['moving']>, argTypes: readonly DataType[], returnType: DataType, ctx: ExecContext): ResolvedAggregate {
  const transition = compileSimple(m.transition);
  const inverse = compileSimple(m.inverse);
  const final = m.final === null ? null : compileSimple(m.final);
  const tick = cancelTicker(ctx);
  const call = (f: typeof transition, state: Value, args: readonly Value[]): Value => {
    tick();
    return getValue(f({ columns: [single(m.stateType, state), ...args.map((a, i) => single(argTypes[i]!, a))], length: 1 }, ctx), 0);
  };
  const sliding = (): SlidingAccumulator => {
    let state: Value = m.initial;
    let count = 0;
    return {
      add(args: readonly Value[]): void {
        if (m.strict && args.some((a) => a === null)) return;
        if (m.strict && state === null) {
          state = args.length > 0 ? args[0]! : null;
          count = 1;
          return;
        }
        const next = call(transition, state, args);
        if (next === null) throw new QuireError('XX000', `moving-aggregate transition function of ${name} must not return null`);
        state = next;
        count++;
      },
      remove(args: readonly Value[]): boolean {
        if (m.inverseStrict && args.some((a) => a === null)) return true;
        if (count <= 1) {
          state = m.initial;
          count = 0;
          return true;
        }
        const next = call(inverse, state, args);
        if (next === null) return false;
        state = next;
        count--;
        return true;
      },
      merge(): void {
        throw new QuireError('0A000', `aggregate ${name} has no combine function`);
      },
      value(): Value {
        if (final === null) return state;
        if (state === null && m.finalStrict) return null;
        return getValue(final({ columns: [single(m.stateType, state)], length: 1 }, ctx), 0);
      },
      reset(): void {
        state = m.initial;
        count = 0;
      },
    };
  };
  const grouped = (): never => {
    throw new QuireError('XX000', `moving-aggregate mode of ${name} is for windows only`);
  };
  return { name, returnType, argTypes, invertible: true, noMerge: true, retainsInput: true, grouped, sliding };
}
