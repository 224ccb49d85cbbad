/**
 * When a single writer's syncs leave the calling thread for the thread pool, and when they come back:
 * fed the times inline syncs took, as a commit loop on a busy machine would see them.
 */
import { describe, expect, it } from 'vitest';
import { SyncPacer } from '../../src/storage/persist/sync-pacer.js';

/** Commits every `gapMs`, each inline one taking `syncMs(i)`: per commit, its time and whether it synced inline. */
function run(p: SyncPacer, commits: number, gapMs: number, syncMs: (i: number) => number): { at: number; inline: boolean }[] {
  const out: { at: number; inline: boolean }[] = [];
  let now = 0;
  for (let i = 0; i < commits; i++) {
    const inline = p.inlineAt(now);
    out.push({ at: now, inline });
    if (inline) {
      const ms = syncMs(i);
      now += ms;
      p.timed(ms, now);
    } else now += 0.2;
    now += gapMs;
  }
  return out;
}

/** How many of `commits` synced inline in each second of the run. */
function inlinePerSecond(commits: readonly { at: number; inline: boolean }[]): number[] {
  const out: number[] = [];
  for (const c of commits) {
    const s = Math.floor(c.at / 1000);
    out[s] = (out[s] ?? 0) + (c.inline ? 1 : 0);
  }
  return out;
}

/** As run(), with the thread pool's syncs timed too: each takes `poolMs`. */
function runTimed(p: SyncPacer, commits: number, gapMs: number, inlineMs: number, poolMs: number): { at: number; inline: boolean }[] {
  const out: { at: number; inline: boolean }[] = [];
  let now = 0;
  for (let i = 0; i < commits; i++) {
    const inline = p.inlineAt(now);
    out.push({ at: now, inline });
    now += inline ? inlineMs : poolMs;
    if (inline) p.timed(inlineMs, now);
    else p.pooled(poolMs, now);
    now += gapMs;
  }
  return out;
}

/** As runTimed(), each commit's sync taking `inlineMs(i)` inline or `poolMs(i)` through the thread pool. */
function runBoth(p: SyncPacer, commits: number, gapMs: number, inlineMs: (i: number) => number, poolMs: (i: number) => number): { at: number; inline: boolean }[] {
  const out: { at: number; inline: boolean }[] = [];
  let now = 0;
  for (let i = 0; i < commits; i++) {
    const inline = p.inlineAt(now);
    out.push({ at: now, inline });
    const ms = inline ? inlineMs(i) : poolMs(i);
    now += ms;
    if (inline) p.timed(ms, now);
    else p.pooled(ms, now);
    now += gapMs;
  }
  return out;
}

