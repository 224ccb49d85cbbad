/**
 * In-memory table: immutable columnar batches. Writers append new batches (or swap the whole list
 * for UPDATE/DELETE), so a scan that is running keeps reading the batches it started with.
 */
import type { Node } from '@pgsql/types';
import type { Schema, Value } from '../common/types.js';
import { BATCH_SIZE, ColumnBuilder, type Batch } from '../execution/column.js';
import { recordImmutableBatch } from '../execution/column-stats.js';
import type { TableSource } from '../logical/plan.js';

/** Column constraints and defaults kept with the table (checked by INSERT/UPDATE). */
export interface ColumnMeta {
  notNull: boolean;
  /** DEFAULT expression as written (bound at insert time, so now() is per statement). */
  defaultExpr: Node | null;
  /** serial / bigserial / GENERATED … AS IDENTITY: next value. */
  sequence: { next: number } | null;
}

export class MemoryTable implements TableSource {
  private batches: Batch[] = [];
  meta: ColumnMeta[];
  /** Column sets that must be unique (PRIMARY KEY, UNIQUE). */
  uniqueKeys: number[][] = [];
  private rows = 0;
  /** Bumped on every write, so cursors and caches can tell the table changed. */
  version = 0;

  constructor(
    readonly name: string,
    readonly schema: Schema,
    meta?: ColumnMeta[],
  ) {
    this.meta = meta ?? schema.map(() => ({ notNull: false, defaultExpr: null, sequence: null }));
  }

  rowCount(): number {
    return this.rows;
  }

  snapshot(): readonly Batch[] {
    return this.batches;
  }

  async *scan(): AsyncGenerator<Batch> {
    for (const b of this.batches) yield b;
  }

  appendBatch(b: Batch): void {
    if (b.length === 0) return;
    recordImmutableBatch(b);
    this.batches = [...this.batches, b];
    this.rows += b.length;
    this.version++;
  }

  appendRows(rows: readonly (readonly Value[])[]): void {
    for (let start = 0; start < rows.length; start += BATCH_SIZE) {
      const end = Math.min(rows.length, start + BATCH_SIZE);
      const builders = this.schema.map((f) => new ColumnBuilder(f.type, end - start));
      for (let r = start; r < end; r++) {
        const row = rows[r]!;
        for (let c = 0; c < builders.length; c++) builders[c]!.push(row[c] ?? null);
      }
      this.appendBatch({ columns: builders.map((b) => b.finish()), length: end - start });
    }
  }

  /**
   * A private copy for a transaction: the same immutable batches and the same column metadata
   * (sequences advance for everyone, as PostgreSQL's do even when a transaction rolls back).
   */
  cloneForTransaction(): MemoryTable {
    const t = new MemoryTable(this.name, this.schema, this.meta);
    t.uniqueKeys = this.uniqueKeys;
    t.batches = this.batches;
    t.rows = this.rows;
    return t;
  }

  /** A transaction's clone takes a new statement's snapshot: these batches, without counting as a write. */
  rebase(batches: readonly Batch[]): void {
    this.batches = batches as Batch[];
    this.rows = batches.reduce((n, b) => n + b.length, 0);
  }

  replaceAll(batches: Batch[]): void {
    this.batches = batches.filter((b) => b.length > 0);
    for (const b of this.batches) recordImmutableBatch(b);
    this.rows = this.batches.reduce((n, b) => n + b.length, 0);
    this.version++;
  }
}
