/**
 * The write-ahead log of a database directory: commits survive kill -9 without a checkpoint (replay),
 * a torn tail record is ignored and cut off, a damaged record followed by valid ones is XX001, a crash
 * or failure at any step of a checkpoint loses and duplicates nothing, read-only opens replay the log
 * without writing, concurrent commits share fsyncs, and every column type comes back from the log.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { storeFor } from '../../src/storage/persist/index.js';
import { setCheckpointHook, type CheckpointStep } from '../../src/storage/persist/store.js';

const CHILD = fileURLToPath(new URL('./wal-child.mjs', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'quire-wal-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const fresh = (): string => join(root, `d${++dirs}`);

/** Runs the child until it kills itself; returns the last acknowledged commit and its output. */
async function runChild(dir: string, label: string, how: string): Promise<{ last: number; out: string }> {
  const p = spawn(process.execPath, [CHILD, dir, label, how], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const signal = await new Promise<NodeJS.Signals | null>((r) => p.once('exit', (_code, sig) => r(sig)));
  expect(signal, out.slice(-500)).toBe('SIGKILL');
  const acks = [...out.matchAll(/^ack (\d+)$/gm)].map((m) => Number(m[1]));
  return { last: acks.length > 0 ? acks[acks.length - 1]! : 0, out };
}

/** What the child's rows must be after `last` acknowledged commits (the next one may be there or not). */
async function expectRows(db: Database, label: string, last: number): Promise<number> {
  const rows = (await db.query(`SELECT n, pad FROM t WHERE who = '${label}' ORDER BY n`)).rows as [number, string][];
  const ns = rows.map(([n]) => n);
  expect(ns.length === last || ns.length === last + 1, `${label}: ${ns.length} rows after ${last} acknowledged commits`).toBe(true);
  expect(ns).toEqual(Array.from({ length: ns.length }, (_, i) => i + 1));
  for (const [n, pad] of rows) {
    // Commit n (a multiple of 5) also updated row n - 1.
    const updated = (n + 1) % 5 === 0 && n + 1 <= ns.length;
    expect(pad, `${label} row ${n}`).toBe(updated ? 'updated' : 'é'.repeat(n % 50));
  }
  return ns.length;
}

/** The directory's files and their bytes (the writer lock, which a failed open may take over and release, aside). */
function snapshot(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f !== 'lock' && f !== 'lock.holder')
    .sort()
    .map((f) => `${f}:${statSync(join(dir, f)).isFile() ? readFileSync(join(dir, f)).toString('base64') : 'dir'}`);
}

/** Byte offsets of the log's records and the end of the last one (header 20 bytes, record head 12, zeros after the end). */
function recordOffsets(file: string): { offsets: number[]; end: number } {
  const buf = readFileSync(file);
  const offsets: number[] = [];
  let p = 20;
  for (; p + 12 <= buf.length && buf.toString('latin1', p, p + 4) === 'QWR1'; p += 12 + buf.readUInt32LE(p + 4)) offsets.push(p);
  return { offsets, end: p };
}

