/**
 * Frame bounds: for every row of a partition, the [start, end) row range its frame covers before EXCLUDE
 * (frameParts in window-function.ts applies EXCLUDE as up to three sub-ranges).
 *
 * ROWS counts rows, GROUPS counts peer groups, RANGE compares the single ORDER BY key with the current
 * row's key shifted by the offset, with PostgreSQL's in_range semantics per type:
 *   - integers: exact arithmetic (PostgreSQL's overflow rule "a sum beyond the type's range is beyond every
 *     value" is what exact arithmetic gives),
 *   - float4/float8: NaN sorts after every number and equals NaN; +Infinity PRECEDING +Infinity (and
 *     -Infinity FOLLOWING -Infinity) includes every row; otherwise IEEE arithmetic,
 *   - numeric: the same NaN/Infinity rules on Numeric,
 *   - date/timestamp/timestamptz with an interval offset: timestamp ± interval (timestamptz in the session
 *     time zone), dates as midnight timestamps,
 *   - time/timetz with an interval offset: the offset's time field only, without wrapping at midnight,
 *   - interval with an interval offset.
 * A row whose key is NULL has the NULL peer group as its offset bound, and NULL rows are never inside a
 * non-NULL row's offset bound (nodeWindowAgg.c's update_frameheadpos/update_frametailpos).
 * Negative or NaN RANGE offsets raise 22013 only when a comparison happens, as in_range does.
 * Offset bounds are found with pointers that only move forward (the key is sorted), like PostgreSQL's
 * frameheadpos/frametailpos, so a RANGE frame costs O(1) amortised per row.
 * Results are clamped to the partition and an inverted frame is stored as empty (fe = fs).
 */
import { QuireError } from '../../common/errors.js';
import { Interval } from '../../common/interval.js';
import { isFiniteMicros, joinMicros, type Micros } from '../../common/datetime-calendar.js';
import { Numeric } from '../../common/numeric.js';
import { TimeTz } from '../../common/time-of-day.js';
import type { DataType, Value } from '../../common/types.js';
import type { Column } from '../../common/column.js';
import { timestampPlusInterval, timestamptzPlusInterval } from '../scalar/support/datetime.js';
import { addInterval } from '../scalar/operators/add.js';
import { valueAt, type ExcludeMode, type FrameBounds, type WindowBlock } from './window-function.js';

export type FrameUnits = 'rows' | 'range' | 'groups';
export type BoundKind = 'unbounded-preceding' | 'preceding' | 'current-row' | 'following' | 'unbounded-following';

/** A frame with its offsets already evaluated (once per execution, as PostgreSQL does). */
export interface ResolvedFrame {
  readonly units: FrameUnits;
  readonly startKind: BoundKind;
  readonly endKind: BoundKind;
  readonly startOffset: Value;
  readonly endOffset: Value;
  readonly exclude: ExcludeMode;
}

/** The single ORDER BY key RANGE offsets compare (column index in the block, its type and direction). */
export interface RangeKey {
  readonly col: number;
  readonly type: DataType;
  readonly desc: boolean;
  readonly nullsFirst: boolean;
}

const MAX_ROWS_OFFSET = 2 ** 40;

function rowsOffset(v: Value): number {
  // Offsets are int8: anything beyond the largest possible partition behaves the same, so clamp.
  const n = typeof v === 'bigint' ? Number(v) : (v as number);
  return n > MAX_ROWS_OFFSET ? MAX_ROWS_OFFSET : n;
}

export class FrameComputer {
  readonly fs: Int32Array;
  readonly fe: Int32Array;
  readonly bounds: FrameBounds;
  private readonly inRange: InRange | null;
  /** Peer-group start rows of the current partition, by group ordinal (GROUPS mode). */
  private groupStarts = new Int32Array(0);

