/**
 * Dense ids of text partition keys (topn-ranking.ts): open addressing over an Int32Array, kept at most
 * half full. Each id's hash is stored beside it, so a probe compares strings only when the 32-bit hashes
 * match and growing rehashes from the stored hashes without reading a string again.
 *
 * A Map keyed by string costs several times more per row once it holds ~100,000 keys, most of all for
 * strings the query has just built (concatenations): those are hashed and looked up through the
 * runtime on every call.
 */

/** 32-bit hash of the UTF-16 code units of s (FNV-1a steps, then a final mix so low bits spread). */
export function stringHash(s: string): number {
  let h = 0x811c9dc5 | 0;
  const n = s.length;
  for (let i = 0; i < n; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  h = Math.imul(h, 0x297a2d39);
  return h ^ (h >>> 15);
}

export class StringIds {
  /** Entry + 1 per table position (0 = empty); an entry indexes hashes / strings / ids. */
  private table = new Int32Array(1024);
  private mask = 1023;
  private hashes = new Int32Array(512);
  private ids = new Int32Array(512);
  private strings: string[] = [];
  /** Distinct strings held. */
  size = 0;

  /** Overrides the hash (tests: to force every key into one probe chain). */
  constructor(private readonly hash: (s: string) => number = stringHash) {}

  /**
   * The id of s, or `next` when s is new (it is then recorded with that id): the caller counts ids, so
   * text keys can share one id space with NULL and other key kinds.
   */
  idOf(s: string, next: number): number {
    const h = this.hash(s) | 0;
    const table = this.table;
    const mask = this.mask;
    const hashes = this.hashes;
    let slot = h & mask;
    for (;;) {
      const e = table[slot]!;
      if (e === 0) break;
      const x = e - 1;
      if (hashes[x] === h && this.strings[x] === s) return this.ids[x]!;
      slot = (slot + 1) & mask;
    }
    const x = this.size++;
    if (x === this.hashes.length) this.growEntries();
    this.hashes[x] = h;
    this.ids[x] = next;
    this.strings.push(s);
    table[slot] = x + 1;
    if (this.size * 2 > mask) this.growTable();
    return next;
  }

  private growEntries(): void {
    const nh = new Int32Array(this.hashes.length * 2);
    nh.set(this.hashes);
    this.hashes = nh;
    const ni = new Int32Array(this.ids.length * 2);
    ni.set(this.ids);
    this.ids = ni;
  }

  private growTable(): void {
    const size = this.table.length * 2;
    const table = new Int32Array(size);
    const mask = size - 1;
    const hashes = this.hashes;
    for (let x = 0; x < this.size; x++) {
      let slot = hashes[x]! & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = x + 1;
    }
    this.table = table;
    this.mask = mask;
  }

  /** Bytes of the typed arrays and the string references (the strings themselves are the input's). */
  get bytes(): number {
    return this.table.byteLength + this.hashes.byteLength + this.ids.byteLength + 8 * this.strings.length;
  }
}
