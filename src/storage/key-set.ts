/**
 * The set of a unique index's keys: safe integers (the usual primary key) in an open-addressing table
 * of doubles, any other key (tagged text) in a JS Set. A JS Set of a million numbers costs about
 * 250 ns an insert and a heap object per entry; the typed table costs a few tens of nanoseconds and
 * no garbage, which is most of what a bulk INSERT into a keyed table spends beyond the rows themselves.
 *
 * Linear probing, at most half full, NaN marking an empty slot (a key is never NaN); deletion shifts
 * the rest of the cluster back instead of leaving tombstones, so lookups never slow down after
 * UPDATEs that give keys up.
 */
export class KeySet {
  private slots: Float64Array;
  private mask: number;
  private ints = 0;
  private readonly others = new Set<string>();

  /** `expected`: how many integer keys to make room for at once (growing re-inserts every key). */
  constructor(expected = 8) {
    let n = 16;
    while (n < expected * 2) n *= 2;
    this.slots = new Float64Array(n).fill(NaN);
    this.mask = n - 1;
  }

  /** Makes room for `n` more integer keys at once, so adding them never regrows the table. */
  reserve(n: number): void {
    let size = this.slots.length;
    while ((this.ints + n) * 2 > size) size *= 2;
    if (size > this.slots.length) this.rehash(size);
  }

  get size(): number {
    return this.ints + this.others.size;
  }

  has(k: number | string): boolean {
    if (typeof k === 'string') return this.others.has(k);
    const slots = this.slots;
    for (let i = slotOf(k, this.mask); ; i = (i + 1) & this.mask) {
      const v = slots[i]!;
      if (v === k) return true;
      if (v !== v) return false;
    }
  }

  add(k: number | string): void {
    this.insert(k);
  }

  /** Adds `k`; false when it was already there (one probe where has() then add() take two). */
  insert(k: number | string): boolean {
    if (typeof k === 'string') {
      // One lookup, not has() then add(): the set grows only when `k` is new.
      const n = this.others.size;
      return this.others.add(k).size !== n;
    }
    if ((this.ints + 1) * 2 > this.slots.length) this.grow();
    const slots = this.slots;
    for (let i = slotOf(k, this.mask); ; i = (i + 1) & this.mask) {
      const v = slots[i]!;
      if (v === k) return false;
      if (v !== v) {
        slots[i] = k;
        this.ints++;
        return true;
      }
    }
  }

  delete(k: number | string): void {
    if (typeof k === 'string') {
      this.others.delete(k);
      return;
    }
    const slots = this.slots;
    const mask = this.mask;
    let i = slotOf(k, mask);
    for (; ; i = (i + 1) & mask) {
      const v = slots[i]!;
      if (v === k) break;
      if (v !== v) return;
    }
    // Move later members of the cluster into the hole when their home slot does not lie after it.
    let hole = i;
    for (let j = (i + 1) & mask; ; j = (j + 1) & mask) {
      const v = slots[j]!;
      if (v !== v) break;
      const home = slotOf(v, mask);
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        slots[hole] = v;
        hole = j;
      }
    }
    slots[hole] = NaN;
    this.ints--;
  }

  private grow(): void {
    this.rehash(this.slots.length * 2);
  }

  private rehash(size: number): void {
    const old = this.slots;
    const slots = new Float64Array(size).fill(NaN);
    const mask = slots.length - 1;
    for (let s = 0; s < old.length; s++) {
      const v = old[s]!;
      if (v !== v) continue;
      let i = slotOf(v, mask);
      while (slots[i] === slots[i]) i = (i + 1) & mask;
      slots[i] = v;
    }
    this.slots = slots;
    this.mask = mask;
  }
}

/** A slot for safe integer `k`: both 32-bit halves mixed, so keys differing only above 2^32 spread too. */
export function slotOf(k: number, mask: number): number {
  const hi = Math.floor(k / 4294967296) | 0;
  let h = Math.imul((k >>> 0) ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1);
  h ^= h >>> 15;
  return h & mask;
}
