/**
 * The PostgreSQL port over a database directory, alone in its own process, for bench/commits.ts's
 * quire-pgwire-proc engine: a deployed server does not share its process (its event loop, its
 * garbage collector, its core) with its clients, as the in-process quire-pgwire engine does.
 *
 *   node --import tsx bench/pgwire-server.ts DIR
 *
 * Prints `port N` on stdout once it listens; on the line `cpu` on stdin it answers `cpu USER SYSTEM`
 * (its own CPU time so far, in µs), so the bench can count the server's CPU per commit beside its own.
 * Closes the database and exits when stdin ends.
 */
import { createInterface } from 'node:readline';
import { Database } from '../src/index.js';
import { startPgServer } from '../src/server/pgwire/index.js';

const dir = process.argv[2];
if (dir === undefined) throw new Error('usage: pgwire-server.ts DIR');
const db = await Database.create({ path: dir });
const server = await startPgServer(db, { port: 0, allowWrites: true });
process.stdout.write(`port ${server.port}\n`);
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() === 'cpu') {
    const c = process.cpuUsage();
    process.stdout.write(`cpu ${c.user} ${c.system}\n`);
  }
});
lines.on('close', () => {
  void (async () => {
    await server.close();
    await db.close();
    process.exit(0);
  })();
});
