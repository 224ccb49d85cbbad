/**
 * SQL cursors: DECLARE … CURSOR / FETCH / MOVE / CLOSE with PostgreSQL's position rules.
 *
 * A cursor pulls from its plan only as far as a FETCH needs (so `FETCH 10` from a huge query stays
 * cheap) and keeps the rows it has read, because SCROLL cursors may move backwards. Positions are
 * PostgreSQL's: 0 is before the first row, n+1 after the last.
 */
import { QuireError } from '../common/errors.js';
import { T, type Value } from '../common/types.js';
import { batchRows, ColumnBuilder, getValue, type Batch } from '../common/column.js';
import { batchBytes, reserveResult, ROW_ARRAY_BYTES, type MemoryReservation } from '../execution/memory-pool.js';
import type { Field } from '../common/types.js';
import type { TableSource } from '../logical/plan.js';
import type { ResultColumn } from './database.js';
import type { RowTarget } from './row-targets.js';

export type ScrollMode = 'scroll' | 'no-scroll' | 'default';

/** What pg_cursors shows of a cursor, and what WHERE CURRENT OF needs. */
export interface CursorInfo {
  /** The text of the query string that declared it. */
  readonly statement: string;
  readonly binary: boolean;
  /** pg_cursors.is_scrollable: whether backward fetches are allowed. */
  readonly scrollable: boolean;
  readonly creationTime: number;
  /** Tables whose row each result row came from (row-targets.ts); empty when the cursor is not updatable. */
  readonly targets: readonly RowTarget[];
  /** True for FOR UPDATE/SHARE cursors: `targets` are its locked tables rather than a simple scan's one. */
  readonly locking: boolean;
  /**
   * Called with the row positions of each batch of rows read (one array per target), before they
   * are returned; returns which rows to keep (SKIP LOCKED leaves rows out). FOR UPDATE cursors
   * lock their rows here.
   */
  readonly onRows?: (ids: Int32Array[]) => Promise<boolean[] | null>;
}

export class Cursor {
  private rows: Value[][] = [];
  /** Per target: the position in its snapshot of each row read. */
  private ids: number[][];
  private done = false;
  private closed = false;
  /** Declared outside the current transaction (WITH HOLD, after its COMMIT): WHERE CURRENT OF refuses it. */
  held = false;
  /** 1-based position of the current row; 0 = before first; rows.length+1 once past the end. */
  private pos = 0;

  constructor(
    readonly name: string,
    readonly columns: ResultColumn[],
    private iter: AsyncGenerator<Batch> | null,
    readonly scroll: ScrollMode,
    readonly hold: boolean,
    /** Transaction the cursor was declared in (ROLLBACK closes it). */
    readonly txn: number,
    /** The rows read are kept for the cursor's life: reserved as a result (reserveResult). */
    private readonly memory: MemoryReservation | null = null,
    readonly info: CursorInfo = { statement: '', binary: false, scrollable: scroll !== 'no-scroll', creationTime: Date.now(), targets: [], locking: false },
  ) {
    this.ids = info.targets.map(() => []);
  }

  /** The current row's position in each target's snapshot, or null when not on a row. */
  currentIds(): readonly number[] | null {
    if (this.pos < 1 || this.pos > this.rows.length) return null;
    return this.ids.map((a) => a[this.pos - 1]!);
  }

  /** Reads until at least `n` rows are buffered or the input ends. */
  private async fill(n: number): Promise<void> {
    while (!this.done && this.rows.length < n) {
      const r = await this.iter!.next();
      if (r.done) {
        this.done = true;
        this.iter = null;
        break;
      }
      const b = r.value;
      if (this.memory !== null) reserveResult(this.memory, batchBytes(b) + b.length * (ROW_ARRAY_BYTES + 8 * b.columns.length), `rows read by cursor "${this.name}"`);
      const nt = this.info.targets.length;
      if (nt === 0) {
        const br = batchRows(b);
        for (let i = 0; i < br.length; i++) this.rows.push(br[i]!);
        continue;
      }
      // The query returns each target's row position after its own columns.
      const width = this.columns.length;
      const ids = this.info.targets.map((_, k) => {
        const col = b.columns[width + k]!;
        return col.data instanceof Int32Array ? col.data : Int32Array.from({ length: b.length }, (_, i) => getValue(col, i) as number);
      });
      const keep = this.info.onRows !== undefined ? await this.info.onRows(ids) : null;
      const rows = batchRows({ columns: b.columns.slice(0, width), length: b.length });
      for (let i = 0; i < rows.length; i++) {
        if (keep !== null && !keep[i]) continue;
        this.rows.push(rows[i]!);
        for (let k = 0; k < nt; k++) this.ids[k]!.push(ids[k]![i]!);
      }
    }
  }

  private async total(): Promise<number> {
    await this.fill(Infinity);
    return this.rows.length;
  }

  private checkBackward(): void {
    if (this.scroll === 'no-scroll') {
      throw new QuireError('55000', 'cursor can only scan forward', { hint: 'Declare it with SCROLL option to enable backward scan.' });
    }
  }

