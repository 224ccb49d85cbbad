/**
 * Partition of each row by a hash of its group key, for hash aggregation that writes rows to disk.
 *
 * Rows whose keys are equal under GROUP BY (hash-aggregate.ts groupers: SameValueZero on the canonical
 * key of compare.ts hashKey, NULL a value of its own) must land in the same partition, so the hash is
 * taken over that canonical key: -0 and 0, every NaN, 'a' and 'a  ' as bpchar, 1.0 and 1.00 as numeric
 * hash alike. Each recursion level passes its own seed, so a partition that is split again spreads over
 * the new partitions instead of landing in one of them.
 */
import { hashKey } from '../common/compare.js';
import { storageKind, type DataType, type Value } from '../common/types.js';
import type { Column } from '../common/column.js';

const f64 = new Float64Array(1);
const i32 = new Int32Array(f64.buffer);

function mix(h: number, x: number): number {
  h = Math.imul(h ^ x, 0x9e3779b1);
  return h ^ (h >>> 15);
}

function hashString(h: number, s: string): number {
  h = mix(h, s.length);
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

function hashNumber(h: number, x: number): number {
  if ((x | 0) === x) return mix(h, x);
  if (x !== x) return mix(h, 0x7ff80000);
  f64[0] = x;
  return mix(mix(h, i32[0]!), i32[1]!);
}

function hashValue(h: number, v: Value, t: DataType, numeric: boolean): number {
  if (v === null) return mix(h, 0x5bd1e995);
  // The canonical key the groupers compare (mapKey in hash-aggregate.ts), so equal keys hash alike.
  const k = numeric ? (typeof v === 'boolean' ? (v ? 1 : 0) : v) : hashKey(v, t);
  switch (typeof k) {
    case 'number':
      return hashNumber(h, k);
    case 'bigint':
      // hashKey gives a number for every int8 in the safe range, so a bigint here is never equal to one.
      return hashString(mix(h, 2), String(k));
    case 'boolean':
      return mix(h, k ? 1 : 0);
    case 'string':
      return hashString(mix(h, 3), k);
    default:
      return hashString(mix(h, 4), String(k));
  }
}

/**
 * Writes the partition (0 … parts-1) of each of the n rows of the key columns to `out`. `parts` is a
 * power of two; `seed` differs per recursion level.
 */
export function keyPartitions(cols: readonly Column[], types: readonly DataType[], n: number, seed: number, parts: number, out: Uint8Array): void {
  const h = new Int32Array(n).fill(Math.imul(seed + 1, 0x85ebca6b));
  for (let c = 0; c < cols.length; c++) {
    const col = cols[c]!;
    const t = types[c]!;
    const numeric = storageKind(t) !== 'obj';
    const d = col.data;
    const nulls = col.nulls;
    for (let i = 0; i < n; i++) {
      const v = nulls !== null && nulls[i] === 1 ? null : ((d[i] as Value | undefined) ?? null);
      h[i] = hashValue(h[i]!, v, t, numeric);
    }
  }
  const mask = parts - 1;
  for (let i = 0; i < n; i++) {
    // Final avalanche, so the low bits depend on every input bit.
    let x = h[i]!;
    x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
    x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
    out[i] = (x ^ (x >>> 16)) & mask;
  }
}
