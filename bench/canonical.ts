/**
 * One comparable form for results from engines that represent values differently
 * (DuckDB: bigint counts and Date timestamps; SQLite: text timestamps; Quire: µs numbers, Numeric objects).
 */
import { tsText } from './data.js';
import type { CheckMode } from './types.js';

const TS_RE = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d(?:\.\d+)?)(Z|[+-]00(?::?00)?)?$/;

export function canonicalValue(x: unknown): unknown {
  if (x === null || x === undefined) return null;
  switch (typeof x) {
    case 'number':
    case 'boolean':
      return x;
    case 'bigint':
      return Number(x); // counts and sums here stay far below 2^53
    case 'string': {
      const m = TS_RE.exec(x);
      if (m) return tsText(Date.parse(`${m[1]}T${m[2]}Z`));
      return x;
    }
    case 'object': {
      if (x instanceof Date) return tsText(x.getTime());
      // numeric-like objects (Quire's Numeric, DuckDB decimals) print as decimal text
      const s = String(x);
      const n = Number(s);
      return s !== '' && Number.isFinite(n) ? n : s;
    }
    default:
      return String(x);
  }
}

export function canonicalRows(rows: unknown[][]): unknown[][] {
  return rows.map((r) => r.map(canonicalValue));
}

/** Doubles summed in different orders differ in the last bits; 1e-9 relative is far tighter than any real bug. */
function valuesEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') {
    if (a === b) return true;
    return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  }
  return a === b;
}

function rowsEqual(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!valuesEqual(a[i], b[i])) return false;
  return true;
}

/** Sort key for multiset comparison: numbers rounded so tolerance-equal values sort together. */
function sortKey(r: unknown[]): string {
  return JSON.stringify(r.map((x) => (typeof x === 'number' ? Number(x.toPrecision(8)) : x)));
}

export interface Comparable {
  rowCount: number;
  rows: unknown[][];
  truncated: boolean;
}

/** null if equal under `mode`, else a short description of the first difference. */
export function compareResults(ref: Comparable, got: Comparable, mode: CheckMode): string | null {
  if (ref.rowCount !== got.rowCount) return `row count ${got.rowCount}, expected ${ref.rowCount}`;
  if (mode === 'count') return null;
  let a = ref.rows;
  let b = got.rows;
  if (ref.truncated || got.truncated) {
    // only a prefix was shipped; for unordered results a prefix is meaningless, so count must do
    if (mode === 'unordered') return null;
    const n = Math.min(a.length, b.length);
    a = a.slice(0, n);
    b = b.slice(0, n);
  }
  if (mode === 'unordered') {
    a = [...a].sort((x, y) => (sortKey(x) < sortKey(y) ? -1 : 1));
    b = [...b].sort((x, y) => (sortKey(x) < sortKey(y) ? -1 : 1));
  }
  for (let i = 0; i < a.length; i++) {
    if (!rowsEqual(a[i], b[i])) return `row ${i}: ${JSON.stringify(b[i])}, expected ${JSON.stringify(a[i])}`;
  }
  return null;
}
