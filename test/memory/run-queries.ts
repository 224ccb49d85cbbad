/**
 * Child process of limit.test.ts, started with a small V8 heap: runs each statement given as a JSON
 * array on argv against one Database with the memory_limit given, and prints one JSON line per
 * statement ({rows} or {code, message, detail}) followed by the answer to `select 1`. A buffer the
 * limit does not cover crashes this process (heap limit), which the test sees as a missing line.
 */
import { Database, QuireError } from '../../src/index.js';

const [limit, json] = process.argv.slice(2) as [string, string];
const statements = JSON.parse(json) as string[];
const db = await Database.create({ settings: { memory_limit: limit } });
for (const sql of statements) {
  const t0 = performance.now();
  let out: Record<string, unknown>;
  try {
    const r = await db.query(sql);
    out = { rows: r.rows };
  } catch (e) {
    out = e instanceof QuireError ? { code: e.code, message: e.message, detail: e.detail } : { crash: String(e) };
  }
  const one = await db.query('select 1 as one');
  out.ms = Math.round(performance.now() - t0);
  out.after = one.rows[0]![0];
  out.heapMB = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
  process.stdout.write(JSON.stringify(out, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)) + '\n');
}
