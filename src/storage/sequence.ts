/**
 * Sequences (CREATE SEQUENCE, serial and identity columns). A sequence's counter is shared by every
 * session and never rolled back, as in PostgreSQL: nextval() inside a transaction that aborts still
 * consumes the value.
 *
 * The counter is a plain `{ next }` object holding the value the next nextval() returns when it is in
 * range. A serial or identity column's default shares that object with the column's metadata
 * (ColumnMeta.sequence), so the column default and nextval('t_c_seq') draw from one counter, and a
 * persisted table keeps its counter the way it always has.
 */
import { QuireError } from '../common/errors.js';
import type { ColumnSequence } from './memory-table.js';

export interface SequenceCounter {
  next: number;
}

export type SequenceType = 'int2' | 'int4' | 'int8';

export interface SequenceOptions {
  readonly type: SequenceType;
  readonly increment: number;
  readonly min: bigint;
  readonly max: bigint;
  readonly start: number;
  readonly cache: number;
  readonly cycle: boolean;
}

const TYPE_BOUNDS: Record<SequenceType, [bigint, bigint]> = {
  int2: [-32768n, 32767n],
  int4: [-2147483648n, 2147483647n],
  int8: [-9223372036854775808n, 9223372036854775807n],
};

/** Values beyond ±2^53 would lose precision in the counter. */
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export function typeBounds(t: SequenceType): [bigint, bigint] {
  return TYPE_BOUNDS[t];
}

export class Sequence {
  /** The column a serial/identity sequence belongs to (DROP TABLE drops it), if any. */
  ownedBy: { table: string; column: string } | null = null;
  /** No value handed out since CREATE, RESTART or setval(…, false): ALTER … INCREMENT leaves `next` alone. */
  pristine = true;

  constructor(
    readonly name: string,
    public options: SequenceOptions,
    readonly counter: SequenceCounter,
  ) {}

  /** nextval(): the counter's value, wrapping or failing at the bounds as the options say. */
  nextval(): number {
    const o = this.options;
    let v = this.counter.next;
    if (o.increment > 0 ? v > o.max : v < o.min) {
      if (!o.cycle) {
        throw new QuireError('2200H', `nextval: reached ${o.increment > 0 ? 'maximum' : 'minimum'} value of sequence "${this.name}" (${o.increment > 0 ? o.max : o.min})`);
      }
      v = safeNumber(o.increment > 0 ? o.min : o.max);
    }
    this.counter.next = v + o.increment;
    this.pristine = false;
    return v;
  }

  /** setval(v, isCalled): the next nextval() returns v (isCalled false) or the value after it. */
  setval(value: number | bigint, isCalled: boolean): void {
    const o = this.options;
    const b = BigInt(value);
    if (b < o.min || b > o.max) {
      throw new QuireError('22003', `setval: value ${b} is out of bounds for sequence "${this.name}" (${o.min}..${o.max})`);
    }
    const v = safeNumber(b);
    this.counter.next = isCalled ? v + o.increment : v;
    this.pristine = !isCalled;
  }

  /** New options (ALTER SEQUENCE): a changed increment applies from the last value handed out. */
  alter(options: SequenceOptions): void {
    if (!this.pristine) this.counter.next += options.increment - this.options.increment;
    this.options = options;
  }

  /** ALTER SEQUENCE … RESTART [WITH n]. */
  restart(value: number): void {
    const o = this.options;
    if (BigInt(value) < o.min) throw new QuireError('22023', `RESTART value (${value}) cannot be less than MINVALUE (${o.min})`);
    if (BigInt(value) > o.max) throw new QuireError('22023', `RESTART value (${value}) cannot be greater than MAXVALUE (${o.max})`);
    this.counter.next = value;
    this.pristine = true;
  }

}

function safeNumber(b: bigint): number {
  if (b > SAFE || b < -SAFE) throw new QuireError('0A000', `sequence values beyond ±${SAFE} are not supported`);
  return Number(b);
}

/**
 * Options of CREATE SEQUENCE / ALTER SEQUENCE / identity columns as PostgreSQL validates them: defaults
 * from the data type and the sign of the increment, then the range and START checks.
 */
