/**
 * Protocol portals: a bound statement being read out in chunks (Execute with max_rows).
 *
 * Unlike SQL cursors (src/api/cursors.ts), which keep every row they have read so SCROLL cursors can
 * move backwards, a protocol portal only moves forward, so it holds just the batch it is reading:
 * a client paging a huge result with max_rows keeps memory flat.
 *
 * "Rows remain" is decided by looking ahead: after max_rows rows the portal reads on until it sees
 * another row (or the end), so PortalSuspended is sent exactly when a next Execute would return rows
 * and CommandComplete as soon as the last row has gone out, never an empty trailing page.
 */
import { QuireError } from '../../common/errors.js';
import type { DataType, Value } from '../../common/types.js';
import { getValue, type Batch } from '../../common/column.js';
import type { ResultColumn } from '../../api/database.js';
import type { FormatContext } from '../../common/format-value.js';
import { encoderFor, type Encoder } from './types.js';

export type RowSink = (cells: (Buffer | null)[]) => void | Promise<void>;

export interface RowSource {
  /** Next batch (possibly empty: the portal breathes between batches, even when filters drop every row), or null at the end. */
  next(): Promise<Batch | null>;
  close(): Promise<void>;
}

export function batchSource(iter: AsyncGenerator<Batch>): RowSource {
  return {
    async next() {
      const r = await iter.next();
      return r.done ? null : r.value;
    },
    async close() {
      await iter.return(undefined);
    },
  };
}

export function rowsSource(columns: readonly ResultColumn[], rows: readonly Value[][]): RowSource {
  let done = rows.length === 0;
  return {
    async next() {
      if (done) return null;
      done = true;
      // One "batch" of row-major values; Portal reads cells through cellOf.
      return { columns: columns.map((_, c) => ({ type: columns[c]!.type, data: rows.map((r) => r[c] ?? null), nulls: null })), length: rows.length };
    },
    async close() {},
  };
}

export class Portal {
  private batch: Batch | null = null;
  private idx = 0;
  private finished = false;
  private encoders: Encoder[];
  /** Rows sent over the portal's lifetime. */
  total = 0;
  /** Cancels the portal's statement: the plan's own controller when it has one (see makePortal). */
  readonly abort: AbortController;
  /** The statement's text, for the slow-query log. */
  sql = '';

  constructor(
    readonly name: string,
    readonly columns: readonly ResultColumn[],
    readonly formats: readonly number[],
    private readonly source: RowSource,
    /** Command tag when complete; SELECT portals count rows (PostgreSQL's tag counts this Execute's rows). */
    private readonly tag: ((rowsThisExecute: number) => string),
    /** Text output settings (TimeZone, DateStyle, IntervalStyle, extra_float_digits) of the session. */
    format: FormatContext,
    /** Called every batch so a long read gives the event loop (cancel requests, other clients) a turn. */
    private readonly breathe: () => Promise<void>,
    abort?: AbortController,
  ) {
    this.abort = abort ?? new AbortController();
    this.encoders = columns.map((c, i) => encoderFor(c.type as DataType, formats[i] ?? 0, format));
  }

  get done(): boolean {
    return this.finished;
  }

  private empty = false;
  private copyOut: string | null = null;

  /**
   * A portal whose statement ran to completion when it was bound and returns no rows: Execute answers
   * its tag without reading a source or giving the event loop a turn first.
   */
  markCompleted(): this {
    this.finished = true;
    return this;
  }

  /** The portal of an empty query string: Execute answers EmptyQueryResponse. */
  markEmpty(): this {
    this.empty = true;
    return this;
  }
  get isEmpty(): boolean {
    return this.empty;
  }
  /** COPY … TO STDOUT: the data to send as CopyData (once). */
  withCopyOut(text: string): this {
    this.copyOut = text;
    return this;
  }
  takeCopyOut(): string | null {
    const c = this.copyOut;
    this.copyOut = null;
    return c;
  }
  completionTag(): string {
    return this.tag(0);
  }

  private async fill(): Promise<boolean> {
    while (this.batch === null || this.idx >= this.batch.length) {
      if (this.finished) return false;
      await this.breathe();
      // A cancel that arrived while the event loop had its turn stops the read here, even when
      // the plan below has no cancellation point of its own.
      if (this.abort.signal.aborted) throw new QuireError('57014', 'canceling statement due to user request');
      const b = await this.source.next();
      if (b === null) {
        this.finished = true;
        this.batch = null;
        await this.source.close();
        return false;
      }
      this.batch = b;
      this.idx = 0;
    }
    return true;
  }

  /** Sends up to maxRows rows (0 = all). Returns whether rows remain, and the completion tag otherwise. */
  async run(maxRows: number, sink: RowSink): Promise<{ suspended: boolean; tag: string }> {
    let sent = 0;
    const limit = maxRows > 0 ? maxRows : Infinity;
    const enc = this.encoders;
    while (sent < limit && (await this.fill())) {
      const b = this.batch!;
      const cols = b.columns;
      const end = Math.min(b.length, this.idx + (limit - sent));
      for (let i = this.idx; i < end; i++) {
        const cells: (Buffer | null)[] = new Array(cols.length);
        for (let c = 0; c < cols.length; c++) {
          const v = getValue(cols[c]!, i);
          cells[c] = v === null ? null : enc[c]!(v);
        }
        const p = sink(cells);
        if (p !== undefined) await p;
      }
      sent += end - this.idx;
      this.idx = end;
    }
    this.total += sent;
    if (sent >= limit && (await this.fill())) return { suspended: true, tag: '' };
    return { suspended: false, tag: this.tag(sent) };
  }

  async close(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.abort.abort();
    try {
      await this.source.close();
    } catch {
      // Closing an aborted plan may rethrow its cancellation; the portal is gone either way.
    }
  }
}
