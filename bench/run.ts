/**
 * npm run bench -- [--rows N] [--runs N] [--case a,b] [--engines quire,duckdb,...] [--timeout ms] [--budget ms]
 *
 * Generates the dataset once (cached in .bench-data/), then runs each engine in its own child process,
 * one engine at a time so they never compete for the CPU, checks that all engines agree on every
 * result, and prints a table of median times plus bench/results.json.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { ensureDataset } from './data.js';
import { compareResults, type Comparable } from './canonical.js';
import { loadCases } from './cases/index.js';
import { ALL_ENGINES, type BenchCase, type CaseParams, type EngineName, type FromChild, type ToChild } from './types.js';

interface Options {
  rows: number;
  runs: number;
  seed: number;
  cases: string[];
  engines: EngineName[];
  timeoutMs: number;
  budgetMs: number;
  out: string;
  dataDir: string;
}

function usage(msg?: string): never {
  if (msg) console.error(`error: ${msg}\n`);
  console.error(`usage: npm run bench -- [options]
  --rows N        rows in table t (default 1000000; 1e6 and 100_000 are accepted)
  --runs N        timed runs per case per engine, after one warm-up (default 5)
  --case a,b      only cases whose name contains one of these substrings
  --engines a,b   subset of ${ALL_ENGINES.join(',')} (default: all)
  --timeout MS    a single run longer than this is killed and recorded as timed out (default 30000)
  --budget MS     stop timing further runs of a case once it has used this long (default 120000)
  --seed N        PRNG seed (default 42)
  --out FILE      results file (default bench/results.json)`);
  process.exit(msg ? 2 : 0);
}

function parseNumber(s: string | undefined, flag: string): number {
  const n = Number(String(s).replace(/_/g, ''));
  if (!Number.isFinite(n) || n < 0) usage(`${flag} needs a number, got ${s}`);
  return Math.floor(n);
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    rows: 1_000_000,
    runs: 5,
    seed: 42,
    cases: [],
    engines: [...ALL_ENGINES],
    timeoutMs: 30_000,
    budgetMs: 120_000,
    out: fileURLToPath(new URL('./results.json', import.meta.url)),
    dataDir: fileURLToPath(new URL('../.bench-data/', import.meta.url)),
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2) as [string, string | undefined];
    const val = (): string => inline ?? argv[++i] ?? usage(`${flag} needs a value`);
    switch (flag) {
      case '--rows':
        o.rows = parseNumber(val(), flag);
        break;
      case '--runs':
        o.runs = Math.max(1, parseNumber(val(), flag));
        break;
      case '--seed':
        o.seed = parseNumber(val(), flag);
        break;
      case '--case':
      case '--cases':
        o.cases = val().split(',').filter(Boolean);
        break;
      case '--engines':
      case '--engine': {
        const list = val().split(',').filter(Boolean);
        for (const e of list) if (!(ALL_ENGINES as readonly string[]).includes(e)) usage(`unknown engine ${e}`);
        o.engines = ALL_ENGINES.filter((e) => list.includes(e)); // canonical order, so tables line up across runs
        break;
      }
      case '--timeout':
        o.timeoutMs = parseNumber(val(), flag);
        break;
      case '--budget':
        o.budgetMs = parseNumber(val(), flag);
        break;
      case '--out':
        o.out = val();
        break;
      case '-h':
      case '--help':
        usage();
      // falls through (usage exits)
      default:
        usage(`unknown option ${flag}`);
    }
  }
  if (o.rows < 1) usage('--rows must be at least 1');
  return o;
}

type CaseStatus = 'ok' | 'timeout' | 'error' | 'wrong' | 'n/a';
interface CaseResult {
  status: CaseStatus;
  sql?: string;
  timingsMs?: number[];
  warmupMs?: number;
  skippedRuns?: number;
  medianMs?: number;
  minMs?: number;
  rowCount?: number;
  error?: string;
  /** Not written to results.json in full; only used for the check. */
  result?: Comparable;
}
interface EngineInfo {
  version?: string;
  loadMs?: number;
  rssAfterLoadMB?: number;
  peakRssMB?: number;
  loads: number;
  error?: string;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** A worker process plus a queue of its messages, so the parent can await "the next message of kind X". */
class Worker {
  private readonly child: ChildProcess;
  private readonly inbox: FromChild[] = [];
  private waiter: (() => void) | null = null;
  exited = false;

