/**
 * Child of loaded-modules.test.ts: records every module this process resolves (ES modules through a
 * resolve hook, CommonJS ones from require's cache), imports Quire, and prints one JSON line of what
 * was loaded after each step: import + Database.create + SELECT 1, a regular expression, and opening a
 * database directory (argv[2]).
 */
import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const dir = process.argv[2]!;
const { port1, port2 } = new MessageChannel();
const esm = new Set<string>();
port1.on('message', (url: string) => esm.add(url));
port1.unref();
// Registered after tsx, so it runs first and sees the URL every resolution ends at.
const hook = `let port;
export function initialize(d) { port = d.port; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  port.postMessage(r.url);
  return r;
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`, { data: { port: port2 }, transferList: [port2] });
const cjsCache = createRequire(import.meta.url).cache;

/** The hook posts from its own thread: a round trip on the port after the step lets its messages in. */
async function loaded(): Promise<string[]> {
  await new Promise((r) => setTimeout(r, 200));
  return [...esm, ...Object.keys(cjsCache)];
}

const { Database } = await import('../../src/index.js');
const db = await Database.create();
await db.query('SELECT 1');
const steps: Record<string, string[]> = { query: await loaded() };
await db.query("SELECT 'abc' ~ 'b+'");
steps.regex = await loaded();
const stored = await Database.create({ path: dir });
await stored.query('CREATE TABLE t (a int)');
await stored.close();
steps.directory = await loaded();
console.log(JSON.stringify(steps));