  constructor(
    readonly frame: ResolvedFrame,
    capacity: number,
    private readonly key: RangeKey | null,
    timezone: string,
  ) {
    this.fs = new Int32Array(capacity);
    this.fe = new Int32Array(capacity);
    this.bounds = { fs: this.fs, fe: this.fe, exclude: frame.exclude };
    const needsRange = frame.units === 'range' && (isOffset(frame.startKind) || isOffset(frame.endKind));
    this.inRange = needsRange && key !== null ? makeInRange(key.type, timezone) : null;
  }

  compute(b: WindowBlock, ps: number, pe: number): void {
    const f = this.frame;
    switch (f.units) {
      case 'rows':
        // Written clamped and never inverted.
        this.rows(ps, pe);
        return;
      case 'groups':
        this.groups(b, ps, pe);
        break;
      case 'range':
        this.range(b, ps, pe);
        break;
    }
    const fs = this.fs;
    const fe = this.fe;
    for (let i = ps; i < pe; i++) if (fe[i]! < fs[i]!) fe[i] = fs[i]!;
  }

  /**
   * ROWS bounds are the row plus a constant (or a partition end), so both are computed from per-frame
   * deltas in one loop without a branch on the bound kinds per row, and written already clamped to
   * the partition with an inverted frame stored empty, so compute skips its fixing pass.
   */
  private rows(ps: number, pe: number): void {
    const f = this.frame;
    const fs = this.fs;
    const fe = this.fe;
    const so = isOffset(f.startKind) ? rowsOffset(f.startOffset) : 0;
    const eo = isOffset(f.endKind) ? rowsOffset(f.endOffset) : 0;
    // Start and end as row + delta; an unbounded side is a delta that always clamps to the partition end.
    const far = pe - ps + 1;
    const sd = f.startKind === 'unbounded-preceding' ? -far : f.startKind === 'current-row' ? 0 : f.startKind === 'preceding' ? -so : f.startKind === 'following' ? so : far;
    const ed = f.endKind === 'unbounded-following' ? far : f.endKind === 'current-row' ? 1 : f.endKind === 'preceding' ? 1 - eo : f.endKind === 'following' ? eo + 1 : -far;
    for (let i = ps; i < pe; i++) {
      let s = i + sd;
      let e = i + ed;
      s = s < ps ? ps : s > pe ? pe : s;
      e = e < ps ? ps : e > pe ? pe : e;
      fs[i] = s;
      fe[i] = e < s ? s : e;
    }
  }

  private groups(b: WindowBlock, ps: number, pe: number): void {
    const f = this.frame;
    const g = b.group;
    const ng = pe > ps ? g[pe - 1]! + 1 : 0;
    if (this.groupStarts.length < ng + 1) this.groupStarts = new Int32Array(Math.max(ng + 1, this.groupStarts.length * 2));
    const gs = this.groupStarts;
    for (let i = ps; i < pe; i = b.peerEnd[i]!) gs[g[i]!] = i;
    gs[ng] = pe;
    const so = isOffset(f.startKind) ? rowsOffset(f.startOffset) : 0;
    const eo = isOffset(f.endKind) ? rowsOffset(f.endOffset) : 0;
    const fs = this.fs;
    const fe = this.fe;
    for (let i = ps; i < pe; i++) {
      const cg = g[i]!;
      switch (f.startKind) {
        case 'unbounded-preceding':
          fs[i] = ps;
          break;
        case 'current-row':
          fs[i] = b.peerStart[i]!;
          break;
        case 'preceding':
          fs[i] = gs[Math.max(0, cg - so)]!;
          break;
        default:
          fs[i] = cg + so >= ng ? pe : gs[cg + so]!;
      }
      switch (f.endKind) {
        case 'unbounded-following':
          fe[i] = pe;
          break;
        case 'current-row':
          fe[i] = b.peerEnd[i]!;
          break;
        case 'preceding':
          fe[i] = cg - eo < 0 ? ps : gs[cg - eo + 1]!;
          break;
        default:
          fe[i] = gs[Math.min(ng, cg + eo + 1)]!;
      }
    }
  }

