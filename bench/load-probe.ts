/**
 * The `select 1` probe of load-mixed.ts, in a process of its own: in the load generator's process
 * its timings would include that process's own event-loop delays (250 clients' responses), which
 * is not what a monitoring client sees. Prints one JSON line: the latencies on each port.
 *
 *   npx tsx bench/load-probe.ts REST_URL PG_PORT SECONDS
 */
import pg from 'pg';

const [url, pgPort, seconds] = process.argv.slice(2) as [string, string, string];
const end = Date.now() + Number(seconds) * 1000;
const rest: number[] = [];
const pgMs: number[] = [];
let failures = 0;

const c = new pg.Client({ host: '127.0.0.1', port: Number(pgPort), user: 'quire', database: 'quire' });
await c.connect();
c.on('error', () => undefined);
while (Date.now() < end) {
  const tick = new Promise((r) => setTimeout(r, 100));
  let t0 = performance.now();
  try {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"select 1"}' });
    await r.text();
    const ms = performance.now() - t0;
    if (r.ok) rest.push(ms);
    else failures++;
    if (ms > 300 && process.env.LOAD_DEBUG) process.stderr.write(`slow REST probe ${ms.toFixed(0)} ms ending ${new Date().toISOString()}\n`);
  } catch {
    failures++;
  }
  t0 = performance.now();
  try {
    await c.query('select 1');
    pgMs.push(performance.now() - t0);
  } catch (e) {
    if (process.env.LOAD_DEBUG && failures < 3) process.stderr.write(`pg probe failed: ${(e as Error).message}\n`);
    failures++;
  }
  await tick;
}
await c.end().catch(() => undefined);
process.stdout.write(JSON.stringify({ rest, pg: pgMs, failures }) + '\n');
