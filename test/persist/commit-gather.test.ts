/**
 * When group commit's next fdatasync starts: once every writer the last one acknowledged has written
 * again, or after one timer tick; at once where waiting cannot pay (one writer, a fast disk, writers
 * that pause between commits). Then, through the log: sessions committing in a loop share each
 * fdatasync all together instead of taking turns in two halves.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { CommitGather } from '../../src/storage/persist/commit-gather.js';
import { storeFor } from '../../src/storage/persist/index.js';
import { setGatherFromMs, setSlowSyncMs } from '../../src/storage/persist/wal.js';
import { scratchDirs } from './scratch-dirs.js';

const { fresh, crashCopy } = scratchDirs('quire-commit-gather-');
afterEach(() => {
  setGatherFromMs(null);
  setSlowSyncMs(null);
});

/** A gather whose last fdatasync (taking `ms`) acknowledged `writers`. */
function after(writers: object[], ms = 5, waitMs = 10_000): CommitGather {
  const g = new CommitGather(() => 1, waitMs, 100);
  for (const w of writers) g.wrote(w);
  g.started();
  g.finished(ms);
  return g;
}

/** Whether `p` has resolved once pending microtasks ran. */
async function settled(p: Promise<void>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
}

describe('commit gather', () => {
  it('waits until every writer the last fdatasync acknowledged has written again', async () => {
    const [a, b, c] = [{}, {}, {}];
    const g = after([a, b, c]);
    g.wrote(a);
    const p = g.wait(performance.now());
    expect(p).not.toBeNull();
    g.wrote(b);
    expect(await settled(p!)).toBe(false);
    g.wrote(c);
    expect(await settled(p!)).toBe(true);
  });

  it('starts at once with fewer than two writers expected, on a fast disk, or when all are back', () => {
    const [a, b] = [{}, {}];
    expect(after([a]).wait(0)).toBeNull();
    expect(after([a, b], 0.2).wait(0)).toBeNull();
    const g = after([a, b]);
    g.wrote(a);
    g.wrote(b);
    expect(g.wait(0)).toBeNull();
  });

  it('a writer that does not come back within the tick is not waited for next time', async () => {
    const [a, b, c] = [{}, {}, {}];
    const g = after([a, b, c], 5, 5);
    g.wrote(a);
    g.wrote(b);
    const p = g.wait(performance.now())!;
    await p;
    // The fdatasync covered a and b only: c is not expected for the next one.
    g.started();
    g.finished(5);
    g.wrote(a);
    g.wrote(b);
    expect(g.wait(performance.now())).toBeNull();
  });

  it('a wait that ran out with nobody back turns waiting off for a while', async () => {
    const [a, b] = [{}, {}];
    const g = after([a, b], 5, 5);
    await g.wait(performance.now())!;
    // Nobody wrote: a later fdatasync that covers both again does not wait.
    g.wrote(a);
    g.wrote(b);
    g.started();
    g.finished(5);
    g.wrote(a);
    expect(g.wait(performance.now())).toBeNull();
  });

  it('flush starts a waiting fdatasync at once', async () => {
    const g = after([{}, {}], 5, 60_000);
    const p = g.wait(performance.now())!;
    g.flush();
    expect(await settled(p)).toBe(true);
  });

  it('sessions committing in a loop share each fdatasync all together, and every commit is durable when acknowledged', async () => {
    setGatherFromMs(0);
    setSlowSyncMs(Infinity);
    const dir = fresh();
    const db = await Database.create({ path: dir });
    await db.query('CREATE TABLE g (s int, n int)');
    const store = storeFor(db.catalog)!;
    const before = store.walStats()!;
    const SESSIONS = 8;
    const PER = 25;
    const sessions = Array.from({ length: SESSIONS }, () => db.connect());
    await Promise.all(
      sessions.map(async (s, i) => {
        for (let n = 0; n < PER; n++) {
          await s.query('INSERT INTO g VALUES ($1, $2)', [i, n]);
          const w = store.walStats()!;
          expect(w.durable).toBeGreaterThanOrEqual(before.lsn + n + 1);
        }
      }),
    );
    const after = store.walStats()!;
    const commits = SESSIONS * PER;
    expect(after.lsn - before.lsn).toBe(commits);
    // Taking turns in two halves would be one fdatasync per 4 commits; together, about one per 8.
    expect(after.syncs - before.syncs).toBeLessThanOrEqual(commits / 6);
    const replayed = await Database.create({ path: crashCopy(dir), readOnly: true });
    expect((await replayed.query('SELECT count(*)::int, count(DISTINCT s * 100 + n)::int FROM g')).rows).toEqual([[commits, commits]]);
    await replayed.close();
    await db.close();
  });

  it('closing the database while an fdatasync waits for writers acknowledges what was written', async () => {
    setGatherFromMs(0);
    setSlowSyncMs(Infinity);
    const dir = fresh();
    const db = await Database.create({ path: dir });
    await db.query('CREATE TABLE g (s int, n int)');
    const sessions = Array.from({ length: 3 }, () => db.connect());
    // A round of all three: the next fdatasync expects them all back.
    await Promise.all(sessions.map((s, i) => s.query('INSERT INTO g VALUES ($1, 0)', [i])));
    // One comes back; the others never do before the close.
    const lone = sessions[0]!.query('INSERT INTO g VALUES ($1, $2)', [0, 1]);
    // Written before query() first awaits: the record is in the log, its fdatasync waiting for the others.
    expect(storeFor(db.catalog)!.walStats()!.lsn - storeFor(db.catalog)!.walStats()!.durable).toBe(1);
    await db.close();
    const outcome = await Promise.race([lone.then(() => 'acknowledged'), new Promise((r) => setTimeout(() => r('hung'), 5000))]);
    expect(outcome).toBe('acknowledged');
    const reopened = await Database.create({ path: dir, readOnly: true });
    expect((await reopened.query('SELECT s, n FROM g ORDER BY s, n')).rows).toEqual([[0, 0], [0, 1], [1, 0], [2, 0]]);
    await reopened.close();
  });
});