  /**
   * RANGE with offsets over a key in typed storage whose in_range is plain addition: integers, and
   * timestamp / date with an interval of days and microseconds (keys within ±2^52, offsets below 2^52).
   * The arithmetic is exact in doubles, so both bounds advance by plain comparisons on the key array,
   * without a test closure per row. Returns false (nothing written) when the case does not apply;
   * negative offsets go to the general path, which raises the error PostgreSQL raises.
   */
  private rangeInt(b: WindowBlock, col: Column, ps: number, pe: number, nnStart: number, nnEnd: number): boolean {
    const f = this.frame;
    const t = this.key!.type.name;
    const d = col.data;
    if (!(d instanceof Int32Array || d instanceof Float64Array)) return false;
    let so: number | null;
    let eo: number | null;
    if (t === 'int2' || t === 'int4' || t === 'int8') {
      so = smallOffset(f.startKind, f.startOffset);
      eo = smallOffset(f.endKind, f.endOffset);
    } else if (t === 'timestamp' || t === 'date') {
      // timestamp ± interval without months is exact microsecond arithmetic (no time zone, a day is
      // 24 hours); dates compare as midnight timestamps, so whole-day offsets shift them by days.
      const unit = t === 'date' ? 86_400_000_000 : 1;
      so = dayOffset(f.startKind, f.startOffset, unit);
      eo = dayOffset(f.endKind, f.endOffset, unit);
    } else return false;
    if (so === null || eo === null) return false;
    // Keys (and so key ± offset) well inside 2^53: the double arithmetic is exact and cannot overflow.
    if (nnEnd > nnStart && !(Math.abs(d[nnStart]!) < 2 ** 52 && Math.abs(d[nnEnd - 1]!) < 2 ** 52)) return false;
    if (d instanceof Int32Array) rangeIntBounds(d, f, so, eo, this.key!.desc, b, ps, pe, nnStart, nnEnd, this.fs, this.fe);
    else rangeF64Bounds(d, f, so, eo, this.key!.desc, b, ps, pe, nnStart, nnEnd, this.fs, this.fe);
    return true;
  }

  private range(b: WindowBlock, ps: number, pe: number): void {
    const f = this.frame;
    const fs = this.fs;
    const fe = this.fe;
    const key = this.key;
    const col = key === null ? null : b.columns[key.col]!;
    // Rows with a NULL key form one contiguous peer group at the start or the end of the partition.
    let nnStart = ps;
    let nnEnd = pe;
    if (col !== null && col.nulls !== null) {
      if (key!.nullsFirst) while (nnStart < pe && isNull(col, nnStart)) nnStart++;
      else while (nnEnd > ps && isNull(col, nnEnd - 1)) nnEnd--;
    }
    if (this.inRange !== null && col !== null && this.rangeInt(b, col, ps, pe, nnStart, nnEnd)) return;
    const inRange = this.inRange;
    const desc = key?.desc === true;
    let head = nnStart;
    let tail = nnStart;
    for (let i = ps; i < pe; i++) {
      const curNull = col !== null && isNull(col, i);
      switch (f.startKind) {
        case 'unbounded-preceding':
          fs[i] = ps;
          break;
        case 'current-row':
          fs[i] = b.peerStart[i]!;
          break;
        default:
          if (curNull) fs[i] = b.peerStart[i]!;
          else {
            // frame head = first row with in_range(head, cur, offset, sub, less) true
            let sub = f.startKind === 'preceding';
            let less = false;
            if (desc) {
              sub = !sub;
              less = true;
            }
            // The bound only moves forward as the current row does (rows are sorted on the key), so the
            // head advances from where the previous row's head stopped: O(1) amortised per row.
            const test = inRange!(valueAt(col!, i), f.startOffset, sub, less);
            let h = head;
            while (h < nnEnd && !test(valueAt(col!, h))) h++;
            head = h;
            fs[i] = h;
          }
      }
      switch (f.endKind) {
        case 'unbounded-following':
          fe[i] = pe;
          break;
        case 'current-row':
          fe[i] = b.peerEnd[i]!;
          break;
        default:
          if (curNull) fe[i] = b.peerEnd[i]!;
          else {
            // frame tail = last row with in_range(tail, cur, offset, sub, less) true
            let sub = f.endKind === 'preceding';
            let less = true;
            if (desc) {
              sub = !sub;
              less = false;
            }
            const test = inRange!(valueAt(col!, i), f.endOffset, sub, less);
            let t = tail;
            while (t < nnEnd && test(valueAt(col!, t))) t++;
            tail = t;
            fe[i] = t;
          }
      }
    }
  }
}

