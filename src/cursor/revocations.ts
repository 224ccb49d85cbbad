/**
 * Closed cursors. A cursor is stateless, so closing one can only work by remembering that it was
 * closed: every cursor of one paging session carries the same random id (`n` in the payload), and
 * closing any of them records that id until no cursor of the session can still be valid (close
 * time + the session's lifetime, which later pages may shorten but never lengthen, see pager.ts).
 *
 * MemoryRevocations keeps the list in this process (bounded: expired entries are dropped, and when
 * `maxEntries` live ones are held a further close is refused rather than forgetting an earlier one).
 * DirectoryRevocations keeps one small file per closed session in a directory, so server replicas
 * that share the cursor secret and the directory (a shared volume) share closes too.
 */
import { mkdirSync } from 'node:fs';
import { readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PagingError } from './errors.js';

export interface CursorRevocations {
  /** Records that session `id` is closed until `until` (ms since epoch). */
  revoke(id: string, until: number): Promise<void>;
  isRevoked(id: string): Promise<boolean>;
}

export const DEFAULT_MAX_REVOKED = 100_000;
const ID = /^[A-Za-z0-9_-]{16,64}$/;

export class MemoryRevocations implements CursorRevocations {
  private readonly until = new Map<string, number>();

  constructor(
    private readonly maxEntries = DEFAULT_MAX_REVOKED,
    private readonly now: () => number = Date.now,
  ) {}

  async revoke(id: string, until: number): Promise<void> {
    this.remember(id, until);
  }

  /** Synchronous core of revoke(), shared with the directory store's cache. */
  remember(id: string, until: number): void {
    const prev = this.until.get(id);
    if (prev !== undefined) {
      this.until.set(id, Math.max(prev, until));
      return;
    }
    if (this.until.size >= this.maxEntries) this.purge();
    if (this.until.size >= this.maxEntries) {
      throw new PagingError('TooManyClosed', `too many closed cursors are still live (${this.maxEntries}); try closing again later`, {
        hint: 'Cursors also end by themselves at their keep_alive; a shorter keep_alive frees this list sooner.',
      });
    }
    this.until.set(id, until);
  }

  async isRevoked(id: string): Promise<boolean> {
    return this.has(id);
  }

  has(id: string): boolean {
    const u = this.until.get(id);
    if (u === undefined) return false;
    if (u <= this.now()) {
      this.until.delete(id);
      return false;
    }
    return true;
  }

  private purge(): void {
    const now = this.now();
    for (const [id, u] of this.until) if (u <= now) this.until.delete(id);
  }

  get size(): number {
    return this.until.size;
  }
}

export class DirectoryRevocations implements CursorRevocations {
  /** Closes seen by this process (or read from the directory), so a revoked cursor costs no file read. */
  private readonly cache: MemoryRevocations;
  private sweeper: NodeJS.Timeout | null = null;

  constructor(
    readonly dir: string,
    private readonly now: () => number = Date.now,
    sweepEveryMs = 10 * 60_000,
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.cache = new MemoryRevocations(DEFAULT_MAX_REVOKED, now);
    if (sweepEveryMs > 0) {
      this.sweeper = setInterval(() => void this.sweep(), sweepEveryMs);
      this.sweeper.unref();
    }
  }

  async revoke(id: string, until: number): Promise<void> {
    if (!ID.test(id)) throw new PagingError('CursorInvalid', 'invalid cursor: malformed session id');
    // The file is the record; its content is the time it may be deleted. Rewriting it with a later
    // time is harmless, so replicas closing the same session concurrently need no coordination.
    const prev = await this.readUntil(id);
    await writeFile(join(this.dir, id), String(Math.max(prev ?? 0, until)), { mode: 0o600 });
    try {
      this.cache.remember(id, until);
    } catch {
      // The directory holds the close; the cache is only a shortcut.
    }
  }

  async isRevoked(id: string): Promise<boolean> {
    if (this.cache.has(id)) return true;
    if (!ID.test(id)) return false;
    const until = await this.readUntil(id);
    if (until === null || until <= this.now()) return false;
    try {
      this.cache.remember(id, until);
    } catch {
      // Full cache: the file answers next time as well.
    }
    return true;
  }

  private async readUntil(id: string): Promise<number | null> {
    try {
      const n = Number((await readFile(join(this.dir, id), 'utf8')).trim());
      // An unreadable record still means "closed": keep it for the longest cursor lifetime.
      return Number.isFinite(n) ? n : Number.MAX_SAFE_INTEGER;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  /** Deletes records no cursor can need any more (any replica may do it; a lost race is harmless). */
  async sweep(): Promise<number> {
    let removed = 0;
    const now = this.now();
    for (const name of await readdir(this.dir).catch(() => [] as string[])) {
      if (!ID.test(name)) continue;
      const until = await this.readUntil(name).catch(() => null);
      if (until !== null && until <= now) {
        await unlink(join(this.dir, name)).catch(() => undefined);
        removed++;
      }
    }
    return removed;
  }

  close(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
  }
}