describe('write-ahead log', () => {
  it('replays acknowledged commits after kill -9; a read-only open replays them without writing anything', async () => {
    const dir = fresh();
    const { last } = await runChild(dir, 'a', 'after:120');
    expect(last).toBe(120);
    // The last commits are only in the log (checkpoints ran every few KB before them).
    expect(statSync(join(dir, 'wal')).size).toBeGreaterThan(20);
    const manifestLsn = (JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { lsn: number }).lsn;
    expect(manifestLsn).toBeGreaterThan(0);

    const before = snapshot(dir);
    const reader = await Database.create({ path: dir, readOnly: true });
    expect(await expectRows(reader, 'a', last)).toBe(120);
    await expect(reader.query(`INSERT INTO t VALUES ('x', 1, '')`)).rejects.toMatchObject({ code: '25006' });
    await reader.close();
    expect(snapshot(dir), 'a read-only open writes nothing').toEqual(before);

    const db = await Database.create({ path: dir });
    expect(await expectRows(db, 'a', last)).toBe(120);
    await db.close();
    // A clean close checkpoints: the log is empty again and the manifest covers everything.
    expect(statSync(join(dir, 'wal')).size).toBe(20);
    const again = await Database.create({ path: dir });
    expect(await expectRows(again, 'a', last)).toBe(120);
    await again.close();
  }, 60_000);

  it('ignores a torn tail record and cuts it off before appending', async () => {
    const dir = fresh();
    await runChild(dir, 'a', 'after:10');
    const wal = join(dir, 'wal');
    const { offsets, end } = recordOffsets(wal);
    // The last record (commit 10: insert 10, update 9) loses its last 7 bytes, as if the process died mid-write.
    truncateSync(wal, end - 7);
    let db = await Database.create({ path: dir });
    expect((await db.query(`SELECT n, pad FROM t ORDER BY n`)).rows.map((r) => r[0])).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect((await db.query(`SELECT pad FROM t WHERE n = 9`)).rows).toEqual([['é'.repeat(9)]]);
    // The writer cut the log at the last whole record.
    expect(statSync(wal).size).toBe(offsets[offsets.length - 1]);
    await db.query(`INSERT INTO t VALUES ('a', 10, 'after the tear')`);
    const reader = await Database.create({ path: dir, readOnly: true });
    expect((await reader.query(`SELECT count(*)::int, max(pad) FROM t WHERE n = 10`)).rows).toEqual([[1, 'after the tear']]);
    await db.close();

    // A half-written record head at the end is a torn tail too.
    await runChild(dir, 'b', 'after:3');
    appendFileSync(wal, Buffer.from('QWR1\x40', 'latin1'));
    db = await Database.create({ path: dir });
    expect(await expectRows(db, 'b', 3)).toBe(3);
    await db.close();
  }, 60_000);

  it('a damaged record followed by valid ones is XX001 naming the log; nothing is deleted', async () => {
    const dir = fresh();
    await runChild(dir, 'a', 'after:10');
    const wal = join(dir, 'wal');
    const { offsets } = recordOffsets(wal);
    expect(offsets.length).toBeGreaterThanOrEqual(10);
    const buf = readFileSync(wal);
    buf[offsets[3]! + 12 + 9] ^= 0x40;
    writeFileSync(wal, buf);
    const before = snapshot(dir);
    for (const readOnly of [false, true]) {
      const err = await Database.create({ path: dir, readOnly }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: 'XX001' });
      expect((err as Error).message).toMatch(/write-ahead log "wal" is corrupt: record \d+ at byte \d+ is damaged and valid records follow it/);
    }
    expect(snapshot(dir)).toEqual(before);
  }, 60_000);

  const steps: CheckpointStep[] = ['start', 'tables-written', 'manifest-written', 'log-rotated'];
  for (const step of steps) {
    it(`kill -9 at checkpoint step "${step}" loses and duplicates nothing, and the directory goes on`, async () => {
      const dir = fresh();
      const first = await runChild(dir, 'a', step);
      expect(first.out).toContain(`dying at ${step}`);
      expect(first.last).toBeGreaterThan(0);
      const db = await Database.create({ path: dir });
      const had = await expectRows(db, 'a', first.last);
      expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
      await db.close();
      // Writing on after recovery: new records must not carry LSNs the manifest already covers.
      const second = await runChild(dir, 'b', 'after:30');
      const again = await Database.create({ path: dir });
      expect(await expectRows(again, 'a', had)).toBe(had);
      expect(await expectRows(again, 'b', second.last)).toBe(30);
      await again.close();
    }, 60_000);
  }

  for (const step of steps) {
    it(`a checkpoint failing at step "${step}" leaves the commit and later ones intact`, async () => {
      const dir = fresh();
      const db = await Database.create({ path: dir, checkpointBytes: 4096 });
      await db.query(`CREATE TABLE t (n int, s text)`);
      let failures = 0;
      setCheckpointHook((s) => {
        if (s === step && failures < 2) {
          failures++;
          throw new Error(`injected failure at ${s}`);
        }
      });
      try {
        for (let n = 1; n <= 200; n++) await db.query(`INSERT INTO t VALUES (${n}, repeat('x', ${n}))`);
        await db.query(`DELETE FROM t WHERE n % 10 = 0`);
        await db.query(`UPDATE t SET s = 'u' WHERE n = 7`);
      } finally {
        setCheckpointHook(null);
      }
      expect(failures).toBe(2);
      const expected = (await db.query(`SELECT n, s FROM t ORDER BY n`)).rows;
      expect(expected.length).toBe(180);
      // What a crash now would find: the reader replays from whatever the failed checkpoint left.
      const reader = await Database.create({ path: dir, readOnly: true });
      expect((await reader.query(`SELECT n, s FROM t ORDER BY n`)).rows).toEqual(expected);
      await db.close();
      const again = await Database.create({ path: dir });
      expect((await again.query(`SELECT n, s FROM t ORDER BY n`)).rows).toEqual(expected);
      await again.close();
    }, 60_000);
  }

  it('group commit: concurrent sessions share fsyncs, and every commit is there', async () => {
    const dir = fresh();
    const db = await Database.create({ path: dir });
    await db.query(`CREATE TABLE g (s int, n int)`);
    const store = storeFor(db.catalog)!;
    const before = store.walStats()!;
    const sessions = Array.from({ length: 16 }, () => db.connect());
    await Promise.all(
      sessions.map(async (s, i) => {
        for (let n = 0; n < 10; n++) await s.query(`INSERT INTO g VALUES (${i}, ${n})`);
      }),
    );
    const after = store.walStats()!;
    expect(after.lsn - before.lsn).toBe(160);
    // Commits that arrived while an fsync was in flight waited for the next one together.
    expect(after.syncs - before.syncs).toBeLessThan(160);
    const reader = await Database.create({ path: dir, readOnly: true });
    expect((await reader.query(`SELECT count(*)::int, count(DISTINCT s * 100 + n)::int FROM g`)).rows).toEqual([[160, 160]]);
    await db.close();
  });

  it('a bulk INSERT … SELECT goes in column by column: casts, column order, NOT NULL, and back from the log', async () => {
    const dir = fresh();
    const db = await Database.create({ path: dir });
    await db.query(`CREATE TABLE bulk (a int NOT NULL, f float8, s text)`);
    // Columns named out of order; numeric and int8 results cast to the table's types.
    await db.query(`INSERT INTO bulk (s, f, a) SELECT 'v' || i, i * 0.5, i::int8 FROM generate_series(1, 20000) i`);
    await expect(db.query(`INSERT INTO bulk SELECT CASE WHEN i = 7 THEN NULL ELSE i END, 0, '' FROM generate_series(1, 10) i`)).rejects.toMatchObject({
      code: '23502',
      message: 'null value in column "a" of relation "bulk" violates not-null constraint',
    });
    await expect(db.query(`INSERT INTO bulk SELECT 3000000000, 0, ''`)).rejects.toMatchObject({ code: '22003' });
    const want = [[20000, 20000 * 20001 * 0.25, 'v9999', 200010000]];
    const q = `SELECT count(*)::int, sum(f), max(s), sum(a)::int FROM bulk`;
    expect((await db.query(q)).rows).toEqual(want);
    const reader = await Database.create({ path: dir, readOnly: true });
    expect((await reader.query(q)).rows).toEqual(want);

    // UPDATE and DELETE of one row log the one batch they rewrote, not the table (5 batches of 4096 rows).
    const store = storeFor(db.catalog)!;
    for (const sql of [`UPDATE bulk SET s = 'changed' WHERE a = 5000`, `DELETE FROM bulk WHERE a = 15000`]) {
      const before = store.walStats()!.bytes;
      await db.query(sql);
      const grew = store.walStats()!.bytes - before;
      expect(grew, sql).toBeGreaterThan(0);
      expect(grew, sql).toBeLessThan(120_000);
    }
    const check = `SELECT count(*)::int, count(*) FILTER (WHERE s = 'changed')::int, count(*) FILTER (WHERE a = 15000)::int FROM bulk`;
    expect((await db.query(check)).rows).toEqual([[19999, 1, 0]]);
    expect((await (await Database.create({ path: dir, readOnly: true })).query(check)).rows).toEqual([[19999, 1, 0]]);
    await db.close();
  });

  it('every column type, DDL, UPDATE, DELETE and views come back from the log alone', async () => {
    const dir = fresh();
    const db = await Database.create({ path: dir });
    await db.query(`CREATE TABLE ty (i int, s int2, b int8, f float8, r real, n numeric(12,3), t text, v varchar(5), ok bool,
      d date, ts timestamp, tz timestamptz, iv interval, j json, a int[], ta text[])`);
    await db.query(`INSERT INTO ty VALUES
      (1, 2, 9223372036854775807, 'NaN', -0.5, 12.345, 'héllo ☃', 'abc', true, '2024-02-29', '2024-01-01 12:00:00.123456', '2024-01-01 00:00:00+05', '1 year 2 days 03:04:05', '{"k": [1, null]}', '{1,NULL,3}', '{"a b",NULL,"ü"}'),
      (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (-3, -4, -9007199254740993, 'Infinity', 1e30, -0.001, '', '', false, '0001-01-01', '1999-12-31 23:59:59', '1970-01-01 00:00:00+00', '-1 day', '[]', '{}', '{}')`);
    await db.query(`INSERT INTO ty (i, t) SELECT g, 'row ' || g FROM generate_series(10, 9000) g`);
    await db.query(`CREATE TABLE gone AS SELECT 1 AS x`);
    await db.query(`CREATE TABLE kept (k serial PRIMARY KEY, x int NOT NULL DEFAULT 5)`);
    await db.query(`INSERT INTO kept (x) VALUES (1), (2), (3)`);
    await db.query(`DROP TABLE gone`);
    await db.query(`DELETE FROM ty WHERE i BETWEEN 100 AND 200 OR i = -3`);
    await db.query(`UPDATE ty SET t = upper(t) WHERE i < 20`);
    await db.query(`CREATE VIEW tv AS SELECT i, t FROM ty WHERE i < 15`);
    await db.query(`BEGIN; INSERT INTO kept (x) VALUES (4); ROLLBACK`);
    // Nothing above is checkpointed: the writer is still open.
    expect(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8') as string)).toMatchObject({ tables: [] });
    const queries = [`SELECT * FROM ty ORDER BY i NULLS FIRST, t`, `SELECT * FROM kept ORDER BY k`, `SELECT * FROM tv ORDER BY i`];
    const want = await Promise.all(queries.map(async (q) => (await db.query(q)).rows));
    const reader = await Database.create({ path: dir, readOnly: true });
    for (let k = 0; k < queries.length; k++) expect((await reader.query(queries[k]!)).rows, queries[k]).toEqual(want[k]);
    expect(reader.listTables().map((t) => t.name)).not.toContain('gone');
    await db.close();
    // After the clean close's checkpoint: the same rows, and constraints and defaults came back too.
    const again = await Database.create({ path: dir });
    for (let k = 0; k < queries.length; k++) expect((await again.query(queries[k]!)).rows, queries[k]).toEqual(want[k]);
    await expect(again.query(`INSERT INTO kept (k, x) VALUES (1, 1)`)).rejects.toMatchObject({ code: '23505' });
    await expect(again.query(`INSERT INTO kept (x) VALUES (NULL)`)).rejects.toMatchObject({ code: '23502' });
    await again.query(`INSERT INTO kept DEFAULT VALUES`);
    expect((await again.query(`SELECT k, x FROM kept ORDER BY k DESC LIMIT 1`)).rows[0]![1]).toBe(5);
    await again.close();
  });
});