/** A RANGE offset as a plain number when it is a non-negative integer offset below 2^52, else null. */
function smallOffset(kind: BoundKind, v: Value): number | null {
  if (!isOffset(kind)) return 0;
  if (typeof v !== 'number' || !(v >= 0) || v >= 2 ** 52) return null;
  return v;
}

/**
 * An interval RANGE offset in units of `unit` microseconds when it has no months, no negative part and
 * is a whole number of units below 2^52; else null (the general path decides, errors included).
 */
function dayOffset(kind: BoundKind, v: Value, unit: number): number | null {
  if (!isOffset(kind)) return 0;
  if (!(v instanceof Interval) || v.months !== 0 || typeof v.micros !== 'number') return null;
  if (!(v.days >= 0 && v.micros >= 0)) return null;
  const total = v.days * 86_400_000_000 + v.micros;
  if (!(total < 2 ** 52) || total % unit !== 0) return null;
  return total / unit;
}

function isOffset(k: BoundKind): boolean {
  return k === 'preceding' || k === 'following';
}

function isNull(c: Column, i: number): boolean {
  return c.nulls !== null && c.nulls[i] === 1;
}

/**
 * PostgreSQL's in_range support function, curried: inRange(base, offset, sub, less) returns the test
 * "val <= base ± offset" (less) or "val >= base ± offset" (!less), with base ± offset computed once so a
 * binary search over the frame does one comparison per probe.
 */
export type InRange = (base: Value, offset: Value, sub: boolean, less: boolean) => (val: Value) => boolean;

function badSize(): never {
  throw new QuireError('22013', 'invalid preceding or following size in window function');
}

const ALWAYS = (): boolean => true;

/** The test against an already computed numeric bound. */
function numTest(sum: number | bigint, less: boolean): (val: Value) => boolean {
  // Mixed number/bigint comparisons are exact in JavaScript.
  return less ? (val) => (val as number | bigint) <= sum : (val) => (val as number | bigint) >= sum;
}

