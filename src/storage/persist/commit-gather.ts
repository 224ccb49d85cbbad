/**
 * When a group commit's next fdatasync starts. Started at once, as soon as the last one returns, it
 * covers only the commits written while the last one ran: the writers that last one acknowledged are
 * still on their way back (a client's round trip, a session's next statement) and wait for the one
 * after. With several writers that splits them into two cohorts taking turns, about half of them per
 * fdatasync (8 pgwire clients: 0.25 fdatasyncs per commit).
 *
 * So the next fdatasync first waits until every writer the last one acknowledged has written again,
 * for at most about a millisecond (one timer tick), as PostgreSQL's commit_delay does when enough
 * sessions are active. It waits only where that can pay: on a disk whose fdatasyncs take at least
 * `fromMs` (on average), and when two or more writers are expected. A writer that does not come
 * back in time is not expected for the next one; a wait that ran out with nobody back (clients that
 * pause between commits) turns waiting off for a while, so such a load pays the tick at most now and then.
 */
export class CommitGather {
  /** Writers of the records written since the last fdatasync started. */
  private pending = new Set<object>();
  /** Writers of the records the fdatasync in flight covers. */
  private covering = new Set<object>();
  /** Writers the last fdatasync acknowledged: each likely to commit again at once. */
  private expected = new Set<object>();
  private release: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Moving average of fdatasync times (ms). */
  private average = 0;
  /** Until then (performance.now()), no waiting: the last wait ran out with nobody back. */
  private quietUntil = -Infinity;

  constructor(
    private readonly fromMs: () => number,
    private readonly waitMs: number,
    private readonly quietMs: number,
  ) {}

  /** A record of `writer` was written. */
  wrote(writer: object | undefined): void {
    if (writer === undefined) return;
    this.pending.add(writer);
    if (this.release !== null && this.allBack()) this.fire();
  }

  /** Null when the next fdatasync should start now, else a promise that resolves when it should. */
  wait(now: number): Promise<void> | null {
    if (this.expected.size < 2 || this.average < this.fromMs() || now < this.quietUntil || this.allBack()) return null;
    return new Promise<void>((resolve) => {
      this.release = resolve;
      this.timer = setTimeout(() => {
        if (this.expected.size > 0 && ![...this.expected].some((w) => this.pending.has(w))) this.quietUntil = performance.now() + this.quietMs;
        this.fire();
      }, this.waitMs);
    });
  }

  /** An fdatasync starts: it covers the records written so far. */
  started(): void {
    this.covering = this.pending;
    this.pending = new Set();
  }

  /** The fdatasync started last returned after `ms`. */
  finished(ms: number): void {
    this.expected = this.covering;
    this.covering = new Set();
    this.average = this.average * 0.8 + ms * 0.2;
  }

  /** Starts a waiting fdatasync now (the log is closing). */
  flush(): void {
    if (this.release !== null) this.fire();
  }

  private allBack(): boolean {
    for (const w of this.expected) if (!this.pending.has(w)) return false;
    return true;
  }

  private fire(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const release = this.release;
    this.release = null;
    release?.();
  }
}
