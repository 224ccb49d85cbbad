/**
 * Child process for the concurrent crash test: serves the database directory argv[2] over pgwire and
 * writes to it from the library at the same time, printing each acknowledged library commit, until it
 * is killed (and keeps a counter table the pgwire writers update, and creates and drops indexes, printing each
 * acknowledged step). Checkpoints run every few KB of log, and each of their steps is printed, so kills land
 * in the middle of checkpoints too.
 *
 * Plain JavaScript on the compiled engine (dist/, see test/harness/compiled.ts): it starts in a
 * fraction of the time a TypeScript child through tsx took.
 */
import { Database } from '../../dist/index.js';
import { startPgServer } from '../../dist/server/pgwire/index.js';
import { setCheckpointHook } from '../../dist/storage/persist/store.js';

setCheckpointHook((step) => process.stdout.write(`checkpoint ${step}\n`));
const db = await Database.create({ path: process.argv[2], checkpointBytes: 1024 });
await db.query('CREATE TABLE IF NOT EXISTS log (who text, n int)');
// One counter row per pgwire writer: both update their own row of one table in overlapping
// transactions, so their COMMITs merge row by row.
await db.query('CREATE TABLE IF NOT EXISTS ctr (w text, n int)');
if ((await db.query('SELECT count(*) FROM ctr')).rows[0][0] === 0) await db.query("INSERT INTO ctr VALUES ('a', 0), ('b', 0)");
const server = await startPgServer(db, { port: 0, allowWrites: true });
process.stdout.write(`port ${server.port}\n`);
const round = process.argv[3];
for (let n = 1; ; n++) {
  if (n % 3 === 0) {
    await db.query('BEGIN');
    await db.query(`INSERT INTO log VALUES ('lib${round}', ${n}), ('lib${round}', ${-n})`);
    await db.query('COMMIT');
  } else {
    await db.query(`INSERT INTO log VALUES ('lib${round}', ${n})`);
  }
  process.stdout.write(`ack ${n}\n`);
  // Index definitions go through the same log: one created every tenth commit, dropped five later.
  if (n % 10 === 5) {
    process.stdout.write(`index creating li${round}_${n}\n`);
    await db.query(`CREATE INDEX li${round}_${n} ON log (n)`);
    process.stdout.write(`index created li${round}_${n}\n`);
  } else if (n % 10 === 0) {
    process.stdout.write(`index dropping li${round}_${n - 5}\n`);
    await db.query(`DROP INDEX li${round}_${n - 5}`);
    process.stdout.write(`index dropped li${round}_${n - 5}\n`);
  }
  await new Promise((r) => setImmediate(r));
}
