/**
 * Child process: one engine, loaded once, running the cases the parent asks for. A process per engine
 * keeps heaps, JIT state and peak RSS separate, and lets the parent kill a run that exceeds its time cap.
 */
import { loadDataset, type Dataset } from './data.js';
import { canonicalRows } from './canonical.js';
import { loadCases } from './cases/index.js';
import type { BenchCase, CaseParams, EngineAdapter, EngineName, FromChild, ToChild } from './types.js';
import { peakRssMB } from './peak-rss.mjs';

/** Rows shipped back for checking; the cases return at most ~1,000, this only guards against mistakes. */
const MAX_CHECK_ROWS = 20_000;

const send = (m: FromChild): void => {
  process.send!(m);
};
const mb = (bytes: number): number => Math.round((bytes / 1048576) * 10) / 10;
const gc = (globalThis as { gc?: () => void }).gc;

async function createAdapter(engine: Exclude<EngineName, 'floor'>): Promise<EngineAdapter> {
  // import lazily: a broken or missing engine must not stop the others (each runs in its own process anyway)
  const m = (await import(`./engines/${engine}.js`)) as { create(): Promise<EngineAdapter> };
  return m.create();
}

let engine: EngineName;
let params: CaseParams;
let data: Dataset | null = null;
let adapter: EngineAdapter | null = null;
let cases = new Map<string, BenchCase>();

/** What one timed run executes; returns raw rows. */
function runner(c: BenchCase): { sql: string; run: () => Promise<unknown[][]> | unknown[][] } {
  if (engine === 'floor') {
    if (!c.floor) throw new Error('no floor implementation');
    const d = data!;
    return { sql: '(hand-written JS)', run: () => c.floor!(d, params) };
  }
  const sql = (c.dialect?.[engine] ?? c.sql)(params);
  const a = adapter!;
  return { sql, run: () => a.query(sql) };
}

async function runCase(name: string, runs: number, budgetMs: number): Promise<void> {
  const c = cases.get(name);
  let sql = '';
  try {
    if (!c) throw new Error(`unknown case ${name}`);
    const r = runner(c);
    sql = r.sql;
    const started = performance.now();
    gc?.();
    send({ type: 'run-start', name, run: 0 });
    let t0 = performance.now();
    const raw = await r.run();
    const warmupMs = performance.now() - t0;
    const timingsMs: number[] = [];
    let skippedRuns = 0;
    for (let i = 1; i <= runs; i++) {
      // stop early rather than blow the case budget; at least one timed run is always kept
      if (i > 1 && performance.now() - started > budgetMs) {
        skippedRuns = runs - i + 1;
        break;
      }
      gc?.(); // start every run from a collected heap so one run's garbage is not billed to the next
      send({ type: 'run-start', name, run: i });
      t0 = performance.now();
      await r.run();
      timingsMs.push(performance.now() - t0);
    }
    // canonicalise the warm-up result, outside every timed region
    const canon = adapter?.canonicalize ? adapter.canonicalize(raw) : canonicalRows(raw);
    send({
      type: 'case-done',
      name,
      timingsMs,
      warmupMs,
      skippedRuns,
      rowCount: raw.length,
      rows: canon.slice(0, MAX_CHECK_ROWS),
      truncated: canon.length > MAX_CHECK_ROWS,
      sql,
    });
  } catch (e) {
    send({ type: 'case-error', name, error: e instanceof Error ? e.message : String(e), sql });
  } finally {
    const undo = engine === 'floor' ? undefined : c?.after?.[engine];
    if (undo !== undefined && adapter !== null) await adapter.query(undo);
  }
}

process.on('message', (m: ToChild) => {
  void (async () => {
    switch (m.type) {
      case 'init': {
        engine = m.engine;
        params = m.params;
        try {
          cases = new Map((await loadCases()).map((c) => [c.name, c]));
          data = loadDataset(m.dataDir);
          const t0 = performance.now();
          let version = 'n/a';
          if (engine !== 'floor') {
            adapter = await createAdapter(engine);
            await adapter.load(data);
            version = adapter.version;
            // SQL engines own their copy now; dropping ours makes RSS reflect the engine's storage
            data = null;
          }
          const loadMs = performance.now() - t0;
          // Resident memory once loading's garbage is gone: V8 keeps the heap's grown capacity
          // through the first full GC after heavy allocation and gives it back on the next, and
          // freed pages leave the resident set a moment later. Every engine gets the same two GCs
          // and idle second; the transient cost of loading shows in peak RSS.
          gc?.();
          gc?.();
          await new Promise((r) => setTimeout(r, 1000));
          send({ type: 'loaded', version, loadMs, rssAfterLoadMB: mb(process.memoryUsage().rss) });
        } catch (e) {
          send({ type: 'load-error', error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
        }
        break;
      }
      case 'case':
        await runCase(m.name, m.runs, m.budgetMs);
        break;
      case 'exit':
        try {
          await adapter?.close();
        } catch {
          // closing is best effort; the process is going away
        }
        send({ type: 'bye', peakRssMB: peakRssMB() });
        process.disconnect();
        break;
    }
  })();
});
