/**
 * Scan-order paging. A query without ORDER BY returns a table's rows in the order the table holds
 * them; paging it by any key (even a primary key) would return another order, and a client paging
 * `SELECT * FROM t` expects the rows it would get unpaged. So such a query is paged by each row's
 * position in the table: the scan appends the position as a hidden int8 column and a page starts
 * reading at the position after the cursor's, skipping whole batches before it. A page then reads
 * about fetch_size rows wherever it is in the table (no seek filter over the rows before it).
 *
 * Positions are stable while rows are only appended. UPDATE, DELETE and TRUNCATE rewrite the table's
 * batches and can move rows; the cursor therefore carries a digest of the last row sent, and a page
 * whose table no longer holds that row at that position is refused as stale rather than skipping or
 * repeating rows.
 */
import { createHash } from 'node:crypto';
import { T, type Schema, type Value } from '../common/types.js';
import { getValue, makeColumn, sliceBatch, type Batch } from '../common/column.js';
import type { LogicalPlan, TableSource } from '../logical/plan.js';
import { assertNever } from '../logical/plan-nodes.js';
import type { ScannableSource } from '../physical/operators/table-scan.js';
import { encodeValue } from './value-codec.js';

/** A table that hands out its rows as an immutable list of batches (MemoryTable). */
export interface SnapshotTable extends TableSource {
  snapshot(): readonly Batch[];
}

export function isSnapshotTable(s: unknown): s is SnapshotTable {
  return typeof s === 'object' && s !== null && typeof (s as { snapshot?: unknown }).snapshot === 'function';
}

export const POSITION_COLUMN = '?pos?';

/** The table's rows from position `from` on, each with its position as a last int8 column. */
export class PositionedScan implements TableSource, ScannableSource {
  readonly name: string;
  readonly schema: Schema;
  /** The batches the last scan read: the cursor's digest must describe the row that was sent. */
  private read: readonly Batch[] | null = null;
  constructor(
    readonly table: SnapshotTable,
    readonly from: number,
  ) {
    this.name = table.name;
    this.schema = [...table.schema, { name: POSITION_COLUMN, type: T.int8 }];
  }

  rowCount(): number | undefined {
    const n = this.table.rowCount();
    return n === undefined ? undefined : Math.max(0, n - this.from);
  }

  describe(): string {
    return `in table order from row ${this.from}`;
  }

  /** rowDigest of the row at `pos` as the last scan saw it. */
  digestAt(pos: number): string | null {
    return rowDigest(this.read ?? this.table.snapshot(), pos);
  }

  async *scan(): AsyncGenerator<Batch> {
    let start = 0;
    this.read = this.table.snapshot();
    for (const b of this.read) {
      const end = start + b.length;
      if (end > this.from) {
        const lo = Math.max(0, this.from - start);
        const part = lo > 0 ? sliceBatch(b, lo, b.length) : b;
        const pos = new Float64Array(part.length);
        for (let i = 0; i < part.length; i++) pos[i] = start + lo + i;
        yield { columns: [...part.columns, makeColumn(T.int8, pos, null)], length: part.length };
      }
      start = end;
    }
  }
}

/**
 * Rebuilds a scan-order pipeline (filters and projections over one table scan) so that it reads from
 * position `from` and carries the position as its last column; null when the plan is not such a
 * pipeline (its rows would not come in table order).
 */
export function positionedPlan(p: LogicalPlan, from: number): LogicalPlan | null {
  switch (p.op) {
    case 'scan': {
      if (!isSnapshotTable(p.source) || p.projection !== undefined || p.fetch !== undefined) return null;
      const source = new PositionedScan(p.source, from);
      return { op: 'scan', source, alias: p.alias, schema: [...p.schema, { name: POSITION_COLUMN, type: T.int8 }] };
    }
    case 'filter': {
      const input = positionedPlan(p.input, from);
      return input === null ? null : { ...p, input, schema: input.schema };
    }
    case 'project': {
      const input = positionedPlan(p.input, from);
      if (input === null) return null;
      const at = input.schema.length - 1;
      return {
        ...p,
        input,
        exprs: [...p.exprs, { kind: 'column', index: at, type: T.int8, name: POSITION_COLUMN }],
        schema: [...p.schema, { name: POSITION_COLUMN, type: T.int8 }],
      };
    }
    // Anything else may reorder, combine or invent rows.
    case 'values':
    case 'empty':
    case 'table-function':
    case 'worktable':
    case 'aggregate':
    case 'window':
    case 'sort':
    case 'limit':
    case 'topn':
    case 'topn-ranking':
    case 'distinct':
    case 'distinct-on':
    case 'join':
    case 'setop':
    case 'recursive-cte':
    case 'modify':
      return null;
    default:
      return assertNever(p);
  }
}

/** The scanned table of a pipeline positionedPlan accepts. */
export function scannedTable(p: LogicalPlan): SnapshotTable | null {
  while (p.op === 'filter' || p.op === 'project') p = p.input;
  return p.op === 'scan' && isSnapshotTable(p.source) ? p.source : null;
}

/** The PositionedScan a positionedPlan reads. */
export function positionedSource(p: LogicalPlan): PositionedScan | null {
  while (p.op === 'filter' || p.op === 'project' || p.op === 'limit' || p.op === 'sort') p = p.input;
  return p.op === 'scan' && p.source instanceof PositionedScan ? p.source : null;
}

/** A short digest of the row at `pos` of a table's batches, or null when there is no such row. */
export function rowDigest(batches: readonly Batch[], pos: number): string | null {
  let start = 0;
  for (const b of batches) {
    if (pos < start + b.length) {
      const i = pos - start;
      const row: Value[] = b.columns.map((c) => getValue(c, i));
      return createHash('sha256').update(JSON.stringify(row.map(encodeValue))).digest('base64url').slice(0, 16);
    }
    start += b.length;
  }
  return null;
}
