/**
 * The write path of small commits and the log's reading: one-row INSERTs fill the table's open last
 * batch (no batch per row, only the row in the log record), scans and transactions that started
 * earlier keep what they saw, concurrent writers still merge, a commit too large for memory_limit
 * fails whole, and replay reads the log through a bounded window, records larger than it included.
 */
import { cpSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { storeFor } from '../../src/storage/persist/index.js';
import { setWalReadChunk, WAL_FILE } from '../../src/storage/persist/wal.js';
import { scratchDirs } from './scratch-dirs.js';

const { fresh, crashCopy } = scratchDirs('quire-commit-path-');
afterEach(() => setWalReadChunk(null));

const batchesOf = (db: Database, name: string): number => db.catalog.getMemoryTable(name).snapshot().length;

describe('small commits', () => {
  it('one-row INSERTs fill the open last batch, log only their row, and come back from the log alone', async () => {
    const dir = fresh();
    const db = await Database.create({ path: dir });
    await db.query('CREATE TABLE t (id int, v float8, s text, b int8, f bool)');
    await db.query("INSERT INTO t SELECT i, i * 0.5, 'row-' || i, i, i % 2 = 0 FROM generate_series(1, 10000) i");
    const before = batchesOf(db, 't');
    const store = storeFor(db.catalog)!;
    const bytesBefore = store.walStats()!.bytes;
    const n = 5000;
    for (let i = 0; i < n; i++) {
      const v = i % 7 === 0 ? 'NULL' : String(i * 0.25);
      const s = i % 5 === 0 ? 'NULL' : `'r-${i}'`;
      // One int8 beyond 2^53 switches its batch's column to plain values: that batch cannot be extended.
      const b = i === 3000 ? '9007199254740993' : String(i);
      await db.query(`INSERT INTO t VALUES (${10001 + i}, ${v}, ${s}, ${b}, ${i % 3 === 0 ? 'NULL' : 'true'})`);
    }
    // 5000 rows in batches of up to 1024 (the table has text columns, whose open batch stays small),
    // not 5000 batches; the widened int8 closes one early.
    expect(batchesOf(db, 't') - before).toBeLessThanOrEqual(6);
    // The log grew by a row and the record's framing per commit (about 150 bytes), not by the open
    // batch (up to 4096 rows) each time.
    expect((store.walStats()!.bytes - bytesBefore) / n).toBeLessThan(250);
    const q = 'SELECT count(*), sum(id), count(v), sum(v), count(s), min(s), max(b)::text, count(f) FROM t';
    const expected = (await db.query(q)).rows;
    expect(expected[0]![0]).toBe(15000);
    const all = (await db.query('SELECT * FROM t ORDER BY id')).rows;
    const copy = crashCopy(dir);
    const replayed = await Database.create({ path: copy, readOnly: true });
    expect((await replayed.query(q)).rows).toEqual(expected);
    expect((await replayed.query('SELECT * FROM t ORDER BY id')).rows).toEqual(all);
    await replayed.close();
    // The replayed writer goes on filling its open batch, and a clean close checkpoints it.
    const writer = await Database.create({ path: crashCopy(dir) });
    for (let i = 0; i < 10; i++) await writer.query(`INSERT INTO t VALUES (${-i}, 1, 'again', 1, false)`);
    expect((await writer.query('SELECT count(*) FROM t')).rows).toEqual([[15010]]);
    await db.close();
    await writer.close();
  });

  it('one-row INSERTs after a bulk load start their own open batch instead of copying the last bulk batch', async () => {
    const dir = fresh();
    const db = await Database.create({ path: dir });
    await db.query('CREATE TABLE t (id int, s text)');
    await db.query("INSERT INTO t SELECT i, 'row-' || i FROM generate_series(1, 10000) i");
    const bulk = db.catalog.getMemoryTable('t').snapshot();
    const bulkLast = bulk[bulk.length - 1]!;
    expect(bulkLast.length).toBeGreaterThanOrEqual(512);
    for (let i = 0; i < 300; i++) await db.query(`INSERT INTO t VALUES (${10001 + i}, 'r-${i}')`);
    const now = db.catalog.getMemoryTable('t').snapshot();
    // The bulk load's batches are kept as they were; the 300 rows are one new batch after them.
    expect(now.slice(0, bulk.length)).toEqual(bulk);
    expect(now[bulk.length - 1]).toBe(bulkLast);
    expect(now.length).toBe(bulk.length + 1);
    expect(now[bulk.length]!.length).toBe(300);
    const q = "SELECT count(*)::int, sum(id)::int, max(id), count(DISTINCT s)::int FROM t";
    const expected = (await db.query(q)).rows;
    expect(expected).toEqual([[10300, (10300 * 10301) / 2, 10300, 10300]]);
    const replayed = await Database.create({ path: crashCopy(dir), readOnly: true });
    expect((await replayed.query(q)).rows).toEqual(expected);
    await db.close();
    const reopened = await Database.create({ path: dir });
    expect((await reopened.query(q)).rows).toEqual(expected);
    await reopened.close();
  });

  it('a scan and a REPEATABLE READ snapshot taken before later commits keep their rows', async () => {
    const db = await Database.create({ path: fresh() });
    await db.query('CREATE TABLE t (id int, s text)');
    for (let i = 1; i <= 10; i++) await db.query(`INSERT INTO t VALUES (${i}, 's${i}')`);
    const stream = (await db.stream('SELECT id, s FROM t')).rows();
    const seen: unknown[][] = [(await stream.next()).value as unknown[]];
    const reader = db.connect();
    await reader.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    expect((await reader.query('SELECT count(*), sum(id) FROM t')).rows).toEqual([[10, 55]]);
    for (let i = 11; i <= 20; i++) await db.query(`INSERT INTO t VALUES (${i}, 's${i}')`);
    // The scan started before those commits: it reads the batch as it was, 10 rows.
    for await (const r of stream) seen.push(r);
    expect(seen.map((r) => r[0])).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect((await reader.query('SELECT count(*), sum(id), max(s) FROM t')).rows).toEqual([[10, 55, 's9']]);
    await reader.query('COMMIT');
    expect((await reader.query('SELECT count(*), sum(id) FROM t')).rows).toEqual([[20, 210]]);
    await db.close();
  });

  it('concurrent transactions: inserts all survive, and an UPDATE keeps rows others committed into the open batch', async () => {
    const dir = fresh();
    const db = await Database.create({ path: dir });
    await db.query('CREATE TABLE t (id int, v int)');
    await db.query('INSERT INTO t VALUES (1, 0)');
    const a = db.connect();
    const b = db.connect();
    await a.query('BEGIN');
    await b.query('BEGIN');
    await a.query('INSERT INTO t VALUES (2, 0)');
    await b.query('INSERT INTO t VALUES (3, 0)');
    await db.query('INSERT INTO t VALUES (4, 0)');
    await a.query('COMMIT');
    await b.query('COMMIT');
    expect((await db.query('SELECT id FROM t ORDER BY id')).rows).toEqual([[1], [2], [3], [4]]);
    // A rewrite in a transaction while autocommit INSERTs extend the open batch: both survive.
    await a.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await a.query('UPDATE t SET v = v + 1');
    await db.query('INSERT INTO t VALUES (5, 0)');
    await db.query('INSERT INTO t VALUES (6, 0)');
    await a.query('COMMIT');
    const want = [[1, 1], [2, 1], [3, 1], [4, 1], [5, 0], [6, 0]];
    expect((await db.query('SELECT id, v FROM t ORDER BY id')).rows).toEqual(want);
    // A transaction that read before those rows came sees them at its next statement (READ COMMITTED).
    await b.query('BEGIN');
    await b.query('INSERT INTO t VALUES (7, 0)');
    await db.query('INSERT INTO t VALUES (8, 0)');
    expect((await b.query('SELECT count(*) FROM t')).rows).toEqual([[8]]);
    await b.query('COMMIT');
    const replayed = await Database.create({ path: crashCopy(dir), readOnly: true });
    expect((await replayed.query('SELECT id, v FROM t ORDER BY id')).rows).toEqual([...want, [7, 0], [8, 0]]);
    await replayed.close();
    await db.close();
  });

  it('a commit whose log record does not fit memory_limit fails whole with 53200', async () => {
    const db = await Database.create({ path: fresh() });
    await db.query('CREATE TABLE t (id int, s text)');
    await db.query("SET memory_limit = '2MB'");
    await expect(db.query("INSERT INTO t SELECT i, repeat('x', 40) || i FROM generate_series(1, 100000) i")).rejects.toMatchObject({
      code: '53200',
      message: 'out of memory',
    });
    expect((await db.query('SELECT count(*) FROM t')).rows).toEqual([[0]]);
    await db.query('RESET memory_limit');
    await db.query("INSERT INTO t SELECT i, repeat('x', 40) || i FROM generate_series(1, 100000) i");
    expect((await db.query('SELECT count(*), count(DISTINCT s) FROM t')).rows).toEqual([[100000, 100000]]);
    await db.close();
  });
});

describe('replay reads the log in bounded chunks', () => {
  it('a log many times the read window, with records larger than it, replays whole', async () => {
    const dir = fresh();
    const db = await Database.create({ path: dir });
    await db.query('CREATE TABLE t (id int, s text)');
    for (let i = 0; i < 300; i++) await db.query(`INSERT INTO t VALUES (${i}, 'v${i}')`);
    // One record of about 200 kB: far larger than the window below.
    await db.query("INSERT INTO t SELECT i, 'bulk-' || i FROM generate_series(1000, 11000) i");
    for (let i = 300; i < 400; i++) await db.query(`INSERT INTO t VALUES (${i}, 'v${i}')`);
    const want = (await db.query('SELECT count(*), sum(id), max(s) FROM t')).rows;
    const copy = crashCopy(dir);
    expect(statSync(join(copy, WAL_FILE)).size).toBeGreaterThan(100 * 1024);
    setWalReadChunk(256);
    const replayed = await Database.create({ path: copy, readOnly: true });
    expect((await replayed.query('SELECT count(*), sum(id), max(s) FROM t')).rows).toEqual(want);
    await replayed.close();
    await db.close();
  });

  it('finds a torn tail and damage followed by valid records across window boundaries', async () => {
    const dir = fresh();
    const db = await Database.create({ path: dir });
    await db.query('CREATE TABLE t (id int)');
    for (let i = 0; i < 200; i++) await db.query(`INSERT INTO t VALUES (${i})`);
    const copy = crashCopy(dir);
    await db.close();
    const log = readFileSync(join(copy, WAL_FILE));
    // Record starts: the magic "QWR1" at record boundaries (the first after the 20-byte header).
    const starts: number[] = [];
    for (let p = log.indexOf('QWR1', 20, 'latin1'); p >= 0; p = log.indexOf('QWR1', p + 1, 'latin1')) starts.push(p);
    expect(starts.length).toBe(201);
    setWalReadChunk(64);
    // Torn tail: the last record cut in half reads as never written.
    const torn = fresh();
    cpSync(copy, torn, { recursive: true });
    writeFileSync(join(torn, WAL_FILE), log.subarray(0, starts[200]! + 10));
    const a = await Database.create({ path: torn, readOnly: true });
    expect((await a.query('SELECT count(*) FROM t')).rows).toEqual([[199]]);
    await a.close();
    // A flipped byte in record 100 with valid records after it: damage, named.
    const bad = fresh();
    cpSync(copy, bad, { recursive: true });
    const flipped = Buffer.from(log);
    const at = starts[100]! + 14;
    flipped[at] = flipped[at]! ^ 0xff;
    writeFileSync(join(bad, WAL_FILE), flipped);
    await expect(Database.create({ path: bad, readOnly: true })).rejects.toMatchObject({ code: 'XX001', message: expect.stringContaining('valid records follow it') });
  });
});