describe('sync pacer', () => {
  it('a fast disk stays inline, the first writes of new log blocks included', () => {
    const p = new SyncPacer(() => 2, 1000);
    // 0.15 ms syncs, and one of 5.5 ms every 47 commits (the first write into a new 4 KB block).
    const commits = run(p, 20_000, 0.06, (i) => (i % 47 === 0 ? 5.5 : 0.15));
    expect(commits.every((c) => c.inline)).toBe(true);
  });

  it('one stall holds the thread pool for one second, not for as long as the average takes to decay', () => {
    const p = new SyncPacer(() => 2, 1000);
    // A 36 ms stall at commit 100 (the process descheduled), fast syncs otherwise.
    const commits = run(p, 30_000, 0.06, (i) => (i === 100 ? 36 : 0.15));
    const stallEnd = commits[101]!.at;
    const pooled = commits.filter((c) => !c.inline);
    expect(pooled.length).toBeGreaterThan(1000);
    // Every commit after the hold syncs inline again. Counted whole in the average, that stall kept
    // the writer on the thread pool for about six seconds (one inline sync a second decaying it).
    expect(pooled.at(-1)!.at).toBeLessThan(stallEnd + 1000);
    expect(commits.at(-1)!.at).toBeGreaterThan(stallEnd + 3000);
  });

  it('a disk that stays slow is caught again within a few inline syncs after each hold', () => {
    const p = new SyncPacer(() => 2, 1000);
    const perSecond = inlinePerSecond(run(p, 20_000, 0.06, () => 5));
    expect(perSecond.length).toBeGreaterThan(3);
    // A few syncs a second stall the event loop (5 ms each), never most of them.
    for (const n of perSecond.slice(1, -1)) {
      expect(n).toBeGreaterThan(0);
      expect(n).toBeLessThanOrEqual(6);
    }
  });

  it('a second session holds the thread pool for the hold time', () => {
    const p = new SyncPacer(() => 2, 1000);
    p.hold(5000);
    expect(p.inlineAt(5999)).toBe(false);
    expect(p.inlineAt(6000)).toBe(true);
    // A hold never shortens one already longer.
    p.hold(7000);
    p.hold(6500);
    expect(p.inlineAt(7999)).toBe(false);
  });

  it('inline syncs slower than the thread pool\'s (but not slow) send a single writer to the thread pool, probing inline a few times a second', () => {
    const p = new SyncPacer(() => 2, 1000);
    // Something held the thread pool first (another session), so its syncs were timed: 0.1 ms.
    p.hold(0);
    // Inline syncs of 1.5 ms (under the 2 ms threshold), thread-pool ones of 0.1 ms.
    const commits = runTimed(p, 40_000, 0.05, 1.5, 0.1);
    const perSecond = inlinePerSecond(commits);
    expect(perSecond.length).toBeGreaterThan(3);
    for (const n of perSecond.slice(1, -1)) {
      expect(n).toBeGreaterThan(0);
      expect(n).toBeLessThanOrEqual(4);
    }
    expect(commits.filter((c) => !c.inline).length).toBeGreaterThan(commits.length * 0.9);
  });

  it('inline syncs faster than the thread pool\'s stay inline after a hold', () => {
    const p = new SyncPacer(() => 2, 1000);
    p.hold(0);
    const commits = runTimed(p, 40_000, 0.05, 0.07, 0.3);
    const after = commits.filter((c) => c.at >= 1000);
    expect(after.length).toBeGreaterThan(1000);
    expect(after.every((c) => c.inline)).toBe(true);
  });

  it('thread-pool times from long ago are not compared with', () => {
    const p = new SyncPacer(() => 2, 1000);
    p.hold(0);
    p.pooled(0.1, 500);
    // 20 s later, inline syncs of 1.5 ms: nothing recent says the thread pool is faster.
    const later = 20_000;
    let now = later;
    for (let i = 0; i < 100; i++) {
      expect(p.inlineAt(now)).toBe(true);
      now += 1.5;
      p.timed(1.5, now);
    }
  });

  it('a hold for a slow disk ends once the thread pool\'s syncs are fast again', () => {
    const p = new SyncPacer(() => 2, 1000);
    // A burst of 5 ms syncs (commits 1000-1199, either way), 0.05 ms ones before and after it.
    const slow = (i: number) => (i >= 1000 && i < 1200 ? 5 : 0.05);
    const commits = runBoth(p, 5000, 0.02, slow, slow);
    const pooled = commits.map((c, i) => ({ ...c, i })).filter((c) => !c.inline);
    expect(pooled.length).toBeGreaterThan(0);
    // Held through the burst, back inline 16 fast thread-pool syncs after it rather than a second later.
    expect(pooled[0]!.i).toBeGreaterThanOrEqual(1000);
    expect(pooled[0]!.i).toBeLessThan(1010);
    expect(pooled.at(-1)!.i).toBeGreaterThanOrEqual(1200);
    expect(pooled.at(-1)!.i).toBeLessThan(1200 + 16 + 1);
    expect(commits.slice(1217).every((c) => c.inline)).toBe(true);
  });

  it('one stall, fast syncs around it, costs a few thread-pool syncs, not the rest of the second', () => {
    const p = new SyncPacer(() => 2, 1000);
    const commits = runBoth(p, 5000, 0.02, (i) => (i === 100 ? 36 : 0.05), () => 0.06);
    expect(commits.filter((c) => !c.inline).length).toBe(16);
  });

  it('a disk that stays slow through the thread pool keeps its hold for the hold time', () => {
    const p = new SyncPacer(() => 2, 1000);
    const commits = runBoth(p, 5000, 0.02, () => 5, () => 1);
    const perSecond = inlinePerSecond(commits);
    expect(perSecond.length).toBeGreaterThan(3);
    for (const n of perSecond.slice(1, -1)) expect(n).toBeLessThanOrEqual(6);
  });

  it('one hiccup among the inline probes does not send a writer on a fast disk to the thread pool', () => {
    const p = new SyncPacer(() => 2, 1000);
    p.hold(0);
    // Thread-pool syncs of 0.06 ms during the hold; inline ones of 0.05 ms, every 7th a 3 ms hiccup.
    const commits = runBoth(p, 60_000, 0.02, (i) => (i % 7 === 0 ? 3 : 0.05), () => 0.06);
    const after = commits.filter((c) => c.at >= 1000);
    expect(after.length).toBeGreaterThan(1000);
    expect(after.every((c) => c.inline)).toBe(true);
  });
});
