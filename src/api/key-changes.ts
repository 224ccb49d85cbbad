/**
 * Old and new versions of the rows UPDATEs change in a referenced table while a statement runs, so
 * ON UPDATE CASCADE knows which new key replaced each old one (the table's batch lists alone only say
 * which rows went and which came). Keyed by the transaction's copy of the table: concurrent sessions
 * never share one.
 */
import type { Value } from '../common/types.js';
import type { MemoryTable } from '../storage/memory-table.js';

const logs = new WeakMap<MemoryTable, [Value[], Value[]][]>();

/** Starts recording `t`'s updated rows (again, from empty). */
export function watchUpdates(t: MemoryTable): void {
  logs.set(t, []);
}

export function stopWatching(t: MemoryTable): void {
  logs.delete(t);
}

/** Whether `t`'s updates are being recorded (the caller then keeps each row's old version). */
export function watchingUpdates(t: MemoryTable): boolean {
  return logs.has(t);
}

export function noteUpdate(t: MemoryTable, oldRow: Value[], newRow: Value[]): void {
  logs.get(t)?.push([oldRow, newRow]);
}

/** The pairs recorded since the last call, the record starting empty again. */
export function takeUpdates(t: MemoryTable): [Value[], Value[]][] {
  const l = logs.get(t) ?? [];
  if (logs.has(t)) logs.set(t, []);
  return l;
}
