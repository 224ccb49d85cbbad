/**
 * Where a sorted block's key changes: out[i] = 1 when row i differs from row i - 1 on any key (row 0 is
 * left 0). The Window operator finds partition starts and peer groups this way.
 *
 * Equality is what the sort's comparator calls equal (NULL equals NULL, NaN equals NaN, -0 equals 0,
 * text compares code units exactly), so for keys in typed storage, and text, a per-key loop over the column
 * replaces two comparator calls per row; other keys (numeric, interval, int8 beyond 2^53, ...) use the
 * comparator for the whole key list.
 */
import type { Batch } from '../common/column.js';
import { keyCategory, type Comparator, type SortKey } from './sort-key.js';

export function keyChanges(b: Batch, keys: readonly SortKey[], cmp: Comparator): Uint8Array {
  const n = b.length;
  const out = new Uint8Array(n);
  const direct = keys.every((k) => {
    const d = b.columns[k.col]!.data;
    const cat = keyCategory(k.type);
    if (Array.isArray(d)) return cat === 'text';
    return cat === 'num' || cat === 'float';
  });
  if (!direct) {
    const rc = cmp.rows(cmp.view(b));
    for (let i = 1; i < n; i++) if (rc(i - 1, i) !== 0) out[i] = 1;
    return out;
  }
  for (const k of keys) {
    const c = b.columns[k.col]!;
    const d = c.data;
    if (d instanceof Float64Array) changesF64(d, c.nulls, n, out);
    else if (d instanceof Int32Array) changesI32(d, c.nulls, n, out);
    else if (d instanceof Uint8Array) changesU8(d, c.nulls, n, out);
    else changesText(d, c.nulls, n, out);
  }
  return out;
}

// One loop per storage class (monomorphic element access). With a null map, a NULL on either side decides
// by itself: a change when exactly one side is NULL, none when both are (storage under NULL is arbitrary).

function changesF64(d: Float64Array, nulls: Uint8Array | null, n: number, out: Uint8Array): void {
  for (let i = 1; i < n; i++) {
    if (nulls !== null && (nulls[i - 1]! | nulls[i]!) === 1) {
      if (nulls[i - 1] !== nulls[i]) out[i] = 1;
      continue;
    }
    const x = d[i - 1]!;
    const y = d[i]!;
    if (x !== y && (x === x || y === y)) out[i] = 1;
  }
}

function changesI32(d: Int32Array, nulls: Uint8Array | null, n: number, out: Uint8Array): void {
  for (let i = 1; i < n; i++) {
    if (nulls !== null && (nulls[i - 1]! | nulls[i]!) === 1) {
      if (nulls[i - 1] !== nulls[i]) out[i] = 1;
      continue;
    }
    if (d[i - 1] !== d[i]) out[i] = 1;
  }
}

function changesU8(d: Uint8Array, nulls: Uint8Array | null, n: number, out: Uint8Array): void {
  for (let i = 1; i < n; i++) {
    if (nulls !== null && (nulls[i - 1]! | nulls[i]!) === 1) {
      if (nulls[i - 1] !== nulls[i]) out[i] = 1;
      continue;
    }
    if (d[i - 1] !== d[i]) out[i] = 1;
  }
}

function changesText(d: readonly unknown[], nulls: Uint8Array | null, n: number, out: Uint8Array): void {
  for (let i = 1; i < n; i++) {
    if (nulls !== null && (nulls[i - 1]! | nulls[i]!) === 1) {
      if (nulls[i - 1] !== nulls[i]) out[i] = 1;
      continue;
    }
    if (d[i - 1] !== d[i]) out[i] = 1;
  }
}
