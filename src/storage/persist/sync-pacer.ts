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
 * A disk can also be slower inline than through the thread pool without being slow by that measure:
 * on the test VM, with the machine busy, fdatasyncs on the event loop's thread took a median 1-4 ms in
 * most rounds while the thread pool's took 0.09 ms (5 rounds of 500 each, alternated; when it was quiet
 * the inline ones took 0.07 ms and won). So the thread pool's syncs are timed too (issue to callback,
 * the wake-ups included) whenever they run, and after a hold the first `PROBE` inline syncs are
 * compared with them: inline syncs slower on average than the thread pool's by half again send the
 * writer back to the thread pool for another hold. Each hold thus costs a probe of a few inline syncs
 * a second, and a single writer takes whichever way is faster on this disk now.
 */
/** Inline syncs after a hold before they are compared with the thread pool's. */
const PROBE = 4;
/** Inline syncs lose to the thread pool's when slower on average than this many times theirs. */
const POOL_WINS = 1.5;
/** Thread-pool sync times older than this (ms) say nothing about the disk now. */
const POOL_FRESH_MS = 10_000;

export class SyncPacer {
  private average = 0;
  /** Until then syncs go through the thread pool. */
  private asyncUntil = -Infinity;
  /** Moving average of the thread pool's sync times (ms), and when the last was timed. */
  private poolAverage = 0;
  private poolAt = -Infinity;
  /** Inline syncs since the last hold began, and their total time (each counted up to twice slowMs). */
  private probes = 0;
  private probeMs = 0;

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
    this.probes = 0;
    this.probeMs = 0;
  }

  /** An inline sync took `ms`, ending at `now`. */
  timed(ms: number, now: number): void {
    const slow = this.slowMs();
    const counted = Math.min(ms, 2 * slow);
    this.average = this.average * 0.9 + counted * 0.1;
    let poolFaster = false;
    if (this.probes < PROBE) {
      this.probes++;
      this.probeMs += counted;
      poolFaster = this.probes === PROBE && now - this.poolAt < POOL_FRESH_MS && this.probeMs / PROBE > this.poolAverage * POOL_WINS;
    }
    if (ms > slow * 10 || this.average > slow || poolFaster) {
      this.asyncUntil = now + this.holdMs;
      this.average = Math.min(this.average, slow / 2);
      this.probes = 0;
      this.probeMs = 0;
    }
  }

  /** A sync through the thread pool took `ms` from its call to its callback, ending at `now`. */
  pooled(ms: number, now: number): void {
    const counted = Math.min(ms, 2 * this.slowMs());
    this.poolAverage = now - this.poolAt < POOL_FRESH_MS ? this.poolAverage * 0.9 + counted * 0.1 : counted;
    this.poolAt = now;
  }
}
