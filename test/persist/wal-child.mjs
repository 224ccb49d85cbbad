/**
 * Child process for the write-ahead log tests: commits one row at a time to the database directory
 * argv[2] (label argv[3]), printing each acknowledged commit, with checkpoints every few commits.
 * argv[4] says how it dies: "after:N" kills itself with SIGKILL after N commits (no clean close, so
 * the log is not checkpointed); a checkpoint step name kills it at that step of the first checkpoint.
 *
 * Plain JavaScript on the compiled engine (dist/, see test/harness/compiled.ts): it starts in a
 * fraction of the time a TypeScript child through tsx took.
 */
import { Database } from '../../dist/index.js';
import { setCheckpointHook } from '../../dist/storage/persist/store.js';

const [dir, label, how] = process.argv.slice(2);
const after = how.startsWith('after:') ? Number(how.slice(6)) : Infinity;
if (!how.startsWith('after:')) {
  setCheckpointHook((step) => {
    if (step === how) {
      process.stdout.write(`dying at ${step}\n`);
      process.kill(process.pid, 'SIGKILL');
    }
  });
}
const db = await Database.create({ path: dir, checkpointBytes: 8192 });
await db.query(`CREATE TABLE IF NOT EXISTS t (who text, n int, pad text)`);
for (let n = 1; n <= 100_000; n++) {
  if (n % 5 === 0) {
    await db.query(`BEGIN`);
    await db.query(`INSERT INTO t VALUES ('${label}', ${n}, repeat('é', ${n % 50}))`);
    await db.query(`UPDATE t SET pad = 'updated' WHERE who = '${label}' AND n = ${n - 1}`);
    await db.query(`COMMIT`);
  } else {
    await db.query(`INSERT INTO t VALUES ('${label}', ${n}, repeat('é', ${n % 50}))`);
  }
  process.stdout.write(`ack ${n}\n`);
  if (n >= after) process.kill(process.pid, 'SIGKILL');
}
