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
    for (let i = 0; i < og.length; i++) if (og[i] !== 0) this.insert(og[i]! - 1, ov[i]!);
  }
}
