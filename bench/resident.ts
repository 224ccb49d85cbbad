/**
 * Resident memory of Quire over fresh processes: after importing it and creating a Database (stage
 * `import`), and after loading the benchmark dataset through bench/worker.ts exactly as `npm run bench`
 * does (stage `load`, the "RSS after load" column). One process per sample, because a process's
 * baseline swings by tens of MB from run to run; with several builds named, their processes
 * alternate so machine load drifts over all of them alike. Prints min / median / max per build.
 *
 *   npx tsx bench/resident.ts [--stage import|load] [--rounds N] [--rows N] [--module a,b] [--engine quire|duckdb]
 *
 * --module takes module paths as QUIRE_MODULE does (from the repo root, or absolute), e.g. an older
 * checkout's src/index.js, to compare builds; the default is this checkout's src/index.js.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ensureDataset } from './data.js';
import type { FromChild, ToChild } from './types.js';

const mb = (bytes: number): number => Math.round((bytes / 1048576) * 10) / 10;

interface Sample {
  rss: number;
  heapUsed?: number;
  heapTotal?: number;
  external?: number;
  arrayBuffers?: number;
}

/** Child of stage `import`: what importing Quire, creating a Database and one query leave resident. */
async function importChild(spec: string): Promise<void> {
  const root = new URL('../', import.meta.url);
  const mod = (await import(new URL(spec, root).href)) as {
    Database: { create(): Promise<{ query(sql: string): Promise<unknown>; close(): Promise<void> }> };
  };
  const db = await mod.Database.create();
  await db.query('SELECT 1');
  // the same settling as bench/worker.ts before it reads RSS
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  await new Promise((r) => setTimeout(r, 1000));
  const m = process.memoryUsage();
  const s: Sample = { rss: mb(m.rss), heapUsed: mb(m.heapUsed), heapTotal: mb(m.heapTotal), external: mb(m.external), arrayBuffers: mb(m.arrayBuffers) };
  process.send!(s);
  await db.close();
  process.disconnect();
}

const execArgv = ['--import', import.meta.resolve('tsx'), '--expose-gc', '--max-old-space-size=12288'];

function importSample(spec: string): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--child', spec], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('message', (m) => resolve(m as Sample));
    child.once('exit', (code) => reject(new Error(`import child exited with ${code} before reporting`)));
  });
}

/** One fresh bench worker (the same script and flags as bench/run.ts): its RSS after load. */
function loadSample(spec: string, engine: 'quire' | 'duckdb', dataDir: string, rows: number): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./worker.ts', import.meta.url)), [], {
      execArgv,
      env: { ...process.env, TZ: 'UTC', QUIRE_MODULE: spec },
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let sample: Sample | undefined;
    child.on('message', (m: FromChild) => {
      if (m.type === 'loaded') {
        sample = { rss: m.rssAfterLoadMB };
        child.send({ type: 'exit' } satisfies ToChild);
      } else if (m.type === 'load-error') reject(new Error(m.error));
    });
    child.once('exit', () => (sample ? resolve(sample) : reject(new Error('worker exited before loading'))));
    child.send({ type: 'init', engine, dataDir, params: { rows } } satisfies ToChild);
  });
}

function summary(values: number[]): string {
  const v = [...values].sort((a, b) => a - b);
  const median = v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
  return `${v[0]!.toFixed(1)} / ${median.toFixed(1)} / ${v[v.length - 1]!.toFixed(1)}`;
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] === '--child') return importChild(argv[1]!);
  let stage = 'import';
  let rounds = 10;
  let rows = 1_000_000;
  let modules = ['src/index.js'];
  let engine: 'quire' | 'duckdb' = 'quire';
  for (let i = 0; i < argv.length; i++) {
    const val = (): string => argv[++i] ?? '';
    switch (argv[i]) {
      case '--stage':
        stage = val();
        break;
      case '--rounds':
        rounds = Number(val());
        break;
      case '--rows':
        rows = Number(val().replace(/_/g, ''));
        break;
      case '--module':
        modules = val().split(',');
        break;
      case '--engine':
        engine = val() === 'duckdb' ? 'duckdb' : 'quire';
        break;
      default:
        throw new Error(`unknown option ${argv[i]}`);
    }
  }
  if (stage !== 'import' && stage !== 'load') throw new Error('--stage is import or load');
  if (engine === 'duckdb') modules = ['(duckdb)'];
  const dataDir = stage === 'load' ? ensureDataset(fileURLToPath(new URL('../.bench-data/', import.meta.url)), rows, 42).dir : '';
  const samples = new Map<string, Sample[]>(modules.map((m) => [m, []]));
  for (let r = 0; r < rounds; r++) {
    for (const spec of modules) {
      const s = stage === 'import' ? await importSample(spec) : await loadSample(spec, engine, dataDir, rows);
      samples.get(spec)!.push(s);
      console.log(`round ${r + 1} ${spec}: ${JSON.stringify(s)}`);
    }
  }
  const fields = stage === 'import' ? (['rss', 'heapUsed', 'heapTotal', 'external', 'arrayBuffers'] as const) : (['rss'] as const);
  console.log(`\n${stage === 'import' ? 'after import + Database.create + SELECT 1' : `RSS after load, ${rows} rows`}, MB min / median / max over ${rounds} processes:`);
  for (const [spec, ss] of samples) {
    console.log(`${spec}: ${fields.map((f) => `${f} ${summary(ss.map((s) => s[f] ?? NaN))}`).join(', ')}`);
  }
}

await main(process.argv.slice(2));
