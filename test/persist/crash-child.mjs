/**
 * Child process for the crash test: opens the database directory given as argv[2] and rewrites big
 * tables in a loop until it is killed (kill -9 lands in the middle of a table or manifest write).
 *
 * Plain JavaScript on the compiled engine (dist/, see test/harness/compiled.ts): it starts in a
 * fraction of the time a TypeScript child through tsx took.
 */
import { Database } from '../../dist/index.js';

const dir = process.argv[2];
// Each child labels its rounds uniquely so rows from two children never share a tag.
const label = process.argv[3] ?? 'child';
const db = await Database.create({ path: dir });
process.stdout.write('ready\n');
for (let round = 1; ; round++) {
  // Each round rewrites "keep" whole (a new generation file) and creates a large table.
  await db.query(`INSERT INTO keep SELECT i, '${label} round ${round}' FROM generate_series(1, 1000) i`);
  await db.query(`DROP TABLE IF EXISTS big`);
  await db.query(`CREATE TABLE big AS SELECT i AS id, repeat('x', 40) || i AS pad FROM generate_series(1, 400000) i`);
}
