/**
 * The (group, value) pairs an aggregate with DISTINCT has seen, so that a row can be dropped as it
 * arrives when its value already occurred in its group. Buffering every row and sorting them all before
 * deduplicating costs the sort and one composed string per row; this keeps only first occurrences.
 *
 * Values stored as numbers (int2/int4/bool, and the f64 types: int8 in the safe range, float, date,
 * timestamp, …) go to one open-addressing table of (group, value) pairs in typed arrays: no object per
 * value, no string. Equality is PostgreSQL's for these types: float -0 equals 0 and NaN equals NaN, so
 * both are normalised before hashing. Anything else (text, numeric, an int8 column holding bigints)
 * goes to a Map per group keyed by hashKey(), which equates exactly the values PostgreSQL's equality
 * equates (numeric 1.0 and 1.00, bpchar trailing spaces; text bytewise, the deterministic collation).
 * Numerics of up to 15 significant digits join the typed table as the double nearest their value.
 * NULL is one value per group: aggregates that keep NULLs (array_agg) must see it once.
 */
import type { Column } from '../common/column.js';
import { hashKey } from '../common/compare.js';
import type { Numeric } from '../common/numeric.js';
import { storageKind, type DataType } from '../common/types.js';

/** Table slots to start with; doubled at half load. */
const INITIAL_SLOTS = 1 << 12;

const f64 = new Float64Array(1);
const words = new Int32Array(f64.buffer);

const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * A finite numeric of at most 15 significant digits (and scale at most 22) as the double nearest its
 * value: 10^scale is exact, so the division rounds once, and decimals of 15 digits have distinct nearest
 * doubles, so equal values (1.0, 1.00) share a key and different ones never do. Null for the rest, which
 * keep hashKey's string; a value whose trailing zeros alone pass 15 digits gets its zeros stripped first,
 * so that it meets its equals here.
 */
function numericNumberKey(n: Numeric): number | null {
  if (n.special !== 0) return null;
  let c = n.coef;
  let s = n.scale;
  let x = Number(c);
  if (Math.abs(x) >= 1e15 || s > 22) {
    while (s > 0 && c % 10n === 0n) {
      c /= 10n;
      s--;
    }
    x = Number(c);
    if (Math.abs(x) >= 1e15 || s > 22) return null;
  }
  return x / POW10[s]!;
}

export class GroupValueSet {
  /** Group id + 1 per slot (0: empty). */
  private slotGroup = new Int32Array(INITIAL_SLOTS);
  private slotValue = new Float64Array(INITIAL_SLOTS);
  private size = 0;
  private readonly typed: boolean;
  private readonly numeric: boolean;
  /** Per group, for values not held as numbers. */
  private readonly maps: (Set<unknown> | undefined)[] = [];
  /** 1 where the group has seen NULL. */
  private nullSeen = new Uint8Array(64);

  constructor(private readonly type: DataType) {
    this.typed = storageKind(type) !== 'obj';
    this.numeric = type.name === 'numeric';
  }

  /** Bytes held, for memory accounting. */
  get bytes(): number {
    return this.slotGroup.length * 12 + this.nullSeen.length;
  }

  /**
   * Writes into out[k] the group gids[k] when row k of `c` is the first of its value in that group, -1
   * otherwise (and where gids[k] is already negative). Returns how many rows were kept.
   */
  filter(c: Column, gids: Int32Array, n: number, out: Int32Array): number {
    const nulls = c.nulls;
    const d = c.data;
    let kept = 0;
    const typedData = this.typed && !Array.isArray(d);
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      let keep = false;
      if (g >= 0) {
        const v = nulls !== null && nulls[k] === 1 ? null : typedData ? (d[k] as number) : (d as unknown[])[k];
        if (v === null || v === undefined) keep = this.firstNull(g);
        else if (typeof v === 'number' && this.typed) keep = this.insertNumber(g, v);
        else keep = this.insertOther(g, v);
      }
      out[k] = keep ? g : -1;
      if (keep) kept++;
    }
    return kept;
  }

  private firstNull(g: number): boolean {
    if (g >= this.nullSeen.length) {
      const grown = new Uint8Array(Math.max(g + 1, this.nullSeen.length * 2));
      grown.set(this.nullSeen);
      this.nullSeen = grown;
    }
    if (this.nullSeen[g] === 1) return false;
    this.nullSeen[g] = 1;
    return true;
  }

  private insertOther(g: number, v: unknown): boolean {
    if (this.numeric) {
      const x = numericNumberKey(v as Numeric);
      if (x !== null) return this.insertNumber(g, x);
    }
    let m = this.maps[g];
    if (m === undefined) {
      while (this.maps.length < g) this.maps.push(undefined);
      m = new Set();
      this.maps[g] = m;
    }
    const key = hashKey(v as never, this.type);
    // An int8 beyond 2^53 is a bigint key; one in the safe range a number, as the typed table holds it.
    if (typeof key === 'number' && this.typed) return this.insertNumber(g, key);
    if (m.has(key)) return false;
    m.add(key);
    return true;
  }

  private insertNumber(g: number, v: number): boolean {
    // PostgreSQL's float equality: -0 = 0, every NaN equal (x + 0 turns -0 into 0, NaN stays NaN).
    let x = v + 0;
    if (x !== x) x = NaN;
    f64[0] = x;
    let h = Math.imul(words[0]! ^ Math.imul(g, 0x9e3779b1), 0x85ebca6b) ^ Math.imul(words[1]!, 0xc2b2ae35);
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    h ^= h >>> 13;
    const sg = this.slotGroup;
    const sv = this.slotValue;
    const mask = sg.length - 1;
    let i = h & mask;
    const tag = g + 1;
    for (;;) {
      const t = sg[i]!;
      if (t === 0) break;
      if (t === tag) {
        const y = sv[i]!;
        if (y === x || (y !== y && x !== x)) return false;
      }
      i = (i + 1) & mask;
    }
    sg[i] = tag;
    sv[i] = x;
    if (++this.size * 2 > sg.length) this.rehash();
    return true;
  }

  private rehash(): void {
    const og = this.slotGroup;
    const ov = this.slotValue;
    this.slotGroup = new Int32Array(og.length * 2);
    this.slotValue = new Float64Array(og.length * 2);
    this.size = 0;
    for (let i = 0; i < og.length; i++) if (og[i] !== 0) this.insertNumber(og[i]! - 1, ov[i]!);
  }
}
