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
 *
 * A hold for a slow disk ends early once the thread pool's syncs say the disk is fast again
 * (`RECOVERED` in a row, each under a quarter of `slowMs`, wake-ups included). A virtual disk shared
 * with other machines slows down in bursts: on the test VM, a burst of 2-5 ms syncs lasting a few
 * hundred milliseconds, or one 20-40 ms stall, sent a lone writer to the thread pool for the rest of
 * the second, where each commit cost it the two wake-ups (+15-30% wall time per commit and +10 µs
 * of CPU over the inline O_DSYNC write, measured alternating the two commit by commit). A hold for
 * another session's commits lasts its time: group commit needs it.
 *
 * A disk can also be slower inline than through the thread pool without being slow by that measure
 * (reported once on the test VM with the machine busy; alternating the two ways commit by commit on
 * it since, inline was as fast or faster in every percentile). So the thread pool's syncs are timed
 * too (issue to callback, the wake-ups included) whenever they run, and after a hold the first
 * `PROBE` inline syncs are compared with them: inline syncs slower than the thread pool's by half
 * again send the writer back to the thread pool for another hold. The probes are compared by their
 * middle two, not their mean: the thread pool's time is a moving average that one hiccup barely
 * moves, while one hiccup among four probes made their mean lose to it, and a writer on a fast
 * disk spent most seconds on the thread pool.
 */
/** Inline syncs after a hold before they are compared with the thread pool's. */
const PROBE = 4;
/** Inline syncs lose to the thread pool's when slower than this many times theirs. */
const POOL_WINS = 1.5;
/** Thread-pool sync times older than this (ms) say nothing about the disk now. */
const POOL_FRESH_MS = 10_000;
/** Fast thread-pool syncs in a row that end a hold for a slow disk. */
const RECOVERED = 16;

export class SyncPacer {
  private average = 0;
  /** Until then syncs go through the thread pool: another session commits, or inline lost to the thread pool. */
  private asyncUntil = -Infinity;
  /** Until then syncs go through the thread pool because the disk was slow (ended early once it is fast). */
  private slowUntil = -Infinity;
  /** Thread-pool syncs in a row under a quarter of slowMs during a slow-disk hold. */
  private fastPooled = 0;
  /** Moving average of the thread pool's sync times (ms), and when the last was timed. */
  private poolAverage = 0;
  private poolAt = -Infinity;
  /** Times (ms, each counted up to twice slowMs) of the inline syncs since the last hold began, up to PROBE. */
  private readonly probes: number[] = [];

  constructor(
    private readonly slowMs: () => number,
    private readonly holdMs: number,
  ) {}

  /** Whether a sync at `now` (performance.now()) runs on the calling thread. */
  inlineAt(now: number): boolean {
    return now >= this.asyncUntil && now >= this.slowUntil;
  }

  /** Syncs from `now` on go through the thread pool for a while (another session commits). */
  hold(now: number): void {
    this.asyncUntil = Math.max(this.asyncUntil, now + this.holdMs);
    this.probes.length = 0;
  }

  /** An inline sync took `ms`, ending at `now`. */
  timed(ms: number, now: number): void {
    const slow = this.slowMs();
    const counted = Math.min(ms, 2 * slow);
    this.average = this.average * 0.9 + counted * 0.1;
    let poolFaster = false;
    if (this.probes.length < PROBE) {
      this.probes.push(counted);
      if (this.probes.length === PROBE && now - this.poolAt < POOL_FRESH_MS) {
        const [, a, b] = this.probes.sort((x, y) => x - y);
        poolFaster = (a! + b!) / 2 > this.poolAverage * POOL_WINS;
      }
    }
    if (ms > slow * 10 || this.average > slow) {
      this.slowUntil = now + this.holdMs;
      this.fastPooled = 0;
    } else if (poolFaster) this.asyncUntil = now + this.holdMs;
    else return;
    this.average = Math.min(this.average, slow / 2);
    this.probes.length = 0;
  }

  /** A sync through the thread pool took `ms` from its call to its callback, ending at `now`. */
  pooled(ms: number, now: number): void {
    const counted = Math.min(ms, 2 * this.slowMs());
    this.poolAverage = now - this.poolAt < POOL_FRESH_MS ? this.poolAverage * 0.9 + counted * 0.1 : counted;
    this.poolAt = now;
    if (now < this.slowUntil) {
      this.fastPooled = ms < this.slowMs() / 4 ? this.fastPooled + 1 : 0;
      if (this.fastPooled >= RECOVERED) this.slowUntil = now;
    }
  }
}