export function sequenceOptions(
  given: { type?: SequenceType; increment?: number; min?: bigint | null; max?: bigint | null; start?: number; cache?: number; cycle?: boolean },
  base?: SequenceOptions,
): SequenceOptions {
  const type = given.type ?? base?.type ?? 'int8';
  const [tmin, tmax] = TYPE_BOUNDS[type];
  const increment = given.increment ?? base?.increment ?? 1;
  if (increment === 0) throw new QuireError('22023', 'INCREMENT must not be zero');
  // NO MINVALUE / NO MAXVALUE (null) and a changed increment sign fall back to the type's defaults.
  const min = given.min !== undefined && given.min !== null ? given.min : given.min === null || base === undefined ? (increment > 0 ? 1n : tmin) : base.min;
  const max = given.max !== undefined && given.max !== null ? given.max : given.max === null || base === undefined ? (increment > 0 ? tmax : -1n) : base.max;
  const typeName = type === 'int2' ? 'smallint' : type === 'int4' ? 'integer' : 'bigint';
  if (min < tmin || min > tmax) throw new QuireError('22023', `MINVALUE (${min}) is out of range for sequence data type ${typeName}`);
  if (max < tmin || max > tmax) throw new QuireError('22023', `MAXVALUE (${max}) is out of range for sequence data type ${typeName}`);
  if (min >= max) throw new QuireError('22023', `MINVALUE (${min}) must be less than MAXVALUE (${max})`);
  const start = given.start ?? base?.start ?? safeNumber(increment > 0 ? min : max);
  if (BigInt(start) < min) throw new QuireError('22023', `START value (${start}) cannot be less than MINVALUE (${min})`);
  if (BigInt(start) > max) throw new QuireError('22023', `START value (${start}) cannot be greater than MAXVALUE (${max})`);
  const cache = given.cache ?? base?.cache ?? 1;
  if (cache < 1) throw new QuireError('22023', `CACHE (${cache}) must be greater than zero`);
  return { type, increment, min, max, start, cache, cycle: given.cycle ?? base?.cycle ?? false };
}

// ---- lookup -----------------------------------------------------------------------------------

/** What sequence lookup needs of a table: its name, columns and column metadata. */
interface OwningTable {
  readonly name: string;
  readonly schema: readonly { readonly name: string; readonly type: { readonly name: string } }[];
  readonly meta: readonly { readonly sequence: ColumnSequence | null }[];
}

/** PostgreSQL's name for a serial or identity column's sequence. */
export function ownedSequenceName(table: string, column: string): string {
  return `${table}_${column}_seq`;
}

const owned = new WeakMap<SequenceCounter, Sequence>();

/** The sequence object of a serial/identity column (one per counter, so currval keeps track of it). */
export function columnSequence(t: OwningTable, col: number): Sequence | null {
  const c = t.meta[col]?.sequence;
  if (c === null || c === undefined) return null;
  const f = t.schema[col]!;
  const type: SequenceType = f.type.name === 'int2' ? 'int2' : f.type.name === 'int4' ? 'int4' : 'int8';
  const options = sequenceOptions({
    type,
    increment: c.increment ?? 1,
    ...(c.min !== undefined ? { min: BigInt(c.min) } : {}),
    ...(c.max !== undefined ? { max: BigInt(c.max) } : {}),
    ...(c.start !== undefined ? { start: c.start } : {}),
    cycle: c.cycle ?? false,
  });
  let s = owned.get(c);
  if (s === undefined || s.name !== ownedSequenceName(t.name, f.name)) {
    s = new Sequence(ownedSequenceName(t.name, f.name), options, c);
    s.ownedBy = { table: t.name, column: f.name };
    owned.set(c, s);
  } else s.options = options;
  return s;
}

/** Every sequence of a catalog under its catalog key: standalone ones and those of serial/identity columns. */
export function catalogSequences(sequences: ReadonlyMap<string, Sequence>, tables: ReadonlyMap<string, unknown>): { key: string; seq: Sequence }[] {
  const out = [...sequences].map(([key, seq]) => ({ key, seq }));
  for (const [key, t] of tables) {
    const ot = t as Partial<OwningTable>;
    if (!Array.isArray(ot.meta) || ot.schema === undefined) continue;
    const prefix = key.slice(0, key.length - (ot.name ?? '').length);
    for (let c = 0; c < ot.meta.length; c++) {
      const s = columnSequence(ot as OwningTable, c);
      if (s !== null) out.push({ key: prefix + s.name, seq: s });
    }
  }
  return out;
}
