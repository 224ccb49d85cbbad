/**
 * The PostgreSQL port over a database directory, alone in its own process, for bench/commits.ts's
 * quire-pgwire-proc engine: a deployed server does not share its process (its event loop, its
 * garbage collector, its core) with its clients, as the in-process quire-pgwire engine does.
 *
 *   node --import tsx bench/pgwire-server.ts
 *
 * Commands, one a line on stdin, each answered with one line on stdout:
 *   open DIR   opens the database directory DIR and serves it on a free port: `port N`
 *   close      closes the port and the database: `closed`
 *   cpu        this process's CPU time so far, in µs: `cpu USER SYSTEM`
 *   syncs      fdatasync calls of the open directory's log so far: `syncs N`
 * One process serves the bench's directories one after another, so like the in-process engines it
 * runs warm (compiled code, caches) after the first, as a long-running server does. Exits when stdin ends.
 */
import { createInterface } from 'node:readline';
import { Database } from '../src/index.js';
import { storeFor } from '../src/storage/persist/index.js';
import { startPgServer } from '../src/server/pgwire/index.js';

let open: { db: Database; server: Awaited<ReturnType<typeof startPgServer>> } | null = null;

async function close(): Promise<void> {
  if (open === null) return;
  await open.server.close();
  await open.db.close();
  open = null;
}

async function command(line: string): Promise<string> {
  const [cmd, ...rest] = line.trim().split(' ');
  switch (cmd) {
    case 'open': {
      await close();
      const db = await Database.create({ path: rest.join(' ') });
      const server = await startPgServer(db, { port: 0, allowWrites: true });
      open = { db, server };
      return `port ${server.port}`;
    }
    case 'close':
      await close();
      return 'closed';
    case 'cpu': {
      const c = process.cpuUsage();
      return `cpu ${c.user} ${c.system}`;
    }
    case 'syncs':
      return `syncs ${(open === null ? undefined : storeFor(open.db.catalog)?.walStats()?.syncs) ?? 0}`;
    default:
      return `error unknown command "${cmd}"`;
  }
}

// Commands run one at a time, in order.
let queue = Promise.resolve();
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  queue = queue.then(async () => {
    let answer: string;
    try {
      answer = await command(line);
    } catch (e) {
      answer = `error ${(e as Error).message.replace(/\n/g, ' ')}`;
    }
    process.stdout.write(`${answer}\n`);
  });
});
lines.on('close', () => {
  void queue.then(async () => {
    await close();
    process.exit(0);
  });
});