export function makeInRange(t: DataType, timezone: string): InRange {
  switch (t.name) {
    case 'int2':
    case 'int4':
    case 'int8':
      return (base, offset, sub, less) => {
        if (typeof offset === 'number' ? offset < 0 : (offset as bigint) < 0n) badSize();
        if (typeof base === 'number' && typeof offset === 'number' && offset < 2 ** 52 && Math.abs(base) < 2 ** 52) {
          return numTest(sub ? base - offset : base + offset, less);
        }
        // Exact arithmetic beyond 2^53: a sum outside int8 is beyond every value, as PostgreSQL concludes.
        const sum = sub ? BigInt(base as number) - BigInt(offset as number) : BigInt(base as number) + BigInt(offset as number);
        return less ? (val) => BigInt(val as number) <= sum : (val) => BigInt(val as number) >= sum;
      };
    case 'float4':
    case 'float8':
      return (base, offset, sub, less) => {
        const off = offset as number;
        if (off !== off || off < 0) badSize();
        const bs = base as number;
        // NaN sorts after every number and equals NaN; the offset cannot change that.
        if (bs !== bs) return less ? ALWAYS : (val) => (val as number) !== (val as number);
        if (off === Infinity && (bs === Infinity || bs === -Infinity) && (sub ? bs > 0 : bs < 0)) {
          // base ± offset would be NaN: PostgreSQL takes every (non-NaN) value to be inside.
          return (val) => (val as number) === (val as number) || !less;
        }
        let sum = sub ? bs - off : bs + off;
        if (t.name === 'float4') sum = Math.fround(sum);
        return less ? (val) => (val as number) <= sum : (val) => ((val as number) !== (val as number) ? true : (val as number) >= sum);
      };
    case 'numeric':
      return (base, offset, sub, less) => {
        const off = offset as Numeric;
        if (off.isNaN() || off.sign() < 0) badSize();
        const bs = base as Numeric;
        if (bs.isNaN()) return less ? ALWAYS : (val) => (val as Numeric).isNaN();
        const nanCase = (val: Value): boolean | null => ((val as Numeric).isNaN() ? !less : null);
        if (!off.isFinite()) {
          if (sub ? bs.special === 2 : bs.special === 3) return (val) => nanCase(val) ?? true;
          if (sub) return less ? (val) => nanCase(val) ?? (val as Numeric).special === 3 : (val) => nanCase(val) ?? true;
          return less ? (val) => nanCase(val) ?? true : (val) => nanCase(val) ?? (val as Numeric).special === 2;
        }
        const sum = sub ? bs.sub(off) : bs.add(off);
        return less ? (val) => nanCase(val) ?? (val as Numeric).cmp(sum) <= 0 : (val) => nanCase(val) ?? (val as Numeric).cmp(sum) >= 0;
      };
    case 'date':
    case 'timestamp':
    case 'timestamptz': {
      // Dates compare as midnight timestamps (in_range_date_interval).
      const isDate = t.name === 'date';
      const toTs = (d: Micros): Micros => (isDate && Number.isFinite(d) ? joinMicros(d as number, 0) : d);
      const plus = t.name === 'timestamptz' ? (ts: Micros, iv: Interval): Micros => timestamptzPlusInterval(timezone, ts, iv) : timestampPlusInterval;
      return (base, offset, sub, less) => {
        const iv = offset as Interval;
        if (iv.compare(Interval.ZERO) < 0) badSize();
        const bs = toTs(base as Micros);
        if (!iv.isFinite() && !isFiniteMicros(bs) && (sub ? bs > 0 : bs < 0)) return ALWAYS;
        const sum = plus(bs, sub ? iv.neg() : iv);
        if (!isDate) return numTest(sum, less);
        return less ? (val) => toTs(val as number) <= sum : (val) => toTs(val as number) >= sum;
      };
    }
    case 'time':
    case 'timetz':
      // in_range_time(tz)_interval: only the offset's time field counts (as in time ± interval), its sign
      // decides validity (which also rejects -infinity), and base ± offset does not wrap at midnight.
      return (base, offset, sub, less) => {
        const off = timeFieldOffset(offset as Interval);
        if (off < 0) badSize();
        if (t.name === 'time') return numTest(sub ? (base as number) - off : (base as number) + off, less);
        const bs = base as TimeTz;
        const sum = new TimeTz(sub ? bs.micros - off : bs.micros + off, bs.offset);
        return less ? (val) => (val as TimeTz).compare(sum) <= 0 : (val) => (val as TimeTz).compare(sum) >= 0;
      };
    case 'interval':
      return (base, offset, sub, less) => {
        const iv = offset as Interval;
        if (iv.compare(Interval.ZERO) < 0) badSize();
        const bs = base as Interval;
        if (!iv.isFinite() && !bs.isFinite() && (sub ? bs.months > 0 : bs.months < 0)) return ALWAYS;
        const sum = addInterval(bs, sub ? iv.neg() : iv);
        return less ? (val) => (val as Interval).compare(sum) <= 0 : (val) => (val as Interval).compare(sum) >= 0;
      };
    default:
      throw new QuireError('0A000', `RANGE with offset PRECEDING/FOLLOWING is not supported for column type ${t.name}`);
  }
}

/** An interval offset's time field in microseconds, ±Infinity for infinite intervals. */
function timeFieldOffset(iv: Interval): number {
  if (!iv.isFinite()) return iv.months;
  return typeof iv.micros === 'bigint' ? Number(iv.micros) : iv.micros;
}

