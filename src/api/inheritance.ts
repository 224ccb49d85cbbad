/** What statements other than SELECT do with table inheritance (see MemoryTable.inheritance). */
import { QuireError, positionOf } from '../common/errors.js';
import { MemoryTable } from '../storage/memory-table.js';
import type { AnyNode } from '../sql/ast.js';
import type { UtilityHost } from './utility.js';

/** Every table inheriting from `t`, directly or not, each once (a session's TEMP tables first by name). */
export function descendantTables(host: UtilityHost, t: MemoryTable): MemoryTable[] {
  const out: MemoryTable[] = [];
  const queue = [...t.inheritance.children];
  while (queue.length > 0) {
    const c = host.catalog.getTableIn(undefined, queue.shift()!);
    if (!(c instanceof MemoryTable) || c === t || out.includes(c)) continue;
    out.push(c);
    queue.push(...c.inheritance.children);
  }
  return out;
}

/**
 * UPDATE and DELETE without ONLY would have to change the inheriting tables' rows too; until they can,
 * they refuse rather than change the parent's rows alone.
 */
export function refuseInheritedTarget(t: MemoryTable, rv: AnyNode, what: 'UPDATE' | 'DELETE'): void {
  if (rv.inh === true && t.inheritance.children.length > 0) {
    throw new QuireError('0A000', `${what} of a table that other tables inherit from is not supported`, {
      hint: `Use ${what === 'UPDATE' ? 'UPDATE ONLY' : 'DELETE FROM ONLY'} for the table's own rows, or change each inheriting table.`,
      position: positionOf(rv.location as number | undefined),
    });
  }
}