  /** Materialises everything (WITH HOLD cursors at COMMIT, as PostgreSQL does). */
  async materialize(): Promise<void> {
    await this.fill(Infinity);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.iter) await this.iter.return(undefined);
    this.iter = null;
    this.done = true;
    this.rows = [];
    this.ids = this.ids.map(() => []);
    this.memory?.free();
  }

  /** FETCH/MOVE. `count` is PostgreSQL's howMany; `Infinity` means ALL. Returns the rows (for MOVE: counted only). */
  async fetch(direction: 'forward' | 'backward' | 'absolute' | 'relative', count: number, move: boolean): Promise<{ rows: Value[][]; count: number }> {
    const out: Value[][] = [];
    let moved = 0;
    const emit = (r: Value[]): void => {
      moved++;
      if (!move) out.push(r);
    };
    switch (direction) {
      case 'forward': {
        for (let k = 0; k < count; k++) {
          await this.fill(this.pos + 1);
          if (this.pos + 1 <= this.rows.length) {
            this.pos++;
            emit(this.rows[this.pos - 1]!);
          } else {
            this.pos = this.rows.length + 1;
            break;
          }
        }
        break;
      }
      case 'backward': {
        this.checkBackward();
        for (let k = 0; k < count; k++) {
          if (this.pos > this.rows.length) await this.fill(this.pos);
          if (this.pos - 1 >= 1) {
            this.pos--;
            emit(this.rows[this.pos - 1]!);
          } else {
            this.pos = 0;
            break;
          }
        }
        break;
      }
      case 'absolute': {
        let target = count;
        if (target < 0) {
          this.checkBackward();
          const n = await this.total();
          target = n + 1 + target;
          if (target < 1) {
            this.pos = 0;
            break;
          }
        } else if (target > 0) {
          // PostgreSQL reaches row `target` by rewinding when it is nearer the start than the
          // current row, else by stepping; either way a backward move needs a scrollable cursor.
          const atEnd = this.pos > this.rows.length;
          const pgPos = atEnd ? this.rows.length : this.pos;
          const back = target - 1 <= Math.floor(pgPos / 2) ? pgPos !== 0 || atEnd : target <= (atEnd ? pgPos + 1 : pgPos);
          if (back) this.checkBackward();
        }
        if (target === 0) {
          this.pos = 0;
          break;
        }
        await this.fill(target);
        if (target <= this.rows.length) {
          this.pos = target;
          emit(this.rows[target - 1]!);
        } else this.pos = this.rows.length + 1;
        break;
      }
      case 'relative': {
        // RELATIVE 0 re-reads the current row, which takes a step back and one forward.
        if (count < 0 || (count === 0 && this.pos >= 1 && this.pos <= this.rows.length)) this.checkBackward();
        const target = this.pos + count;
        if (target < 1) {
          this.pos = 0;
          break;
        }
        await this.fill(target);
        if (target <= this.rows.length) {
          this.pos = target;
          emit(this.rows[target - 1]!);
        } else this.pos = this.rows.length + 1;
        break;
      }
    }
    return { rows: out, count: moved };
  }
}

export class CursorManager {
  private cursors = new Map<string, Cursor>();
  txn = 0;

  get(name: string): Cursor {
    const c = this.cursors.get(name);
    if (c === undefined) throw new QuireError('34000', `cursor "${name}" does not exist`);
    return c;
  }

  has(name: string): boolean {
    return this.cursors.has(name);
  }

  add(c: Cursor): void {
    if (this.cursors.has(c.name)) throw new QuireError('42P03', `cursor "${c.name}" already exists`);
    this.cursors.set(c.name, c);
  }

  async close(name: string | null): Promise<void> {
    if (name === null) {
      for (const c of this.cursors.values()) await c.close();
      this.cursors.clear();
      return;
    }
    const c = this.get(name);
    await c.close();
    this.cursors.delete(name);
  }

  /** COMMIT: holdable cursors survive (materialised), the others close. */
  async commit(): Promise<void> {
    for (const [n, c] of [...this.cursors]) {
      if (c.hold) {
        await c.materialize();
        c.held = true;
      } else {
        await c.close();
        this.cursors.delete(n);
      }
    }
    this.txn++;
  }

  /** ROLLBACK: cursors declared in this transaction close; earlier holdable ones stay. */
  async rollback(): Promise<void> {
    for (const [n, c] of [...this.cursors]) {
      if (!c.hold || c.txn === this.txn) {
        await c.close();
        this.cursors.delete(n);
      }
    }
    this.txn++;
  }

  names(): string[] {
    return [...this.cursors.keys()];
  }

  list(): Cursor[] {
    return [...this.cursors.values()];
  }
}

const PG_CURSORS_SCHEMA: Field[] = [
  { name: 'name', type: T.text },
  { name: 'statement', type: T.text },
  { name: 'is_holdable', type: T.bool },
  { name: 'is_binary', type: T.bool },
  { name: 'is_scrollable', type: T.bool },
  { name: 'creation_time', type: T.timestamptz },
];

/** pg_cursors: the session's open cursors, read when scanned. */
export class CursorsView implements TableSource {
  readonly name = 'pg_cursors';
  readonly schema = PG_CURSORS_SCHEMA;
  constructor(private readonly cursors: CursorManager) {}
  rowCount(): number | undefined {
    return undefined;
  }
  async *scan(): AsyncGenerator<Batch> {
    const list = this.cursors.list();
    if (list.length === 0) return;
    const builders = this.schema.map((f) => new ColumnBuilder(f.type, list.length));
    for (const c of list) {
      // timestamptz values are microseconds since 1970.
      const row: Value[] = [c.name, c.info.statement, c.hold, c.info.binary, c.info.scrollable, c.info.creationTime * 1000];
      row.forEach((v, i) => builders[i]!.push(v));
    }
    yield { columns: builders.map((b) => b.finish()), length: list.length };
  }
}
