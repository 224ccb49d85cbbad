/**
 * The (group, value) pairs an aggregate with DISTINCT has seen, so that a row can be dropped as it
 * arrives when its value already occurred in its group. Buffering every row and sorting them all before
 * deduplicating costs the sort and one composed string per row; this keeps only first occurrences.
 *
 * Values stored as numbers (int2/int4/bool, and the f64 types: int8 in the safe range, float, date,
 * timestamp, …) go to one open-addressing table of (group, value) pairs in typed arrays: no object per
 * value, no string. Equality is PostgreSQL's for these types: float -0 equals 0 and NaN equals NaN, so
 * both are normalised before hashing. Anything else (text, numeric, an int8 column holding bigints)
 * is keyed by hashKey(), which equates exactly the values PostgreSQL's equality equates (numeric 1.0
 * and 1.00, bpchar trailing spaces; text bytewise, the deterministic collation). A string key is
 * numbered once in a dictionary of the distinct strings, and the (group, number) pair goes to a second
 * typed table: a Set per group held every pair as an entry pointing at its string, and with hundreds
 * of thousands of pairs most of a count(DISTINCT text) was probing those Sets and collecting their
 * garbage (650 of 1,000 ms at 1M rows). Where nearly every string is new the dictionary stops numbering
 * (REPEAT_CHECK) and the strings met after that go to a Set per group, as do other keys (bigints past
 * 2^53).
 * Numerics of up to 15 significant digits join the typed table as the double nearest their value.
 * NULL is one value per group: aggregates that keep NULLs (array_agg) must see it once.
 */
import type { Column } from '../common/column.js';
import { hashKey } from '../common/compare.js';
import type { Numeric } from '../common/numeric.js';
import { storageKind, type DataType } from '../common/types.js';
import { GroupPairTable } from './group-pair-table.js';

/**
 * Strings the dictionary numbers, below a Map's limit (2^24 entries, past which set() throws); strings
 * first met after that go to their groups' sets, as all keys did before the dictionary.
 */
const STRING_IDS_MAX = 16_000_000;

/**
 * Dictionary sizes at which it checks that strings repeat (at 2^16 entries, then each time it doubles):
 * when nine in ten string keys met so far were new, numbering them costs a map entry and a pair per
 * value for no lookup it saves, and strings first met after that go to their groups' sets (bench case
 * count_distinct_unique_text, 1M strings nearly all distinct in 10 groups: 1,188 and 1,278 ms against
 * 1,322 and 1,369 ms numbering every one, alternating in one process). It never numbers again: a string
 * a set holds must not become a new pair.
 */
const REPEAT_CHECK = 1 << 16;

/** Values group 0's bits may span (2^26: 8 MB of bits), past which the table holds them. */
const DIRECT_SPAN = 1 << 26;

