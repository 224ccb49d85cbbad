/**
 * SQL cursors: DECLARE … CURSOR / FETCH / MOVE / CLOSE with PostgreSQL's position rules.
 *
 * A cursor pulls from its plan only as far as a FETCH needs (so `FETCH 10` from a huge query stays
 * cheap) and keeps the rows it has read, because SCROLL cursors may move backwards. Positions are
 * PostgreSQL's: 0 is before the first row, n+1 after the last.
 */
import { QuireError } from '../common/errors.js';
import type { Value } from '../common/types.js';
import { batchRows, type Batch } from '../execution/column.js';
import { batchBytes, reserveResult, ROW_ARRAY_BYTES, type MemoryReservation } from '../execution/memory-pool.js';
import type { ResultColumn } from './database.js';

export type ScrollMode = 'scroll' | 'no-scroll' | 'default';

export class Cursor {
  private rows: Value[][] = [];
  private done = false;
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
  ) {}

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
      const br = batchRows(b);
      for (let i = 0; i < br.length; i++) this.rows.push(br[i]!);
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
    if (this.iter) await this.iter.return(undefined);
    this.iter = null;
    this.done = true;
    this.rows = [];
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
        if (count < 0) this.checkBackward();
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
      if (c.hold) await c.materialize();
      else {
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
}
