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
  if (!directKeys(b, keys)) {
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

/** Whether every key reads its storage directly (the typed / text loops above), so no comparator is needed. */
export function directKeys(b: Batch, keys: readonly SortKey[]): boolean {
  return keys.every((k) => {
    const d = b.columns[k.col]!.data;
    const cat = keyCategory(k.type);
    if (Array.isArray(d)) return cat === 'text';
    return cat === 'num' || cat === 'float';
  });
}

/**
 * First row of the run of rows at the end of sorted batch `b` that equal its last row on every key (0 when
 * the whole batch is one run). Per key a backward scan over the column, so finding where a batch's last
 * partition starts costs no comparator view of the batch (which, for text keys, scans every string).
 */
export function trailingRunStart(b: Batch, keys: readonly SortKey[], cmp: Comparator): number {
  const n = b.length;
  if (n === 0) return 0;
  if (!directKeys(b, keys)) {
    const rc = cmp.rows(cmp.view(b));
    let x = n - 1;
    while (x > 0 && rc(x - 1, x) === 0) x--;
    return x;
  }
  // Per key, the start of its own trailing run, never below the bound the earlier keys set: the rows equal
  // on every key are the shortest of those runs.
  let x = 0;
  for (const k of keys) {
    if (x === n - 1) break;
    const c = b.columns[k.col]!;
    const d = c.data;
    if (d instanceof Float64Array) x = runStartF64(d, c.nulls, n, x);
    else if (d instanceof Int32Array) x = runStartI32(d, c.nulls, n, x);
    else if (d instanceof Uint8Array) x = runStartU8(d, c.nulls, n, x);
    else x = runStartText(d, c.nulls, n, x);
  }
  return x;
}

// Each scans back from the last row, no further than row `lo`, while the row before equals the last row on
// this key, with the equality of the change loops above.

function runStartF64(d: Float64Array, nulls: Uint8Array | null, n: number, lo: number): number {
  const last = n - 1;
  let x = last;
  if (nulls !== null && nulls[last] === 1) {
    while (x > lo && nulls[x - 1] === 1) x--;
    return x;
  }
  const v = d[last]!;
  if (v !== v) {
    while (x > lo && (nulls === null || nulls[x - 1] !== 1) && d[x - 1]! !== d[x - 1]!) x--;
    return x;
  }
  while (x > lo && (nulls === null || nulls[x - 1] !== 1) && d[x - 1] === v) x--;
  return x;
}

function runStartI32(d: Int32Array, nulls: Uint8Array | null, n: number, lo: number): number {
  const last = n - 1;
  let x = last;
  if (nulls !== null && nulls[last] === 1) {
    while (x > lo && nulls[x - 1] === 1) x--;
    return x;
  }
  const v = d[last]!;
  while (x > lo && (nulls === null || nulls[x - 1] !== 1) && d[x - 1] === v) x--;
  return x;
}

function runStartU8(d: Uint8Array, nulls: Uint8Array | null, n: number, lo: number): number {
  const last = n - 1;
  let x = last;
  if (nulls !== null && nulls[last] === 1) {
    while (x > lo && nulls[x - 1] === 1) x--;
    return x;
  }
  const v = d[last]!;
  while (x > lo && (nulls === null || nulls[x - 1] !== 1) && d[x - 1] === v) x--;
  return x;
}

function runStartText(d: readonly unknown[], nulls: Uint8Array | null, n: number, lo: number): number {
  const last = n - 1;
  let x = last;
  const lastNull = (nulls !== null && nulls[last] === 1) || d[last] === null;
  if (lastNull) {
    while (x > lo && ((nulls !== null && nulls[x - 1] === 1) || d[x - 1] === null)) x--;
    return x;
  }
  const v = d[last];
  while (x > lo && (nulls === null || nulls[x - 1] !== 1) && d[x - 1] === v) x--;
  return x;
}

/**
 * One past the run of rows at the start of sorted batch `b` that equal its row 0 on every key, looking no
 * further than row `limit` (returns at most `limit`, at least 1 when limit >= 1).
 */
export function leadingRunEnd(b: Batch, keys: readonly SortKey[], cmp: Comparator, limit: number): number {
  if (limit <= 1) return limit;
  if (!directKeys(b, keys)) {
    const rc = cmp.rows(cmp.view(b));
    let x = 1;
    while (x < limit && rc(x - 1, x) === 0) x++;
    return x;
  }
  let x = limit;
  for (const k of keys) {
    if (x <= 1) break;
    const c = b.columns[k.col]!;
    const d = c.data;
    const nulls = c.nulls;
    let y = 1;
    if (d instanceof Float64Array) {
      if (nulls !== null && nulls[0] === 1) while (y < x && nulls[y] === 1) y++;
      else {
        const v = d[0]!;
        if (v !== v) while (y < x && (nulls === null || nulls[y] !== 1) && d[y]! !== d[y]!) y++;
        else while (y < x && (nulls === null || nulls[y] !== 1) && d[y] === v) y++;
      }
    } else if (d instanceof Int32Array || d instanceof Uint8Array) {
      if (nulls !== null && nulls[0] === 1) while (y < x && nulls[y] === 1) y++;
      else {
        const v = d[0]!;
        while (y < x && (nulls === null || nulls[y] !== 1) && d[y] === v) y++;
      }
    } else if ((nulls !== null && nulls[0] === 1) || d[0] === null) {
      while (y < x && ((nulls !== null && nulls[y] === 1) || d[y] === null)) y++;
    } else {
      const v = d[0];
      while (y < x && (nulls === null || nulls[y] !== 1) && d[y] === v) y++;
    }
    x = y;
  }
  return x;
}

/** Whether row i of batch a equals row j of batch b on every key (the same equality as keyChanges). */
export function sameKeys(a: Batch, i: number, b: Batch, j: number, keys: readonly SortKey[], cmp: Comparator): boolean {
  if (!directKeys(a, keys) || !directKeys(b, keys)) return cmp.cross(cmp.view(a), cmp.view(b))(i, j) === 0;
  for (const k of keys) {
    const ca = a.columns[k.col]!;
    const cb = b.columns[k.col]!;
    const na = (ca.nulls !== null && ca.nulls[i] === 1) || ca.data[i] === null;
    const nb = (cb.nulls !== null && cb.nulls[j] === 1) || cb.data[j] === null;
    if (na || nb) {
      if (na !== nb) return false;
      continue;
    }
    const x = ca.data[i];
    const y = cb.data[j];
    // NaN equals NaN (x !== x); -0 equals 0 (===); text compares code units.
    if (x !== y && !(typeof x === 'number' && typeof y === 'number' && x !== x && y !== y)) return false;
  }
  return true;
}
