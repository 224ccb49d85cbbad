/**
 * generate_series(start, stop [, step]) for int4, int8, numeric, and timestamp / timestamptz with an
 * interval step (plus PostgreSQL 16's timestamptz variant with a time zone argument), with
 * PostgreSQL's overload resolution, checks and messages. Rows are produced lazily, BATCH_SIZE at a
 * time, so generate_series(1, 1e9) costs nothing until consumed.
 */
import { QuireError } from '../../common/errors.js';
import { Interval } from '../../common/interval.js';
import { Numeric } from '../../common/numeric.js';
import { canCoerceImplicitly } from '../../common/cast.js';
import { T, category, typeDisplayName, type DataType, type TypeName, type Value } from '../../common/types.js';
import { BATCH_SIZE, ColumnBuilder, makeColumn, type Batch } from '../../common/column.js';
import type { Micros } from '../../common/datetime-calendar.js';
import type { EvalContext } from '../../functions/eval-context.js';
import { utcOffsetSeconds } from '../../common/timezone.js';
import { timestampPlusInterval, timestamptzPlusInterval } from '../../functions/scalar/support/datetime.js';
import type { TableFunction, TableFunctionBinding } from './table-function.js';

const CANDIDATES: readonly (readonly TypeName[])[] = [
  ['int4', 'int4'],
  ['int8', 'int8'],
  ['numeric', 'numeric'],
  ['int4', 'int4', 'int4'],
  ['int8', 'int8', 'int8'],
  ['numeric', 'numeric', 'numeric'],
  ['timestamp', 'timestamp', 'interval'],
  ['timestamptz', 'timestamptz', 'interval'],
  ['timestamptz', 'timestamptz', 'interval', 'text'],
];

const PREFERRED = new Set<TypeName>(['float8', 'text', 'timestamptz', 'interval', 'bool']);

function signature(argTypes: readonly DataType[]): string {
  return `generate_series(${argTypes.map(typeDisplayName).join(', ')})`;
}

/**
 * PostgreSQL's func_select_candidate over the generate_series overloads: implicit coercibility,
 * then most exact matches, then most preferred types where coercion is needed, then the unknown-
 * literal rules (category agreement, preferred type), then "unknowns are the known type".
 */
export function resolveGenerateSeries(argTypes: readonly DataType[]): readonly TypeName[] {
  const names = argTypes.map((t) => t.name);
  let cands = CANDIDATES.filter((c) => c.length === names.length && c.every((t, i) => names[i] === 'unknown' || names[i] === t || canCoerceImplicitly(argTypes[i]!, T[t])));
  if (cands.length === 0) {
    throw new QuireError('42883', `function ${signature(argTypes)} does not exist`, {
      hint: 'No function matches the given name and argument types. You might need to add explicit type casts.',
    });
  }
  const keepMax = (score: (c: readonly TypeName[]) => number): void => {
    const scores = cands.map(score);
    const best = Math.max(...scores);
    cands = cands.filter((_, i) => scores[i] === best);
  };
  if (cands.length > 1) keepMax((c) => c.filter((t, i) => names[i] === t).length);
  if (cands.length > 1) keepMax((c) => c.filter((t, i) => names[i] !== 'unknown' && names[i] !== t && PREFERRED.has(t)).length);
  if (cands.length > 1 && names.includes('unknown')) {
    for (let i = 0; i < names.length && cands.length > 1; i++) {
      if (names[i] !== 'unknown') continue;
      const cats = new Set(cands.map((c) => category(T[c[i]!])));
      let cat: string;
      if (cats.has('S')) cat = 'S';
      else if (cats.size === 1) cat = [...cats][0]!;
      else {
        cands = [];
        break;
      }
      const inCat = cands.filter((c) => category(T[c[i]!]) === cat);
      const pref = inCat.filter((c) => PREFERRED.has(c[i]!));
      cands = pref.length > 0 ? pref : inCat;
    }
    if (cands.length !== 1) {
      const known = [...new Set(names.filter((n) => n !== 'unknown'))];
      if (known.length === 1) {
        const k = known[0]!;
        const fit = CANDIDATES.filter((c) => c.length === names.length && c.every((t, i) => (names[i] === 'unknown' ? t === k || canCoerceImplicitly(T[k], T[t]) : names[i] === t || canCoerceImplicitly(argTypes[i]!, T[t]))));
        if (fit.length === 1) cands = fit;
      }
    }
  }
  if (cands.length !== 1) {
    throw new QuireError('42725', `function ${signature(argTypes)} is not unique`, {
      hint: 'Could not choose a best candidate function. You might need to add explicit type casts.',
    });
  }
  return cands[0]!;
}