/** Calls visit with the position of every set bit of `bits`, in order. */
function eachSetBit(bits: Int32Array, visit: (b: number) => void): void {
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w]!;
    while (word !== 0) {
      visit(w * 32 + 31 - Math.clz32(word & -word));
      word &= word - 1;
    }
  }
}

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
  /** Values held as numbers. */
  private readonly pairs = new GroupPairTable();
  /** String keys: each distinct one's number, and the (group, number) pairs seen (made on the first). */
  private readonly stringIds = new Map<string, number>();
  private stringPairs: GroupPairTable | null = null;
  private readonly typed: boolean;
  private readonly numeric: boolean;
  /** Per group, for keys neither numbers nor strings (and strings past the dictionary's limit). */
  private readonly maps: (Set<unknown> | undefined)[] = [];
  /** 1 where the group has seen NULL. */
  private nullSeen = new Uint8Array(64);

  constructor(
    private readonly type: DataType,
    /** Strings the dictionary numbers (a test lowers it to reach the sets). */
    private readonly stringIdsMax = STRING_IDS_MAX,
    /** The first dictionary size at which it checks that strings repeat (a test lowers it). */
    repeatCheck = REPEAT_CHECK,
  ) {
    this.nextCheck = repeatCheck;
    this.typed = storageKind(type) !== 'obj';
    this.numeric = type.name === 'numeric';
  }

  /**
   * Group 0's values of an Int32Array column as bits, value lo + i at bit i, while every row so far was
   * of group 0 (an aggregate without GROUP BY) and the values span at most DIRECT_SPAN: a bit test per
   * row instead of a hash probe, and no table to double (a million distinct ids took 200 ms in the
   * table, most of it probing and rehashing). Null when not (or no longer) in use.
   */
  private bits: Int32Array | null = null;
  private lo = 0;
  /** The largest value held as a bit. */
  private top = 0;
  /** Set once the bits were given up (another group, a wider span, values not int32): the table from then on. */
  private noBits = false;

  /** Bytes the string dictionary and the per-group sets hold for their keys (estimated). */
  private otherBytes = 0;
  /** String keys met (repeats included), and whether the dictionary still numbers new ones. */
  private stringsMet = 0;
  private numbering = true;
  private nextCheck: number;

  /** How many distinct strings the dictionary has numbered. */
  get stringsNumbered(): number {
    return this.stringIds.size;
  }

  /** Bytes held, for memory accounting. */
  get bytes(): number {
    return this.pairs.bytes + (this.stringPairs?.bytes ?? 0) + this.nullSeen.length + (this.bits === null ? 0 : this.bits.length * 4) + this.otherBytes;
  }

  /**
   * Writes into out[k] the group gids[k] when row k of `c` is the first of its value in that group, -1
   * otherwise (and where gids[k] is already negative). Returns how many rows were kept.
   */
  filter(c: Column, gids: Int32Array, n: number, out: Int32Array): number {
    const nulls = c.nulls;
    const d = c.data;
    if (!this.noBits) {
      if (d instanceof Int32Array && this.fitBits(d, nulls, gids, n)) return this.filterBits(d, nulls, gids, n, out);
      this.dropBits();
    }
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

  /**
   * Whether the batch's rows are all of group 0 (or dropped) and the bits cover its values, widened to
   * do so when the span stays within DIRECT_SPAN.
   */
  private fitBits(d: Int32Array, nulls: Uint8Array | null, gids: Int32Array, n: number): boolean {
    let min = 2147483647;
    let max = -2147483648;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      if (g < 0) continue;
      if (g !== 0) return false;
      if (nulls !== null && nulls[k] === 1) continue;
      const v = d[k]!;
      min = v < min ? v : min;
      max = v > max ? v : max;
    }
    if (min > max) return true;
    const bits = this.bits;
    if (bits !== null && min >= this.lo && max < this.lo + bits.length * 32) {
      this.top = max > this.top ? max : this.top;
      return true;
    }
    // The values held and the batch's: within DIRECT_SPAN, else the table.
    const low = bits === null ? min : Math.min(min, this.lo);
    const top = bits === null ? max : Math.max(max, this.top);
    if (top - low + 1 > DIRECT_SPAN) return false;
    // Room to grow, within the limit: twice the bits, the room on the side the values moved to (every
    // batch of falling values would otherwise move every bit held).
    const span = Math.min(DIRECT_SPAN, Math.max(top - low + 1, bits === null ? 0 : 2 * bits.length * 32));
    const lo = bits !== null && min < this.lo ? Math.max(-2147483648, top - span + 1) : low;
    const grown = new Int32Array(Math.ceil(span / 32));
    if (bits !== null) {
      // Re-placed bit by bit: a shift of the low bound moves every word's bits.
      const shift = this.lo - lo;
      eachSetBit(bits, (b) => {
        const i = b + shift;
        grown[i >>> 5]! |= 1 << (i & 31);
      });
    }
    this.bits = grown;
    this.lo = lo;
    this.top = top;
    return true;
  }

  private filterBits(d: Int32Array, nulls: Uint8Array | null, gids: Int32Array, n: number, out: Int32Array): number {
    const bits = this.bits;
    const lo = this.lo;
    let kept = 0;
    for (let k = 0; k < n; k++) {
      const g = gids[k]!;
      let keep = false;
      if (g >= 0) {
        if (nulls !== null && nulls[k] === 1) keep = this.firstNull(g);
        else {
          const i = d[k]! - lo;
          const w = i >>> 5;
          const m = 1 << (i & 31);
          const word = bits![w]!;
          keep = (word & m) === 0;
          bits![w] = word | m;
        }
      }
      out[k] = keep ? g : -1;
      kept += +keep;
    }
    return kept;
  }

  /** From now on the table: group 0's values held as bits move into it. */
  private dropBits(): void {
    this.noBits = true;
    const bits = this.bits;
    if (bits === null) return;
    this.bits = null;
    eachSetBit(bits, (b) => {
      this.insertNumber(0, this.lo + b);
    });
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
    const key = hashKey(v as never, this.type);
    // An int8 beyond 2^53 is a bigint key; one in the safe range a number, as the typed table holds it.
    if (typeof key === 'number' && this.typed) return this.insertNumber(g, key);
    if (typeof key === 'string') {
      this.stringsMet++;
      let id = this.stringIds.get(key);
      if (id === undefined && this.numbering) {
        id = this.stringIds.size;
        this.stringIds.set(key, id);
        // Held by the dictionary: two bytes a code unit and a string's and a map entry's overhead.
        this.otherBytes += 2 * key.length + 48;
        if (id + 1 >= this.stringIdsMax) this.numbering = false;
        else if (id + 1 === this.nextCheck) {
          if ((id + 1) * 10 > this.stringsMet * 9) this.numbering = false;
          else this.nextCheck *= 2;
        }
      }
      // A string the dictionary has no number for never gets one (it stopped numbering): its groups'
      // sets hold it.
      if (id !== undefined) return (this.stringPairs ??= new GroupPairTable()).insert(g, id);
    }
    let m = this.maps[g];
    if (m === undefined) {
      while (this.maps.length < g) this.maps.push(undefined);
      m = new Set();
      this.maps[g] = m;
    }
    if (m.has(key)) return false;
    m.add(key);
    this.otherBytes += typeof key === 'string' ? 2 * key.length + 48 : 48;
    return true;
  }

  private insertNumber(g: number, v: number): boolean {
    // PostgreSQL's float equality: -0 = 0, every NaN equal (x + 0 turns -0 into 0, NaN stays NaN).
    let x = v + 0;
    if (x !== x) x = NaN;
    return this.pairs.insert(g, x);
  }
}
