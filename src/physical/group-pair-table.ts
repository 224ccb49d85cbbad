/**
 * A set of (group, number) pairs in one open-addressing table of typed arrays: no object per pair.
 * Numbers compare with ===, except that every NaN equals every other (callers that need -0 to equal 0
 * pass x + 0). GroupValueSet keeps a DISTINCT aggregate's numbers here, and its text as the numbers a
 * dictionary of the strings gives them.
 */

/** Table slots to start with; doubled at half load. */
const INITIAL_SLOTS = 1 << 12;

const f64 = new Float64Array(1);
const words = new Int32Array(f64.buffer);

export class GroupPairTable {
  /** Group id + 1 per slot (0: empty). */
  private slotGroup = new Int32Array(INITIAL_SLOTS);
  private slotValue = new Float64Array(INITIAL_SLOTS);
  private size = 0;

  /** Bytes held, for memory accounting. */
  get bytes(): number {
    return this.slotGroup.length * 12;
  }

  /** Adds (g, x); whether it was new. */
  insert(g: number, x: number): boolean {
    const sg = this.slotGroup;
    const sv = this.slotValue;
    const mask = sg.length - 1;
    let i = hash(g, x) & mask;
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

  /**
   * Twice the slots. Every pair held is distinct, so each goes to the first empty slot of its probe
   * without the equality tests of insert (re-inserting through insert cost as much as the inserts
   * themselves for a million distinct values).
   */
  private rehash(): void {
    const og = this.slotGroup;
    const ov = this.slotValue;
    const sg = new Int32Array(og.length * 2);
    const sv = new Float64Array(og.length * 2);
    const mask = sg.length - 1;
    for (let o = 0; o < og.length; o++) {
      const t = og[o]!;
      if (t === 0) continue;
      const x = ov[o]!;
      let i = hash(t - 1, x) & mask;
      while (sg[i] !== 0) i = (i + 1) & mask;
      sg[i] = t;
      sv[i] = x;
    }
    this.slotGroup = sg;
    this.slotValue = sv;
  }
}

/** A pair's hash: the group mixed with the value's two 32-bit words. */
function hash(g: number, x: number): number {
  f64[0] = x;
  let h = Math.imul(words[0]! ^ Math.imul(g, 0x9e3779b1), 0x85ebca6b) ^ Math.imul(words[1]!, 0xc2b2ae35);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return h ^ (h >>> 13);
}
