/**
 * Whether a single writer's commits sync on the calling thread (an O_DSYNC write, or an fdatasync)
 * or through the thread pool, judged from the times of the inline ones. Inline costs the event loop
 * the sync's time; the thread pool costs two thread wake-ups per commit, as much as the sync itself
 * on a busy machine. So syncs go to the thread pool for a while (`holdMs`) when the disk is slow:
 * inline syncs averaging more than `slowMs` (a moving average over about the last ten), or one
 * taking ten times that; and when another session commits (wal.ts calls hold()).
 *
 * A single stall (the process descheduled on a busy machine, the disk's occasional hiccup) counts
 * for at most twice `slowMs` in the average: counted whole, one 30 ms stall held the average over
 * the threshold for as many inline syncs as it took to decay, and during a hold there is one inline
 * sync a second at most, so a writer stayed on the thread pool for five seconds or more after it.
 * For the same reason the average restarts at half the threshold when a hold begins: once the hold
 * ends, a disk that recovered is back inline at once, and one still slow is caught again within a
 * few syncs.
 */
export class SyncPacer {
  private average = 0;
  /** Until then syncs go through the thread pool. */
  private asyncUntil = -Infinity;

  constructor(
    private readonly slowMs: () => number,
    private readonly holdMs: number,
  ) {}

  /** Whether a sync at `now` (performance.now()) runs on the calling thread. */
  inlineAt(now: number): boolean {
    return now >= this.asyncUntil;
  }

  /** Syncs from `now` on go through the thread pool for a while (another session commits). */
  hold(now: number): void {
    this.asyncUntil = Math.max(this.asyncUntil, now + this.holdMs);
  }

  /** An inline sync took `ms`, ending at `now`. */
  timed(ms: number, now: number): void {
    const slow = this.slowMs();
    this.average = this.average * 0.9 + Math.min(ms, 2 * slow) * 0.1;
    if (ms > slow * 10 || this.average > slow) {
      this.asyncUntil = now + this.holdMs;
      this.average = Math.min(this.average, slow / 2);
    }
  }
}
