/**
 * The physical side of choose-index-scan: an IndexScan for a logical scan that reads through an index,
 * an index-only one when every column the scan outputs is a key column.
 */
import type { IndexAccess } from '../logical/index-definition.js';
import type { LogicalPlan } from '../logical/plan.js';
import type { PhysicalOperator } from './operator.js';
import { IndexScan, type IndexedSource } from './operators/index-scan.js';
import type { SortKey } from './sort-key.js';

/** The scan through its index, or null when the source cannot be read so (the table scan then serves it). */
export function planIndexScan(p: LogicalPlan & { op: 'scan' }, access: IndexAccess): PhysicalOperator | null {
  const src = p.source as unknown as Partial<IndexedSource>;
  if (typeof src.snapshot !== 'function' && typeof src.indexedRows !== 'function') return null;
  const projection = p.projection ?? null;
  const cols = projection ?? p.source.schema.map((_, i) => i);
  const only = access.allowIndexOnly && cols.every((c) => access.index.columns.some((k) => k.col === c));
  // enable_indexscan off: the rule kept every conjunct, so a table scan under the same filter is equivalent.
  if (access.onlyIfIndexOnly && !only) return null;
  return new IndexScan(p.schema, src as IndexedSource, access, projection, only, p.fetch ?? null, p.alias);
}

/** Whether `op`'s rows already come sorted by `keys`. */
export function orderedBy(op: PhysicalOperator, keys: readonly SortKey[]): boolean {
  const have = op.outputOrdering();
  if (have.length < keys.length) return false;
  return keys.every((k, i) => {
    const h = have[i]!;
    return h.col === k.col && h.desc === k.desc && h.nullsFirst === k.nullsFirst;
  });
}
