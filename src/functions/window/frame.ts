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
            const cur = valueAt(col!, i);
            const off = f.startOffset;
            let lo = nnStart;
            let hi = nnEnd;
            while (lo < hi) {
              const m = (lo + hi) >>> 1;
              if (inRange!(valueAt(col!, m), cur, off, sub, less)) hi = m;
              else lo = m + 1;
            }
            fs[i] = lo;
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
            const cur = valueAt(col!, i);
            const off = f.endOffset;
            let lo = nnStart;
            let hi = nnEnd;
            while (lo < hi) {
              const m = (lo + hi) >>> 1;
              if (inRange!(valueAt(col!, m), cur, off, sub, less)) lo = m + 1;
              else hi = m;
            }
            fe[i] = lo;
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

/** PostgreSQL's in_range support function: is `val` <= (less) or >= (!less) `base` ± `offset`? */
export type InRange = (val: Value, base: Value, offset: Value, sub: boolean, less: boolean) => boolean;

function badSize(): never {
  throw new QuireError('22013', 'invalid preceding or following size in window function');
}

export function makeInRange(t: DataType, timezone: string): InRange {
  switch (t.name) {
    case 'int2':
    case 'int4':
    case 'int8':
      return (val, base, offset, sub, less) => {
        if (typeof offset === 'number' && offset < 0) badSize();
        if (typeof offset === 'bigint' && offset < 0n) badSize();
        if (typeof val === 'number' && typeof base === 'number' && typeof offset === 'number' && offset < 2 ** 52 && Math.abs(base) < 2 ** 52) {
          const sum = sub ? base - offset : base + offset;
          return less ? val <= sum : val >= sum;
        }
        const sum = sub ? BigInt(base as number) - BigInt(offset as number) : BigInt(base as number) + BigInt(offset as number);
        const v = BigInt(val as number);
        return less ? v <= sum : v >= sum;
      };
    case 'float4':
    case 'float8':
      return (val, base, offset, sub, less) => {
        const off = offset as number;
        if (off !== off || off < 0) badSize();
        const v = val as number;
        const bs = base as number;
        if (v !== v) return bs !== bs ? true : !less;
        if (bs !== bs) return less;
        if (off === Infinity && (bs === Infinity || bs === -Infinity) && (sub ? bs > 0 : bs < 0)) return true;
        const sum = t.name === 'float4' ? Math.fround(sub ? bs - off : bs + off) : sub ? bs - off : bs + off;
        return less ? v <= sum : v >= sum;
      };
    case 'numeric':
      return (val, base, offset, sub, less) => {
        const off = offset as Numeric;
        if (off.isNaN() || off.sign() < 0) badSize();
        const v = val as Numeric;
        const bs = base as Numeric;
        if (v.isNaN()) return bs.isNaN() ? true : !less;
        if (bs.isNaN()) return less;
        if (!off.isFinite()) {
          const bPinf = bs.special === 2;
          const bNinf = bs.special === 3;
          if (sub ? bPinf : bNinf) return true;
          if (sub) return less ? v.special === 3 : true;
          return less ? true : v.special === 2;
        }
        const sum = sub ? bs.sub(off) : bs.add(off);
        const c = v.cmp(sum);
        return less ? c <= 0 : c >= 0;
      };
    case 'date':
    case 'timestamp':
    case 'timestamptz': {
      const toTs = t.name === 'date' ? (d: number): number => (Number.isFinite(d) ? d * 86_400_000_000 : d) : (x: number): number => x;
      const plus = t.name === 'timestamptz' ? (ts: number, iv: Interval): number => timestamptzPlusInterval(timezone, ts, iv) : timestampPlusInterval;
      return (val, base, offset, sub, less) => {
        const iv = offset as Interval;
        if (iv.compare(Interval.ZERO) < 0) badSize();
        const bs = toTs(base as number);
        if (!iv.isFinite() && !Number.isFinite(bs) && (sub ? bs > 0 : bs < 0)) return true;
        const sum = plus(bs, sub ? iv.neg() : iv);
        const v = toTs(val as number);
        return less ? v <= sum : v >= sum;
      };
    }
    case 'interval':
      return (val, base, offset, sub, less) => {
        const iv = offset as Interval;
        if (iv.compare(Interval.ZERO) < 0) badSize();
        const bs = base as Interval;
        if (!iv.isFinite() && !bs.isFinite() && (sub ? bs.months > 0 : bs.months < 0)) return true;
        const sum = addInterval(bs, sub ? iv.neg() : iv);
        const c = (val as Interval).compare(sum);
        return less ? c <= 0 : c >= 0;
      };
    default:
      throw new QuireError('0A000', `RANGE with offset PRECEDING/FOLLOWING is not supported for column type ${t.name}`);
  }
}