  constructor() {
    const workerPath = fileURLToPath(new URL('./worker.ts', import.meta.url));
    this.child = fork(workerPath, [], {
      // tsx loads the TypeScript; --expose-gc lets the worker collect between runs; the larger heap
      // gives engines that keep rows as JS objects (AlaSQL, Quire's input) room at 1e6+ rows
      execArgv: ['--import', import.meta.resolve('tsx'), '--expose-gc', '--max-old-space-size=12288'],
      // UTC so that engines which parse timestamps into Date (PGlite) do it the same way on every machine
      env: { ...process.env, TZ: 'UTC' },
      // 'advanced' = structured clone: bigint and Date survive the trip, unlike JSON
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (m: FromChild) => {
      this.inbox.push(m);
      this.wake();
    });
    this.child.on('exit', () => {
      this.exited = true;
      this.wake();
    });
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }

  send(m: ToChild): void {
    this.child.send(m);
  }

  /** Next message; null if the process died or `idleMs` passed with no message at all. */
  async next(idleMs: number): Promise<FromChild | null> {
    for (;;) {
      const m = this.inbox.shift();
      if (m) return m;
      if (this.exited) return null;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await new Promise<boolean>((resolve) => {
        this.waiter = () => resolve(false);
        timer = setTimeout(() => resolve(true), idleMs);
      });
      clearTimeout(timer);
      this.waiter = null;
      if (timedOut && this.inbox.length === 0) return null;
    }
  }

  /** Peak RSS (VmHWM) from /proc, readable only while the process lives: the fallback when it must be killed. */
  peakRssFromProc(): number | undefined {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.child.pid}/status`, 'utf8'));
      return m ? Math.round((Number(m[1]) / 1024) * 10) / 10 : undefined;
    } catch {
      return undefined; // not Linux, or already gone
    }
  }

  kill(): void {
    if (!this.exited) this.child.kill('SIGKILL');
  }
}

/** Loading can legitimately take minutes at large --rows (PGlite, row-at-a-time APIs); it is not timed. */
const LOAD_TIMEOUT_MS = 30 * 60_000;

async function startWorker(engine: EngineName, dataDir: string, params: CaseParams, info: EngineInfo): Promise<Worker | null> {
  const w = new Worker();
  w.send({ type: 'init', engine, dataDir, params });
  const m = await w.next(LOAD_TIMEOUT_MS);
  info.loads++;
  if (m?.type === 'loaded') {
    info.version = m.version;
    info.loadMs = Math.round(m.loadMs);
    info.rssAfterLoadMB = m.rssAfterLoadMB;
    return w;
  }
  info.error = m?.type === 'load-error' ? m.error : 'worker died or timed out while loading';
  w.kill();
  return null;
}

async function stopWorker(w: Worker, info: EngineInfo): Promise<void> {
  w.send({ type: 'exit' });
  for (;;) {
    const m = await w.next(10_000);
    if (!m) break;
    if (m.type === 'bye') {
      info.peakRssMB = Math.max(info.peakRssMB ?? 0, m.peakRssMB);
      break;
    }
  }
  w.kill();
}

async function runEngine(
  engine: EngineName,
  cases: BenchCase[],
  o: Options,
  dataDir: string,
  params: CaseParams,
): Promise<{ info: EngineInfo; results: Map<string, CaseResult> }> {
  const info: EngineInfo = { loads: 0 };
  const results = new Map<string, CaseResult>();
  const todo = engine === 'floor' ? cases.filter((c) => c.floor) : cases;
  for (const c of cases) if (!todo.includes(c)) results.set(c.name, { status: 'n/a' });
  let w: Worker | null = null;
  for (const c of todo) {
    if (!w) {
      process.stderr.write(`  ${engine}: loading ${o.rows} rows...`);
      w = await startWorker(engine, dataDir, params, info);
      process.stderr.write(w ? ` ${info.loadMs} ms\n` : ` FAILED\n${info.error}\n`);
      if (!w) {
        for (const c2 of todo) if (!results.has(c2.name)) results.set(c2.name, { status: 'error', error: `load failed: ${info.error}` });
        break;
      }
    }
    process.stderr.write(`  ${engine}: ${c.name} `);
    const cur: Worker = w;
    cur.send({ type: 'case', name: c.name, runs: o.runs, budgetMs: o.budgetMs });
    let res: CaseResult | null = null;
    while (!res) {
      // every run announces itself, so this idle timeout is exactly the per-run cap
      const m = await cur.next(o.timeoutMs);
      if (!m) {
        if (cur.exited) {
          // died mid-case (typically out of memory): an error, not a slow answer
          res = { status: 'error', error: 'worker process died during the case (out of memory?)' };
          process.stderr.write('CRASHED\n');
        } else {
          res = { status: 'timeout', error: `a run exceeded ${o.timeoutMs} ms` };
          const peak = cur.peakRssFromProc();
          if (peak !== undefined) info.peakRssMB = Math.max(info.peakRssMB ?? 0, peak);
          cur.kill(); // a sync engine cannot be interrupted any other way; the next case gets a fresh worker
          process.stderr.write('TIMEOUT\n');
        }
        w = null;
      } else if (m.type === 'run-start') {
        process.stderr.write('.');
      } else if (m.type === 'case-done') {
        res = {
          status: 'ok',
          sql: m.sql,
          timingsMs: m.timingsMs.map((x) => Math.round(x * 1000) / 1000),
          warmupMs: Math.round(m.warmupMs * 1000) / 1000,
          skippedRuns: m.skippedRuns,
          medianMs: median(m.timingsMs),
          minMs: Math.min(...m.timingsMs),
          rowCount: m.rowCount,
          result: { rowCount: m.rowCount, rows: m.rows, truncated: m.truncated },
        };
        process.stderr.write(` ${res.medianMs!.toFixed(1)} ms\n`);
      } else if (m.type === 'case-error') {
        res = { status: 'error', sql: m.sql, error: m.error };
        process.stderr.write(` ERROR ${m.error}\n`);
      }
    }
    results.set(c.name, res);
  }
  if (w) await stopWorker(w, info);
  return { info, results };
}

/** Who is trusted when engines disagree: the biggest agreeing group, ties broken in this order. */
const TRUST: EngineName[] = ['floor', 'duckdb', 'pglite', 'sqlite', 'alasql', 'quire'];

function checkCase(c: BenchCase, byEngine: Map<EngineName, CaseResult>): { reference?: EngineName; mismatches: Record<string, string> } {
  const ok = [...byEngine].filter(([, r]) => r.status === 'ok' && r.result) as [EngineName, CaseResult][];
  const mismatches: Record<string, string> = {};
  if (ok.length === 0) return { mismatches };
  let best: { ref: EngineName; agree: number } | null = null;
  for (const [e, r] of ok) {
    const agree = ok.filter(([, r2]) => compareResults(r.result!, r2.result!, c.check) === null).length;
    const better = !best || agree > best.agree || (agree === best.agree && TRUST.indexOf(e) < TRUST.indexOf(best.ref));
    if (better) best = { ref: e, agree };
  }
  const ref = byEngine.get(best!.ref)!.result!;
  for (const [e, r] of ok) {
    const diff = compareResults(ref, r.result!, c.check);
    if (diff) {
      mismatches[e] = diff;
      r.status = 'wrong';
      r.error = `disagrees with ${best!.ref}: ${diff}`;
    }
  }
  return { reference: best!.ref, mismatches };
}

function fmtMs(r: CaseResult | undefined): string {
  if (!r) return '-';
  if (r.status === 'ok') {
    const m = r.medianMs!;
    return m >= 100 ? m.toFixed(0) : m >= 10 ? m.toFixed(1) : m.toFixed(2);
  }
  return r.status === 'timeout' ? 'timeout' : r.status === 'wrong' ? 'WRONG' : r.status === 'n/a' ? '-' : 'error';
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  const sep = `|${widths.map((w, i) => (i === 0 ? ':' : '-') + '-'.repeat(w) + (i === 0 ? '-' : ':')).join('|')}|`;
  return [line(header), sep, ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const all = await loadCases();
  const cases = o.cases.length ? all.filter((c) => o.cases.some((f) => c.name.includes(f))) : all;
  if (cases.length === 0) usage(`no case matches ${o.cases.join(',')}; cases: ${all.map((c) => c.name).join(', ')}`);
  const params: CaseParams = { rows: o.rows };

  // Other work on the machine skews every number; say so up front rather than let it pass unnoticed.
  const loadBefore = os.loadavg()[0];
  if (loadBefore > os.cpus().length * 0.5) {
    console.error(`warning: load average ${loadBefore.toFixed(1)} on ${os.cpus().length} CPUs: timings will be noisy`);
  }
  const { dir, generatedMs } = ensureDataset(o.dataDir, o.rows, o.seed);
  console.error(generatedMs === null ? `data: reusing ${dir}` : `data: generated ${dir} in ${generatedMs.toFixed(0)} ms`);

  const infos = new Map<EngineName, EngineInfo>();
  const results = new Map<string, Map<EngineName, CaseResult>>(cases.map((c) => [c.name, new Map()]));
  for (const e of o.engines) {
    const { info, results: rs } = await runEngine(e, cases, o, dir, params);
    infos.set(e, info);
    for (const [name, r] of rs) results.get(name)!.set(e, r);
  }

  const checks = new Map(cases.map((c) => [c.name, checkCase(c, results.get(c.name)!)]));

  // ---- table: medians, then peer/Quire ratios (>1 means Quire is faster)
  const peers = o.engines.filter((e) => e !== 'quire');
  const hasQuire = o.engines.includes('quire');
  const header = ['case', ...o.engines.map((e) => `${e} ms`), ...(hasQuire ? peers.map((e) => `${e}/quire`) : [])];
  const rows = cases.map((c) => {
    const byE = results.get(c.name)!;
    const q = byE.get('quire');
    const ratios = hasQuire
      ? peers.map((e) => {
          const p = byE.get(e);
          if (q?.status !== 'ok' || p?.status !== 'ok') return p?.status === 'timeout' && q?.status === 'ok' ? `>${(o.timeoutMs / q.medianMs!).toFixed(0)}` : '-';
          const r = p.medianMs! / q.medianMs!;
          return r >= 10 ? r.toFixed(0) : r >= 1 ? r.toFixed(2) : r.toPrecision(2);
        })
      : [];
    return [c.name, ...o.engines.map((e) => fmtMs(byE.get(e))), ...ratios];
  });
  const loadAfter = os.loadavg()[0];
  console.log(
    `\nrows=${o.rows} runs=${o.runs} (median of timed runs after 1 warm-up; DuckDB threads=1; ` +
      `load average ${loadBefore.toFixed(1)} -> ${loadAfter.toFixed(1)} on ${os.cpus().length} CPUs)\n`,
  );
  console.log(table(header, rows));

  const engRows = o.engines.map((e) => {
    const i = infos.get(e)!;
    return [e, i.version ?? '?', String(i.loadMs ?? '-'), String(i.rssAfterLoadMB ?? '-'), String(i.peakRssMB ?? '-'), String(i.loads)];
  });
  console.log('\n' + table(['engine', 'version', 'load ms', 'RSS after load MB', 'peak RSS MB', 'loads'], engRows));

  const problems: string[] = [];
  for (const c of cases) {
    for (const [e, r] of results.get(c.name)!) {
      if (r.status === 'wrong' || r.status === 'error' || r.status === 'timeout') problems.push(`${c.name} / ${e}: ${r.status}: ${(r.error ?? '').split('\n')[0]}`);
      if (r.status === 'ok' && r.skippedRuns) problems.push(`${c.name} / ${e}: only ${r.timingsMs!.length} timed runs (budget ${o.budgetMs} ms)`);
    }
  }
  // a failed load fails every case the same way: say it once per engine
  for (const e of o.engines) {
    const err = infos.get(e)?.error;
    if (err) problems.unshift(`${e}: load failed: ${err.split('\n')[0]}`);
  }
  const shown = problems.filter((p) => !/: error: load failed: /.test(p));
  if (shown.length) console.log('\n' + shown.map((p) => `! ${p}`).join('\n'));

  const json = {
    meta: {
      date: new Date().toISOString(),
      rows: o.rows,
      runs: o.runs,
      seed: o.seed,
      timeoutMs: o.timeoutMs,
      budgetMs: o.budgetMs,
      node: process.version,
      cpu: os.cpus()[0]?.model,
      cpus: os.cpus().length,
      platform: `${os.platform()} ${os.release()}`,
      loadAverage1m: { before: loadBefore, after: loadAfter },
    },
    engines: Object.fromEntries(infos),
    cases: cases.map((c) => ({
      name: c.name,
      description: c.description,
      check: c.check,
      notes: c.notes,
      reference: checks.get(c.name)!.reference,
      results: Object.fromEntries(
        [...results.get(c.name)!].map(([e, r]) => {
          const { result, ...rest } = r;
          // a few result rows make a wrong answer diagnosable from the file alone
          return [e, { ...rest, firstRows: result?.rows.slice(0, 3) }];
        }),
      ),
    })),
  };
  writeFileSync(o.out, JSON.stringify(json, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2) + '\n');
  console.error(`\nwrote ${o.out}`);
  // Quire giving a wrong answer must fail loudly (e.g. in CI), a slow one need not. A peer's wrong
  // answer (AlaSQL returns every row for topn_per_partition) is a finding shown in the
  // table, not a failure of this run.
  if ([...results.values()].some((m) => m.get('quire')?.status === 'wrong')) process.exitCode = 1;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
