/**
 * Sets and maps of canonical row keys (numbers, bigints, strings, booleans, null: distinct.ts RowKey)
 * split over many engine Sets and Maps by a cheap hash of the key.
 *
 * The engine grows a Set or Map by rehashing every entry into a new backing store in one step, and
 * the store of a million keys is one large allocation: at that size a single add holds the event
 * loop for tens of milliseconds (UNION, DISTINCT or a text-keyed join build over a million distinct
 * strings). Split SHARDS ways, each part grows on its own and rehashes a SHARDS-th of the keys.
 * Not more ways than that: consecutive keys then land in many different tables, and the lost cache
 * locality costs more throughput than the shorter steps gain. Equality stays the engine's
 * (SameValueZero), so the shard hash only has to give equal keys the same shard: -0 and 0, and every
 * NaN, land together.
 */

export type ShardKey = number | bigint | string | boolean | null;

const SHARD_BITS = 4;
const SHARDS = 1 << SHARD_BITS;

const f64 = new Float64Array(1);
const u32 = new Int32Array(f64.buffer);

/** Shard of a key: a few characters of a string, the value of an integer, the bits of a double. */
function shardOf(k: ShardKey): number {
  let h: number;
  switch (typeof k) {
    case 'string': {
      const n = k.length;
      if (n === 0) return 0;
      // The ends and the middle: keys that share a prefix (ids, codes) differ in their last characters.
      h = Math.imul(n ^ k.charCodeAt(n - 1), 0x9e3779b1);
      h = Math.imul(h ^ k.charCodeAt(n >> 1), 0x85ebca6b);
      if (n > 1) h = Math.imul(h ^ k.charCodeAt(n - 2), 0xc2b2ae35);
      h = Math.imul(h ^ k.charCodeAt(0), 0x9e3779b1);
      break;
    }
    case 'number':
      if ((k | 0) === k) h = k;
      else if (k !== k) return 0;
      else {
        f64[0] = k;
        h = u32[0]! ^ u32[1]!;
      }
      h = Math.imul(h ^ (h >>> 16), 0x9e3779b1);
      break;
    case 'bigint':
      h = Math.imul(Number(BigInt.asIntN(32, k)), 0x9e3779b1);
      break;
    case 'boolean':
      return k ? 1 : 2;
    default:
      return 0;
  }
  return (h ^ (h >>> 15)) >>> (32 - SHARD_BITS);
}

export class ShardedKeySet {
  private readonly parts: Set<ShardKey>[] = [];

  constructor() {
    for (let i = 0; i < SHARDS; i++) this.parts.push(new Set<ShardKey>());
  }

  has(k: ShardKey): boolean {
    return this.parts[shardOf(k)]!.has(k);
  }

  /** Adds `k`; whether it was new. */
  addNew(k: ShardKey): boolean {
    const part = this.parts[shardOf(k)]!;
    if (part.has(k)) return false;
    part.add(k);
    return true;
  }
}

export class ShardedKeyMap<V> {
  private readonly parts: Map<ShardKey, V>[] = [];

  constructor() {
    for (let i = 0; i < SHARDS; i++) this.parts.push(new Map<ShardKey, V>());
  }

  get(k: ShardKey): V | undefined {
    return this.parts[shardOf(k)]!.get(k);
  }

  set(k: ShardKey, v: V): void {
    this.parts[shardOf(k)]!.set(k, v);
  }
}
