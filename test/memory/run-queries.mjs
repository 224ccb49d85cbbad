/**
 * Child process of limit.test.ts, started with a small V8 heap: runs each statement given as a JSON
 * array on argv against one Database with the memory_limit given, and prints one JSON line per
 * statement ({rows} or {code, message, detail}) followed by the answer to `select 1`. A buffer the
 * limit does not cover crashes this process (heap limit), which the test sees as a missing line.
 *
 * Plain JavaScript on the compiled engine (dist/, see test/harness/compiled.ts): it starts in a
 * fraction of the time a TypeScript child through tsx took.
 */
import { Database, QuireError } from '../../dist/index.js';
import { processMemoryReserved } from '../../dist/execution/memory-pool.js';

const [limit, json, mode] = process.argv.slice(2);
const statements = JSON.parse(json);
const db = await Database.create({ settings: { memory_limit: limit } });

/** @returns {Promise<Record<string, unknown>>} */
async function answer(session, sql) {
  try {
    const r = await session.query(sql);
    return { rows: r.rows };
  } catch (e) {
    return e instanceof QuireError ? { code: e.code, message: e.message, detail: e.detail } : { crash: String(e) };
  }
}

// 'concurrent': every statement at once, each on a session of its own (as a server runs them).
const together = mode === 'concurrent' ? await Promise.all(statements.map((sql) => answer(db.connect(), sql))) : null;
for (const [i, sql] of statements.entries()) {
  const t0 = performance.now();
  const out = together !== null ? together[i] : await answer(db, sql);
  const one = await db.query('select 1 as one');
  out.ms = Math.round(performance.now() - t0);
  out.after = one.rows[0][0];
  // What statements still hold in the process budget once they are done: anything but 0 is a leak.
  out.reserved = processMemoryReserved();
  out.heapMB = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
  process.stdout.write(JSON.stringify(out, (_k, v) => (typeof v === 'bigint' ? String(v) : v)) + '\n');
}