function invalid(message: string): QuireError {
  return new QuireError('22023', message);
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const INT8_MIN = -(2n ** 63n);
const INT8_MAX = 2n ** 63n - 1n;

function toBig(v: Value): bigint {
  return typeof v === 'bigint' ? v : BigInt(v as number);
}

function intBatchF64(t: DataType, values: Float64Array | Int32Array, n: number): Batch {
  return { columns: [makeColumn(t, n === values.length ? values : values.slice(0, n), null)], length: n };
}

/** Integer series; `max` bounds the element type (PostgreSQL stops instead of overflowing). */
async function* integerSeries(t: DataType, start: bigint, stop: bigint, step: bigint, signal?: AbortSignal): AsyncGenerator<Batch> {
  if (step === 0n) throw invalid('step size cannot equal zero');
  const up = step > 0n;
  if (up ? start > stop : start < stop) return;
  const isInt4 = t.name === 'int4';
  // When every value (and the next one computed) is a safe double, loop in doubles.
  const safe = !isInt4 && start >= -SAFE && start <= SAFE && stop >= -SAFE && stop <= SAFE && step >= -SAFE && step <= SAFE &&
    (up ? stop + step <= SAFE : stop + step >= -SAFE);
  if (isInt4 || safe) {
    let cur = Number(start);
    const end = Number(stop);
    const s = Number(step);
    for (;;) {
      if (signal?.aborted) throw new QuireError('57014', 'canceling statement due to user request');
      const data = isInt4 ? new Int32Array(BATCH_SIZE) : new Float64Array(BATCH_SIZE);
      let n = 0;
      let done = false;
      while (n < BATCH_SIZE) {
        data[n++] = cur;
        const next = cur + s;
        // int4 bounds are exact in doubles; PostgreSQL ends the series where the next value would overflow.
        if (up ? next > end : next < end) {
          done = true;
          break;
        }
        cur = next;
      }
      yield intBatchF64(t, data, n);
      if (done) return;
    }
  }
  let cur = start;
  for (;;) {
    if (signal?.aborted) throw new QuireError('57014', 'canceling statement due to user request');
    const b = new ColumnBuilder(t, BATCH_SIZE);
    let done = false;
    while (b.length < BATCH_SIZE) {
      b.push(cur >= -SAFE && cur <= SAFE ? Number(cur) : cur);
      const next = cur + step;
      if (next < INT8_MIN || next > INT8_MAX || (up ? next > stop : next < stop)) {
        done = true;
        break;
      }
      cur = next;
    }
    yield { columns: [b.finish()], length: b.length };
    if (done) return;
  }
}

async function* numericSeries(start: Numeric, stop: Numeric, step: Numeric, signal?: AbortSignal): AsyncGenerator<Batch> {
  const up = step.sign() > 0;
  let cur = start;
  for (;;) {
    if (signal?.aborted) throw new QuireError('57014', 'canceling statement due to user request');
    const b = new ColumnBuilder(T.numeric, BATCH_SIZE);
    while (b.length < BATCH_SIZE) {
      const c = cur.cmp(stop);
      if (up ? c > 0 : c < 0) {
        if (b.length > 0) yield { columns: [b.finish()], length: b.length };
        return;
      }
      b.push(cur);
      cur = cur.add(step);
    }
    yield { columns: [b.finish()], length: b.length };
  }
}

async function* timestampSeries(t: DataType, start: Micros, stop: Micros, step: Interval, add: (ts: Micros) => Micros, signal?: AbortSignal): AsyncGenerator<Batch> {
  const sign = step.compare(Interval.ZERO);
  if (sign === 0) throw invalid('step size cannot equal zero');
  if (!step.isFinite()) throw invalid('step size cannot be infinite');
  const up = sign > 0;
  let cur = start;
  for (;;) {
    if (signal?.aborted) throw new QuireError('57014', 'canceling statement due to user request');
    // A builder, not a Float64Array: values beyond 2^53 µs are bigints.
    const data = new ColumnBuilder(t, BATCH_SIZE);
    let n = 0;
    while (n < BATCH_SIZE) {
      if (up ? cur > stop : cur < stop) {
        if (n > 0) yield { columns: [data.finish()], length: n };
        return;
      }
      data.push(cur);
      n++;
      // PostgreSQL advances before returning the current row, so an overflowing step errors here.
      cur = add(cur);
    }
    yield { columns: [data.finish()], length: n };
  }
}

function checkNumeric(v: Numeric, what: 'start value' | 'stop value' | 'step size'): void {
  if (v.isNaN()) throw invalid(`${what} cannot be NaN`);
  if (!v.isFinite()) throw invalid(`${what} cannot be infinity`);
}

function estimate(sig: readonly TypeName[], consts: readonly (Value | undefined)[]): number | undefined {
  const [a, b, c] = consts;
  if (a === undefined || b === undefined || a === null || b === null) return undefined;
  try {
    if (sig[0] === 'int4' || sig[0] === 'int8') {
      const step = c === undefined ? 1 : Number(c as number | bigint);
      if (step === 0 || c === null) return 0;
      return Math.max(0, Math.floor((Number(b as number) - Number(a as number)) / step) + 1);
    }
    if (sig[0] === 'numeric' && a instanceof Numeric && b instanceof Numeric) {
      const step = c instanceof Numeric ? c.toNumber() : 1;
      return step === 0 ? 0 : Math.max(0, Math.floor((b.toNumber() - a.toNumber()) / step) + 1);
    }
    if (c instanceof Interval && typeof a === 'number' && typeof b === 'number') {
      const us = c.normalized();
      return us === 0 ? 0 : Math.max(0, Math.floor((b - a) / us) + 1);
    }
  } catch {
    return undefined;
  }
  return undefined;
}

export const generateSeries: TableFunction = {
  name: 'generate_series',
  bind(argTypes: readonly DataType[], constArgs: readonly (Value | undefined)[], _ctx: EvalContext, namedArgs: ReadonlyMap<string, Value>): TableFunctionBinding {
    if (namedArgs.size > 0) {
      throw new QuireError('42883', `function generate_series(${[...argTypes.map(typeDisplayName), ...[...namedArgs.keys()].map((k) => `${k} => unknown`)].join(', ')}) does not exist`, {
        hint: 'No function matches the given name and argument types. You might need to add explicit type casts.',
      });
    }
    const sig = resolveGenerateSeries(argTypes);
    const outType = T[sig[0]!];
    const est = estimate(sig, constArgs);
    const binding: TableFunctionBinding = {
      schema: [{ name: 'generate_series', type: outType }],
      argTypes: sig.map((n) => T[n]),
      execute(args: readonly Value[], ctx: EvalContext, signal?: AbortSignal): AsyncGenerator<Batch> {
        return run(sig, args, ctx, signal);
      },
    };
    if (est !== undefined) binding.estimatedRows = est;
    return binding;
  },
};

async function* run(sig: readonly TypeName[], args: readonly Value[], ctx: EvalContext, signal?: AbortSignal): AsyncGenerator<Batch> {
  // generate_series is strict: any NULL argument gives no rows.
  if (args.some((a) => a === null || a === undefined)) return;
  const kind = sig[0]!;
  if (kind === 'int4' || kind === 'int8') {
    yield* integerSeries(T[kind], toBig(args[0]!), toBig(args[1]!), args.length > 2 ? toBig(args[2]!) : 1n, signal);
    return;
  }
  if (kind === 'numeric') {
    const start = args[0] as Numeric;
    const stop = args[1] as Numeric;
    checkNumeric(start, 'start value');
    checkNumeric(stop, 'stop value');
    let step = Numeric.fromInt(1);
    if (args.length > 2) {
      step = args[2] as Numeric;
      checkNumeric(step, 'step size');
      if (step.isZero()) throw invalid('step size cannot equal zero');
    }
    yield* numericSeries(start, stop, step, signal);
    return;
  }
  const step = args[2] as Interval;
  if (kind === 'timestamp') {
    yield* timestampSeries(T.timestamp, args[0] as Micros, args[1] as Micros, step, (ts) => timestampPlusInterval(ts, step), signal);
    return;
  }
  const zone = args.length > 3 ? (args[3] as string) : ctx.timezone;
  // Validates the zone up front (PostgreSQL does), even when the step never consults it.
  utcOffsetSeconds(zone, 0);
  yield* timestampSeries(T.timestamptz, args[0] as Micros, args[1] as Micros, step, (ts) => timestamptzPlusInterval(zone, ts, step), signal);
}