/**
 * Frame bounds of RANGE with offsets on a sorted integer key (see FrameComputer.rangeInt), one copy per
 * storage class. In sort-direction terms (key * dir ascending) the head is the first row at or past
 * cur ± start offset and the tail is one past the last row at or before cur ± end offset. Rows with a
 * NULL key (outside [nnStart, nnEnd)) take their peer group as an offset bound, as in the general path.
 */
function rangeIntBounds(
  d: Int32Array,
  f: ResolvedFrame,
  so: number,
  eo: number,
  desc: boolean,
  b: WindowBlock,
  ps: number,
  pe: number,
  nnStart: number,
  nnEnd: number,
  fs: Int32Array,
  fe: Int32Array,
): void {
  const sk = f.startKind;
  const ek = f.endKind;
  // Signed shift of the current key giving each bound: PRECEDING moves against the sort direction.
  const sOff = (sk === 'preceding' ? -so : so) * (desc ? -1 : 1);
  const eOff = (ek === 'preceding' ? -eo : eo) * (desc ? -1 : 1);
  const sOffset = isOffset(sk);
  const eOffset = isOffset(ek);
  const dir = desc ? -1 : 1;
  let head = nnStart;
  let tail = nnStart;
  for (let i = ps; i < pe; i++) {
    const curNull = i < nnStart || i >= nnEnd;
    if (sk === 'unbounded-preceding') fs[i] = ps;
    else if (!sOffset || curNull) fs[i] = b.peerStart[i]!;
    else {
      // In sort-direction terms (key * dir ascending): first row whose key * dir >= (cur + sOff) * dir.
      const lim = (d[i]! + sOff) * dir;
      let h = head;
      while (h < nnEnd && d[h]! * dir < lim) h++;
      head = h;
      fs[i] = h;
    }
    if (ek === 'unbounded-following') fe[i] = pe;
    else if (!eOffset || curNull) fe[i] = b.peerEnd[i]!;
    else {
      const lim = (d[i]! + eOff) * dir;
      let t = tail;
      while (t < nnEnd && d[t]! * dir <= lim) t++;
      tail = t;
      fe[i] = t;
    }
  }
}

function rangeF64Bounds(
  d: Float64Array,
  f: ResolvedFrame,
  so: number,
  eo: number,
  desc: boolean,
  b: WindowBlock,
  ps: number,
  pe: number,
  nnStart: number,
  nnEnd: number,
  fs: Int32Array,
  fe: Int32Array,
): void {
  const sk = f.startKind;
  const ek = f.endKind;
  // Signed shift of the current key giving each bound: PRECEDING moves against the sort direction.
  const sOff = (sk === 'preceding' ? -so : so) * (desc ? -1 : 1);
  const eOff = (ek === 'preceding' ? -eo : eo) * (desc ? -1 : 1);
  const sOffset = isOffset(sk);
  const eOffset = isOffset(ek);
  const dir = desc ? -1 : 1;
  let head = nnStart;
  let tail = nnStart;
  for (let i = ps; i < pe; i++) {
    const curNull = i < nnStart || i >= nnEnd;
    if (sk === 'unbounded-preceding') fs[i] = ps;
    else if (!sOffset || curNull) fs[i] = b.peerStart[i]!;
    else {
      // In sort-direction terms (key * dir ascending): first row whose key * dir >= (cur + sOff) * dir.
      const lim = (d[i]! + sOff) * dir;
      let h = head;
      while (h < nnEnd && d[h]! * dir < lim) h++;
      head = h;
      fs[i] = h;
    }
    if (ek === 'unbounded-following') fe[i] = pe;
    else if (!eOffset || curNull) fe[i] = b.peerEnd[i]!;
    else {
      const lim = (d[i]! + eOff) * dir;
      let t = tail;
      while (t < nnEnd && d[t]! * dir <= lim) t++;
      tail = t;
      fe[i] = t;
    }
  }
}
