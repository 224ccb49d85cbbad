/**
 * Who runs a commit's fdatasync: a single writer's on the calling thread (no thread-pool round trip),
 * concurrent sessions' through the thread pool so one fdatasync covers all of them, and a slow disk's
 * through the thread pool too. Whichever it is, no statement resolves before its commit is on disk.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { storeFor } from '../../src/storage/persist/index.js';
import { setSlowSyncMs } from '../../src/storage/persist/wal.js';
import { scratchDirs } from './scratch-dirs.js';

const { fresh, crashCopy } = scratchDirs('quire-inline-sync-');
afterEach(() => setSlowSyncMs(null));

describe('inline fdatasync', () => {
  it('a single writer syncs each commit inline, and each statement resolves durable', async () => {
    // However slow this machine's disk is, every sync counts as fast here.
    setSlowSyncMs(Infinity);
    const dir = fresh();
    const db = await Database.create({ path: dir });
    await db.query('CREATE TABLE t (id int, v float8, s text)');
    const store = storeFor(db.catalog)!;
    const before = store.walStats()!;
    const n = 200;
    for (let i = 0; i < n; i++) {
      await db.query(`INSERT INTO t VALUES (${i}, ${i * 0.5}, 'row-${i}')`);
      const s = store.walStats()!;
      expect(s.durable).toBe(s.lsn);
    }
    const after = store.walStats()!;
    expect(after.lsn - before.lsn).toBe(n);
    expect(after.inlineSyncs - before.inlineSyncs).toBe(n);
    expect(after.syncs - before.syncs).toBe(n);
    const copy = crashCopy(dir);
    const replayed = await Database.create({ path: copy, readOnly: true });
    expect((await replayed.query('SELECT count(*)::int, sum(id)::int, sum(v), max(s) FROM t')).rows).toEqual([[n, (n * (n - 1)) / 2, ((n * (n - 1)) / 2) * 0.5, 'row-99']]);
    await db.close();
  });

  it('concurrent sessions go through the thread pool and share fdatasyncs', async () => {
    setSlowSyncMs(Infinity);
    const dir = fresh();
    const db = await Database.create({ path: dir });
    await db.query('CREATE TABLE g (s int, n int)');
    const store = storeFor(db.catalog)!;
    const before = store.walStats()!;
    const sessions = Array.from({ length: 8 }, () => db.connect());
    await Promise.all(
      sessions.map(async (s, i) => {
        for (let n = 0; n < 20; n++) {
          await s.query(`INSERT INTO g VALUES (${i}, ${n})`);
          const w = store.walStats()!;
          // This session's commit is durable (others' written since may not be yet).
          expect(w.durable).toBeGreaterThanOrEqual(before.lsn + 1);
        }
      }),
    );
    const after = store.walStats()!;
    expect(after.lsn - before.lsn).toBe(160);
    // Sessions interleave within milliseconds: every commit after the first sees another session's.
    expect(after.inlineSyncs - before.inlineSyncs).toBeLessThanOrEqual(1);
    expect(after.syncs - before.syncs).toBeLessThan(160);
    const copy = crashCopy(dir);
    const replayed = await Database.create({ path: copy, readOnly: true });
    expect((await replayed.query('SELECT count(*)::int, count(DISTINCT s * 100 + n)::int FROM g')).rows).toEqual([[160, 160]]);
    await db.close();
  });

  it('after a slow inline fdatasync, syncs go through the thread pool', async () => {
    // Every inline sync counts as slow: after the first, the writer stays on the thread pool.
    setSlowSyncMs(-1);
    const dir = fresh();
    const db = await Database.create({ path: dir });
    await db.query('CREATE TABLE t (id int)');
    const store = storeFor(db.catalog)!;
    const before = store.walStats()!;
    for (let i = 0; i < 20; i++) await db.query(`INSERT INTO t VALUES (${i})`);
    const after = store.walStats()!;
    expect(after.durable).toBe(after.lsn);
    expect(after.syncs - before.syncs).toBe(20);
    // One inline sync a second at most (the hold lasts a second), on a machine slow enough to take that long.
    expect(after.inlineSyncs - before.inlineSyncs).toBeLessThan(5);
    await db.close();
    const again = await Database.create({ path: dir });
    expect((await again.query('SELECT count(*)::int, sum(id)::int FROM t')).rows).toEqual([[20, 190]]);
    await again.close();
  });

  it('a bulk load\'s sync does not count as a slow disk: the single-row commits after it stay inline', async () => {
    setSlowSyncMs(Infinity);
    const dir = fresh();
    const db = await Database.create({ path: dir });
    await db.query('CREATE TABLE t (id int PRIMARY KEY, v float8, s text)');
    const store = storeFor(db.catalog)!;
    // From here every judged inline sync counts as slow: only the bulk load's must not be judged.
    setSlowSyncMs(-1);
    await db.query(`INSERT INTO t SELECT i, i * 0.5, 'row-' || i FROM generate_series(1, 100000) i`);
    const bulk = store.walStats()!;
    expect(bulk.durable).toBe(bulk.lsn);
    // The record is a big one (megabytes): the kind whose sync is not judged.
    expect(bulk.bytes).toBeGreaterThan(1 << 20);
    await db.query('INSERT INTO t VALUES (100001, 1.5, $$one$$)');
    const after = store.walStats()!;
    expect(after.durable).toBe(after.lsn);
    expect(after.inlineSyncs - bulk.inlineSyncs).toBe(1);
    // That commit's own sync is judged (slow), so the next goes through the thread pool, durable all the same.
    await db.query('INSERT INTO t VALUES (100002, 2.5, $$two$$)');
    const next = store.walStats()!;
    expect(next.durable).toBe(next.lsn);
    expect(next.inlineSyncs - after.inlineSyncs).toBe(0);
    await db.close();
    const again = await Database.create({ path: dir });
    expect((await again.query('SELECT count(*)::int, max(id), max(s) FILTER (WHERE id > 100000) FROM t')).rows).toEqual([[100002, 100002, 'two']]);
    await again.close();
  });
});
