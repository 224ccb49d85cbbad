/**
 * Child process for the nested-column crash test: in the database directory argv[2], copies the rows
 * of the Parquet file argv[3] (record and array columns) one commit at a time into `kept`, printing
 * each acknowledged id, with a checkpoint every few commits, and kills itself with SIGKILL after
 * argv[4] commits (no clean close).
 */
import { Database } from '../../src/index.js';

const [dir, file, after] = process.argv.slice(2) as [string, string, string];
const db = await Database.create({ path: dir, checkpointBytes: 16384 });
await db.query(`CREATE TABLE IF NOT EXISTS kept AS SELECT id, l, s, ls FROM read_parquet('${file}') WHERE false`);
for (let id = 0; ; id++) {
  await db.query(`INSERT INTO kept SELECT id, l, s, ls FROM read_parquet('${file}') WHERE id = ${id}`);
  process.stdout.write(`ack ${id}\n`);
  if (id + 1 >= Number(after)) process.kill(process.pid, 'SIGKILL');
}
