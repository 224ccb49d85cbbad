/**
 * The set of a unique index's keys of several columns, as pairs: the first column's part, and the
 * rest (the second column's part, or the remaining parts joined when there are more). A first part
 * that is a safe integer (the usual (id, name) key) goes into an open-addressing table of doubles as
 * KeySet's, with its rest in a parallel array; any other first part into a Map. A first part that
 * several keys share holds a KeySet of their rests.
 *
 * The rests are the rows' own values (a text column's strings as they are stored), so a key costs no
 * string of its own: joining each row's parts into one string cost a string per row, built and hashed
 * on every commit's check and every bulk-loaded row, where an int4 key costs a probe of a typed array.
 *
 * Parts are compared with ===: callers give equal SQL values one part (unique-key-set.ts partKey),
 * never NaN or -0.
 */
import { KeySet, slotOf } from './key-set.js';

type Part = number | string;
/** The rest of one key, or of every key sharing a first part. */
type Rests = Part | KeySet;

export class KeyPairSet {
  private slots: Float64Array;
  private rests: (Rests | undefined)[];
  private mask: number;
  /** Occupied slots of the integer table. */
  private ints = 0;
  private readonly others = new Map<string, Rests>();
  private count = 0;

  /** `expected`: how many integer first parts to make room for at once. */
  constructor(expected = 8) {
    let n = 16;
    while (n < expected * 2) n *= 2;
    this.slots = new Float64Array(n).fill(NaN);
    this.rests = new Array<Rests | undefined>(n);
    this.mask = n - 1;
  }

  get size(): number {
    return this.count;
  }

  /** Makes room for `n` more integer first parts at once. */
  reserve(n: number): void {
    let size = this.slots.length;
    while ((this.ints + n) * 2 > size) size *= 2;
    if (size > this.slots.length) this.rehash(size);
  }

  has(first: Part, rest: Part): boolean {
    let r: Rests | undefined;
    if (typeof first === 'string') r = this.others.get(first);
    else {
      const slots = this.slots;
      const mask = this.mask;
      for (let i = slotOf(first, mask); ; i = (i + 1) & mask) {
        const v = slots[i]!;
        if (v === first) {
          r = this.rests[i];
          break;
        }
        if (v !== v) return false;
      }
    }
    if (r === undefined) return false;
    return typeof r === 'object' ? r.has(rest) : r === rest;
  }

  /** Adds the pair; false when it was already there. */
  insert(first: Part, rest: Part): boolean {
    if (typeof first === 'string') {
      const r = this.others.get(first);
      if (r === undefined) this.others.set(first, rest);
      else if (typeof r === 'object') {
        if (!r.insert(rest)) return false;
      } else if (r === rest) return false;
      else this.others.set(first, both(r, rest));
      this.count++;
      return true;
    }
    if ((this.ints + 1) * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    const slots = this.slots;
    const mask = this.mask;
    for (let i = slotOf(first, mask); ; i = (i + 1) & mask) {
      const v = slots[i]!;
      if (v === first) {
        const r = this.rests[i]!;
        if (typeof r === 'object') {
          if (!r.insert(rest)) return false;
        } else if (r === rest) return false;
        else this.rests[i] = both(r, rest);
        this.count++;
        return true;
      }
      if (v !== v) {
        slots[i] = first;
        this.rests[i] = rest;
        this.ints++;
        this.count++;
        return true;
      }
    }
  }

  delete(first: Part, rest: Part): void {
    if (typeof first === 'string') {
      const r = this.others.get(first);
      if (r === undefined) return;
      if (typeof r === 'object') {
        if (!r.has(rest)) return;
        r.delete(rest);
        if (r.size === 0) this.others.delete(first);
      } else if (r === rest) this.others.delete(first);
      else return;
      this.count--;
      return;
    }
    const slots = this.slots;
    const mask = this.mask;
    let i = slotOf(first, mask);
    for (; ; i = (i + 1) & mask) {
      const v = slots[i]!;
      if (v === first) break;
      if (v !== v) return;
    }
    const r = this.rests[i]!;
    if (typeof r === 'object') {
      if (!r.has(rest)) return;
      r.delete(rest);
      this.count--;
      if (r.size > 0) return;
    } else if (r === rest) this.count--;
    else return;
    // The first part has no rest left: its slot goes, later members of the cluster moving back into
    // the hole when their home slot does not lie after it (no tombstones, as in KeySet).
    const rests = this.rests;
    let hole = i;
    for (let j = (i + 1) & mask; ; j = (j + 1) & mask) {
      const v = slots[j]!;
      if (v !== v) break;
      const home = slotOf(v, mask);
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        slots[hole] = v;
        rests[hole] = rests[j];
        hole = j;
      }
    }
    slots[hole] = NaN;
    rests[hole] = undefined;
    this.ints--;
  }

  private rehash(size: number): void {
    const old = this.slots;
    const oldRests = this.rests;
    const slots = new Float64Array(size).fill(NaN);
    const rests = new Array<Rests | undefined>(size);
    const mask = size - 1;
    for (let s = 0; s < old.length; s++) {
      const v = old[s]!;
      if (v !== v) continue;
      let i = slotOf(v, mask);
      while (slots[i] === slots[i]) i = (i + 1) & mask;
      slots[i] = v;
      rests[i] = oldRests[s];
    }
    this.slots = slots;
    this.rests = rests;
    this.mask = mask;
  }
}

/** The rests of two keys sharing a first part. */
function both(a: Part, b: Part): KeySet {
  const s = new KeySet(2);
  s.add(a);
  s.add(b);
  return s;
}
