/**
 * Time per page at depth 0, 10% and 90% of an ordered result, through the REST endpoint with
 * cursors, against LIMIT/OFFSET (and a hand-written seek) on DuckDB and SQLite.
 *
 *   npx tsx bench/cases/pagination/rest-depth.ts [--rows 1000000] [--runs 5] [--fetch 100] [--engines duckdb,sqlite]
 *
 * (In a subfolder so the main runner, which loads every bench/cases/*.ts as a case, skips it.)
 * The cursor for a deep page is minted once by the library with a page as large as the depth
 * (not timed); resuming a cursor is idempotent, so each timed run sends the same one. The target is
 * a flat cost: the page at 90% within 2x of page 0.
 */
import { Database } from '../../../src/index.js';
import { CursorCodec } from '../../../src/cursor/cursor-codec.js';
import { Pager } from '../../../src/cursor/pager.js';
import { startRestServer } from '../../../src/server/rest/app.js';
import { generate, tsText } from '../../data.js';
import type { EngineAdapter } from '../../types.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : dflt;
};
const rows = Number(opt('rows', '1000000').replace(/_/g, ''));
const runs = Number(opt('runs', '5'));
const fetch = Number(opt('fetch', '100'));
const engines = opt('engines', 'duckdb,sqlite').split(',').filter(Boolean);
const depths = [0, Math.floor(rows * 0.1), Math.floor(rows * 0.9)];
const SQL = 'SELECT * FROM t ORDER BY id';

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
async function time(f: () => Promise<unknown>): Promise<number> {
  await f(); // warm-up
  const ts: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await f();
    ts.push(performance.now() - t0);
  }
  return median(ts);
}

const d = generate(rows, 42);
const results: Record<string, number[]> = {};

{
  const db = await Database.create();
  const t: Record<string, unknown>[] = new Array(d.rows);
  for (let i = 0; i < d.rows; i++) t[i] = { id: d.id[i], g: d.g[i], v: d.v[i], k: d.k[i], s: d.sDict[d.sIdx[i]!], ts: tsText(d.tsMs[i]!), p: d.p[i] };
  db.registerRows('t', t, { id: 'integer', g: 'integer', v: 'double precision', k: 'integer', s: 'text', ts: 'timestamp' });
  const keys = [{ id: 'b1', secret: 'bench-secret-0123456789' }];
  const server = await startRestServer({ db, host: '127.0.0.1', port: 0, cursorKeys: keys, queryTimeoutMs: 600_000 });
  const setup = new Pager(db, { codec: new CursorCodec({ keys }), maxFetchSize: rows });
  const post = async (body: unknown): Promise<{ datarows: unknown[][]; cursor?: string }> => {
    const r = await globalThis.fetch(`${server.url}/_plugins/_sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (r.status !== 200) throw new Error(`HTTP ${r.status}: ${await r.text()}`);
    return (await r.json()) as { datarows: unknown[][]; cursor?: string };
  };
  const row: number[] = [];
  for (const depth of depths) {
    let body: unknown;
    if (depth === 0) body = { query: SQL, fetch_size: fetch };
    else {
      const p = await setup.first(SQL, { fetchSize: depth });
      body = { cursor: p.cursor, fetch_size: fetch };
    }
    const check = await post(body);
    if (check.datarows[0]?.[0] !== depth + 1) throw new Error(`page at ${depth} starts at id ${String(check.datarows[0]?.[0])}`);
    row.push(await time(() => post(body)));
  }
  results['quire REST cursor'] = row;
  await server.close();
}

for (const name of engines) {
  const m = (await import(`../../engines/${name}.js`)) as { create(): Promise<EngineAdapter> };
  const a = await m.create();
  await a.load(d);
  results[`${name} LIMIT/OFFSET`] = await Promise.all([]).then(async () => {
    const out: number[] = [];
    for (const depth of depths) out.push(await time(async () => a.query(`${SQL} LIMIT ${fetch} OFFSET ${depth}`)));
    return out;
  });
  results[`${name} WHERE id > last`] = await (async () => {
    const out: number[] = [];
    for (const depth of depths) out.push(await time(async () => a.query(`SELECT * FROM t WHERE id > ${depth} ORDER BY id LIMIT ${fetch}`)));
    return out;
  })();
  await a.close();
}

const head = ['', ...depths.map((x) => `depth ${x}`), 'deep/page0'];
const lines = [head, ...Object.entries(results).map(([k, v]) => [k, ...v.map((x) => `${x.toFixed(1)} ms`), `${(v[v.length - 1]! / v[0]!).toFixed(2)}x`])];
const w = head.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
console.log(`rows ${rows}, fetch_size ${fetch}, median of ${runs} runs; ${SQL}`);
for (const l of lines) console.log(l.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join('  '));
