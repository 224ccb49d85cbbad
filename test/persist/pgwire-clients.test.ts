/**
 * Many pgwire clients committing at once, each its own autocommit loop of single-row INSERTs (as
 * parameters through Parse/Bind/Execute/Sync, and as literal simple queries): their commits share
 * fdatasyncs, and no reply leaves before the commit it acknowledges is on disk. Checked in process
 * (fewer fdatasyncs than commits, every row back from a copy of the directory taken while the server
 * still runs) and across kill -9 of a server process (every acknowledged row there after reopening,
 * none that was never sent).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { startPgServer } from '../../src/server/pgwire/index.js';
import { storeFor } from '../../src/storage/persist/index.js';
import { scratchDirs } from './scratch-dirs.js';

const { fresh, crashCopy } = scratchDirs('quire-pgwire-clients-');
const CLIENTS = 8;

async function connectAll(port: number): Promise<pg.Client[]> {
  const clients = Array.from({ length: CLIENTS }, () => new pg.Client({ host: '127.0.0.1', port, user: 'quire', database: 'quire' }));
  // A client whose server is killed reports the broken socket as an 'error' event as well as by its query.
  for (const c of clients) c.on('error', () => undefined);
  await Promise.all(clients.map((c) => c.connect()));
  return clients;
}

/** Client k's n-th INSERT: even ones with parameters, odd ones as literal simple queries. */
function insert(c: pg.Client, k: number, n: number): Promise<unknown> {
  return n % 2 === 0 ? c.query('INSERT INTO pc VALUES ($1, $2, $3)', [k, n, `c${k}-${n}`]) : c.query(`INSERT INTO pc VALUES (${k}, ${n}, 'c${k}-${n}')`);
}

describe('concurrent pgwire clients', () => {
  it('share fdatasyncs, and every acknowledged row is in the log', async () => {
    const dir = fresh();
    const db = await Database.create({ path: dir });
    await db.query('CREATE TABLE pc (c int, n int, s text)');
    const server = await startPgServer(db, { port: 0, allowWrites: true });
    const clients = await connectAll(server.port);
    const store = storeFor(db.catalog)!;
    const before = store.walStats()!;
    const PER = 40;
    await Promise.all(
      clients.map(async (c, k) => {
        for (let n = 0; n < PER; n++) {
          await insert(c, k, n);
          // The reply came: the commit it acknowledges is on disk.
          const w = store.walStats()!;
          expect(w.durable).toBeGreaterThanOrEqual(before.lsn + n + 1);
        }
      }),
    );
    const after = store.walStats()!;
    const commits = CLIENTS * PER;
    expect(after.lsn - before.lsn).toBe(commits);
    // Clients interleave: commits written while an fdatasync runs wait for the next one together.
    expect(after.syncs - before.syncs).toBeLessThan(commits / 2);
    // As a crash would leave the directory, with the server still running.
    const replayed = await Database.create({ path: crashCopy(dir), readOnly: true });
    expect((await replayed.query('SELECT count(*)::int, count(DISTINCT c * 1000 + n)::int, count(*) FILTER (WHERE s = \'c\' || c || \'-\' || n)::int FROM pc')).rows).toEqual([[commits, commits, commits]]);
    await replayed.close();
    await Promise.all(clients.map((c) => c.end()));
    await server.close();
    await db.close();
  }, 60_000);

  it('kill -9 of the server keeps every acknowledged row and adds none never sent', async () => {
    const dir = fresh();
    const child = fileURLToPath(new URL('./crash-server.mjs', import.meta.url));
    const acked = new Set<number>();
    const sent = new Set<number>();
    const ROUNDS = 3;
    for (let round = 1; round <= ROUNDS; round++) {
      const p = spawn(process.execPath, [child, dir, `pc${round}`], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      const port = await new Promise<number>((resolve, reject) => {
        p.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /port (\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        p.once('exit', () => reject(new Error(`server exited early: ${out}`)));
      });
      const exited = new Promise<void>((resolve) => p.once('exit', () => resolve()));
      const clients = await connectAll(port);
      await clients[0]!.query('CREATE TABLE IF NOT EXISTS pc (c int, n int, s text)');
      // Killed once this many more rows are acknowledged, in the middle of the clients' loops.
      const killAt = acked.size + 150 + round * 50;
      let killed = false;
      await Promise.all(
        clients.map(async (c, k) => {
          for (let n = round * 10_000; !killed; n++) {
            const key = k * 1_000_000 + n;
            sent.add(key);
            try {
              await insert(c, k, n);
            } catch {
              // The server is gone: this INSERT was never acknowledged.
              return;
            }
            acked.add(key);
            if (acked.size >= killAt && !killed) {
              killed = true;
              p.kill('SIGKILL');
            }
          }
        }),
      );
      await exited;
      for (const c of clients) void c.end().catch(() => undefined);
      const reopened = await Database.create({ path: dir, readOnly: true });
      const rows = (await reopened.query('SELECT c, n, s FROM pc')).rows as [number, number, string][];
      await reopened.close();
      const present = new Set<number>();
      for (const [c, n, s] of rows) {
        const key = c * 1_000_000 + n;
        expect(s).toBe(`c${c}-${n}`);
        expect(present.has(key)).toBe(false);
        present.add(key);
      }
      const lost = [...acked].filter((key) => !present.has(key));
      const invented = [...present].filter((key) => !sent.has(key));
      expect({ round, lost: lost.slice(0, 5), invented: invented.slice(0, 5) }).toEqual({ round, lost: [], invented: [] });
      expect(present.size).toBeGreaterThanOrEqual(acked.size);
      expect(present.size).toBeLessThanOrEqual(acked.size + CLIENTS);
      // An INSERT in flight at the kill may have made it: from now on it is there to keep, like the others.
      for (const key of present) acked.add(key);
    }
  }, 120_000);
});
