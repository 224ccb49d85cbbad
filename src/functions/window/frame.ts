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
import { Numeric } from '../../common/numeric.js';
import type { DataType, Value } from '../../common/types.js';
import type { Column } from '../../execution/column.js';
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
        this.rows(ps, pe);
        break;
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

  private rows(ps: number, pe: number): void {
    const f = this.frame;
    const fs = this.fs;
    const fe = this.fe;
    const so = isOffset(f.startKind) ? rowsOffset(f.startOffset) : 0;
    const eo = isOffset(f.endKind) ? rowsOffset(f.endOffset) : 0;
    for (let i = ps; i < pe; i++) {
      let s: number;
      switch (f.startKind) {
        case 'unbounded-preceding':
          s = ps;
          break;
        case 'current-row':
          s = i;
          break;
        case 'preceding':
          s = i - so;
          break;
        default:
          s = i + so;
      }
      let e: number;
      switch (f.endKind) {
        case 'unbounded-following':
          e = pe;
          break;
        case 'current-row':
          e = i + 1;
          break;
        case 'preceding':
          e = i - eo + 1;
          break;
        default:
          e = i + eo + 1;
      }
      fs[i] = s < ps ? ps : s > pe ? pe : s;
      fe[i] = e < ps ? ps : e > pe ? pe : e;
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
const NEVER = (): boolean => false;

/** The test against an already computed numeric bound. */
function numTest(sum: number, less: boolean): (val: Value) => boolean {
  return less ? (val) => (val as number) <= sum : (val) => (val as number) >= sum;
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
      const toTs = (d: number): number => (isDate && Number.isFinite(d) ? d * 86_400_000_000 : d);
      const plus = t.name === 'timestamptz' ? (ts: number, iv: Interval): number => timestamptzPlusInterval(timezone, ts, iv) : timestampPlusInterval;
      return (base, offset, sub, less) => {
        const iv = offset as Interval;
        if (iv.compare(Interval.ZERO) < 0) badSize();
        const bs = toTs(base as number);
        if (!iv.isFinite() && !Number.isFinite(bs) && (sub ? bs > 0 : bs < 0)) return ALWAYS;
        const sum = plus(bs, sub ? iv.neg() : iv);
        if (!isDate) return numTest(sum, less);
        return less ? (val) => toTs(val as number) <= sum : (val) => toTs(val as number) >= sum;
      };
    }
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
void NEVER;
