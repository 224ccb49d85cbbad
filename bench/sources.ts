/**
 * npm run bench:sources -- [--rows N] [--runs N] [--cases parquet,parquet_text,parquet_nulls,parquet_nulls_scattered,parquet_nulls_runs,parquet_nulls_runs_short,parquet_runs_dense,parquet_zstd,parquet_zstd_nulls,parquet_pruned,parquet_pruned_moving,parquet_page,parquet_page_wide,parquet_plain_text,parquet_plain_filters,parquet_decimal,parquet_glob,ndjson,ndjson_nested,ndjson_mixed,csv,csv_quoted,postgres]
 *
 * Data sources, each measured against DuckDB (threads=1) reading the same file, answers compared:
 *  1. parquet: scan + filter + aggregate over an N-row Parquet file (default 10M; written once by
 *     DuckDB into .bench-data/); parquet_text: dictionary-encoded text and a timestamp beside the
 *     numbers, grouped by the text; parquet_nulls: the same with a seventh of the values NULL, every
 *     column on the same rows; parquet_nulls_scattered: each column NULL on rows of its own (a 5th to a
 *     13th), the shape in which no column can take the filter column's NULL flags as its own;
 *     parquet_nulls_runs: the same NULLs with v, s and name equal over stretches of 20 rows (RLE runs
 *     among their indexes, picked a run at a time); parquet_nulls_runs_short: stretches of 4 rows (runs
 *     too short for that: the pages are unpacked); parquet_runs_dense: stretches of 20 rows, no NULLs;
 *     parquet_zstd: parquet_text's file compressed with zstd instead of Snappy; parquet_zstd_nulls:
 *     parquet_nulls_scattered's file in zstd;
 *     parquet_pruned: a narrow id range that row-group statistics prune; parquet_pruned_moving: the same
 *     with another range each run, so no pruning learnt from the last query applies; parquet_page: a
 *     20-row page at another OFFSET each run; parquet_page_wide: a 20,000-row one (too large a share of
 *     its row group to be read at its rows); parquet_plain_text: LIKE over unique (PLAIN-encoded)
 *     text; parquet_plain_filters: the same text under a suffix LIKE (no row group pruned), a prefix of 9 bytes
 *     and an equality (all groups but one pruned); parquet_decimal: sum/avg of a DECIMAL(12,2) by group; parquet_glob: a glob of rows/5,000
 *     files of 5,000 rows; ndjson: read_json over
 *     newline-delimited JSON of the numeric columns and a text; ndjson_mixed: the same columns with
 *     their keys in three orders and some left out (so no one record shape fits every line);
 *     ndjson_nested: ndjson's columns beside an object holding a list, not read by the query;
 *  2. csv: read_csv over an N-row CSV of (int, int, double, text, timestamp), filter + group by
 *     (DuckDB spends about 80 ms of CPU on this file shape before its first row: a 1,000-row file
 *     costs it as much, against Quire's 10. At 1M rows that is a third of DuckDB's time, so the
 *     ratio falls from 1M to 10M although Quire's time per row stays flat: read the 10M figure);
 *  3. csv_quoted: read_csv over an N-row CSV whose text column is quoted and holds delimiters,
 *     doubled quotes and newlines, aggregating over the text;
 *  4. postgres: ORDER BY … LIMIT 10 over a PostgreSQL table (needs QUIRE_TEST_PG_DSN, e.g. from
 *     .ci/start-postgres.sh), with the connector's pushdown and with it switched off.
 * Quire runs as its users run it: the package built from the sources (the bench builds it first), in a
 * plain Node process of its own (quire-process.mjs), each query timed there; the bench itself runs under
 * tsx, whose module loader in a process slowed Quire's queries by about a quarter.
 * Prints median milliseconds (and, for the file cases, the peak RSS of a fresh process running the query with
 * Quire alone under memory_limit 256MB) and writes bench/sources-results.json (merged with the
 * cases not run this time). Each engine's first run of a case is a warm-up, timed and reported apart
 * (quireFirstMs, duckdbFirstMs): Quire's includes compiling its code, and a process's first cases run
 * colder for some runs after it (parquet at 10M rows: 337, 143, 103, 110, 101, 91, 96, 92 ms), so the
 * medians take 11 runs by default.
 */
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]!.replace(/_/g, '')) : dflt;
};
const { DuckDBInstance } = await import('@duckdb/node-api');
const { default: pg } = await import('pg');
const ROWS = arg('rows', 10_000_000);
const casesArg = process.argv.indexOf('--cases');
const CASES = new Set((casesArg >= 0 ? process.argv[casesArg + 1]! : 'parquet,parquet_text,parquet_nulls,parquet_nulls_scattered,parquet_nulls_runs,parquet_nulls_runs_short,parquet_runs_dense,parquet_zstd,parquet_zstd_nulls,parquet_pruned,parquet_pruned_moving,parquet_page,parquet_page_wide,parquet_plain_text,parquet_plain_filters,parquet_decimal,parquet_glob,ndjson,ndjson_nested,ndjson_mixed,csv,csv_quoted,postgres').split(','));
const RUNS = arg('runs', 11);
/** Milliseconds as reported: one decimal below 10 ms, where a whole millisecond is a third of the figure. */
const ms = (x: number): number => (x < 10 ? Math.round(x * 10) / 10 : Math.round(x));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** One run's answer and its milliseconds: Quire's as timed in its process (quire-process.mjs), DuckDB's here. */
type Run = { rows: unknown; ms: number };
async function timed(f: () => Promise<unknown>): Promise<Run> {
  const t0 = performance.now();
  const rows = await f();
  return { rows, ms: performance.now() - t0 };
}

async function time(f: (run: number) => Promise<Run>): Promise<{ ms: number; result: unknown }> {
  await f(0); // warm-up
  const ms: number[] = [];
  let result: unknown;
  for (let i = 0; i < RUNS; i++) {
    const r = await f(i + 1);
    result = r.rows;
    ms.push(r.ms);
  }
  return { ms: median(ms), result };
}

/**
 * Both engines' medians, their runs taken in turns (so a change in the machine's load falls on both),
 * --runs at least and more until each engine has run for MIN_SAMPLE_MS: a 2 ms query's median over 5
 * runs moves by a third between invocations, over 100 it settles. V8 also optimizes a query's code
 * over its first 10–15 runs (parquet_nulls_scattered at 1M rows in a fresh process: 358, 44, 33, 29,
 * 24, 23, 27, 30, 36, 32, 36, 27, then 20–21 ms), so at 250 ms a 30 ms case's median of 12 runs sat
 * inside that climb; a second's worth of runs puts it on the settled time, the climb still in the sample.
 */
const MIN_SAMPLE_MS = 1000;
const MAX_SAMPLES = 200;
type Timed = { ms: number; result: unknown; samples: number; firstMs: number };
async function timePair(a: (run: number) => Promise<Run>, b: (run: number) => Promise<Run>): Promise<[Timed, Timed]> {
  // Warm-up, timed and reported apart: a query's first run pays for compiling its code (V8's for Quire).
  const firstA = (await a(0)).ms;
  const firstB = (await b(0)).ms;
  const msA: number[] = [];
  const msB: number[] = [];
  let resultA: unknown;
  let resultB: unknown;
  let totalA = 0;
  let totalB = 0;
  for (let i = 0; i < MAX_SAMPLES && (i < RUNS || Math.min(totalA, totalB) < MIN_SAMPLE_MS); i++) {
    const ra = await a(i + 1);
    resultA = ra.rows;
    msA.push(ra.ms);
    totalA += ra.ms;
    const rb = await b(i + 1);
    resultB = rb.rows;
    msB.push(rb.ms);
    totalB += rb.ms;
  }
  return [
    { ms: median(msA), result: resultA, samples: msA.length, firstMs: firstA },
    { ms: median(msB), result: resultB, samples: msB.length, firstMs: firstB },
  ];
}

/** ndjson_mixed's file: record i names its keys in one of three orders; k is left out of every third, v of every seventh. */
function writeMixedNdjson(file: string, rows: number): void {
  // Written under another name first, so an interrupted run leaves no partial file behind.
  const part = `${file}.part`;
  const fd = openSync(part, 'w');
  let text = '';
  for (let i = 0; i < rows; i++) {
    const id = `"id":${i}`;
    const k = `"k":${i % 1000}`;
    const v = i % 7 === 5 ? '' : `"v":${((i * 7919) % 10007) / 10007}`;
    const s = `"s":"cat${i % 17}"`;
    const keys = i % 3 === 0 ? [id, k, v, s] : i % 3 === 1 ? [s, v, id, k] : [v, id, s];
    text += `{${keys.filter((x) => x !== '').join(',')}}\n`;
    if (text.length > 1 << 20) {
      writeSync(fd, text);
      text = '';
    }
  }
  writeSync(fd, text);
  closeSync(fd);
  renameSync(part, file);
}

let previous: Record<string, unknown> = {};
try {
  previous = JSON.parse(readFileSync('bench/sources-results.json', 'utf8')) as Record<string, unknown>;
} catch {
  // First run: nothing to merge with.
}
const out: Record<string, unknown> = { ...previous, rows: ROWS, runs: RUNS, node: process.version };
/** Rows as comparable text: bigint → number, doubles to 6 significant digits (summation order differs). */
const canon = (rows: unknown[][]): string =>
  JSON.stringify(rows.map((r) => r.map((x) => (typeof x === 'bigint' ? Number(x) : typeof x === 'number' && !Number.isInteger(x) ? Number(x.toPrecision(6)) : x))));

mkdirSync('.bench-data', { recursive: true });
const duck = await DuckDBInstance.create(':memory:', { threads: '1' });
const dc = await duck.connect();
await dc.run('SET threads = 1');
// Quire runs from its build, as its users run it, in a process of its own (quire-process.mjs): built
// first, so that the figures are the sources' as they stand.
const build = spawnSync(process.execPath, [join('node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { stdio: 'inherit' });
if (build.status !== 0) throw new Error('the build (tsc -p tsconfig.json) failed');
const QUIRE_PROCESS = join('bench', 'quire-process.mjs');

/** Quire in a plain Node process (no TypeScript loader), answering one query at a time over IPC. */
class QuireProcess {
  private readonly child: ChildProcess;
  private readonly waiting = new Map<number, { resolve: (r: Run) => void; reject: (e: Error) => void }>();
  private next = 0;
  private constructor(child: ChildProcess) {
    this.child = child;
    child.on('message', (m: { id: number; ms?: number; rows?: unknown; error?: string }) => {
      const w = this.waiting.get(m.id);
      if (w === undefined) return;
      this.waiting.delete(m.id);
      if (m.error !== undefined) w.reject(new Error(m.error));
      else w.resolve({ rows: m.rows, ms: m.ms! });
    });
    child.on('exit', (code) => {
      for (const w of this.waiting.values()) w.reject(new Error(`Quire's process exited (${code})`));
      this.waiting.clear();
    });
  }

  static async start(): Promise<QuireProcess> {
    // execArgv [] : not the loader this process runs under.
    const child = fork(QUIRE_PROCESS, [], { execArgv: [], serialization: 'advanced', stdio: 'inherit' });
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`Quire's process exited (${code}) before it was ready`)));
    });
    return new QuireProcess(child);
  }

  query(sql: string): Promise<Run> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.send({ id, sql });
    });
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.send('close');
    await exited;
  }
}
const db = await QuireProcess.start();
const duckRows = async (sql: string): Promise<unknown[][]> => (await (await dc.runAndReadAll(sql)).getRows()) as unknown[][];

// ---- file readers ----
/**
 * `write`: DuckDB SQL that writes the file, or a function that does. A query given as a function of
 * the run (0 the warm-up) asks something else each run, as a user paging or filtering does: both
 * engines get the same sequence, and the last run's answers are compared.
 */
type CaseSql = string | ((run: number) => string);
async function fileCase(name: string, file: string, write: string | (() => void), quireSql: CaseSql, duckSql: CaseSql = quireSql): Promise<void> {
  if (!existsSync(file)) {
    console.log(`writing ${file} …`);
    if (typeof write === 'string') await dc.run(write);
    else write();
  }
  const at = (sql: CaseSql, run: number): string => (typeof sql === 'string' ? sql : sql(run));
  const sqlQuire = at(quireSql, 0);
  const [q, d] = await timePair(
    async (run) => db.query(at(quireSql, run)),
    async (run) => timed(() => duckRows(at(duckSql, run))),
  );
  const agree = canon(q.result as unknown[][]) === canon(d.result as unknown[][]);
  const ratio = +(d.ms / q.ms).toFixed(2);
  // Quire alone in a fresh process (this one also holds DuckDB): peak RSS under memory_limit 256MB.
  const child = spawnSync(process.execPath, [QUIRE_PROCESS, '--rss-only', sqlQuire], { encoding: 'utf8' });
  const quirePeakRssMB = child.status === 0 ? Number(child.stdout.trim().split('\n').pop()) : null;
  out[name] = { rows: ROWS, query: sqlQuire, quireMs: ms(q.ms), duckdbMs: ms(d.ms), duckdbOverQuire: ratio, samples: q.samples, quireFirstMs: ms(q.firstMs), duckdbFirstMs: ms(d.firstMs), resultsAgree: agree, quirePeakRssMB };
  console.log(
    `${name}, ${ROWS} rows: quire ${ms(q.ms)} ms, duckdb(threads=1) ${ms(d.ms)} ms (median of ${q.samples} runs each, taken in turns; first run ${ms(q.firstMs)} / ${ms(d.firstMs)} ms), duckdb/quire ${ratio}, results agree: ${agree}, quire peak RSS ${quirePeakRssMB} MB`,
  );
}
// ---- 1. Parquet ----
const half = Math.floor(ROWS / 2);
if (CASES.has('parquet')) {
  const file = join('.bench-data', `sources-${ROWS}.parquet`);
  await fileCase(
    'parquet',
    file,
    `COPY (SELECT i::INTEGER AS id, (i % 1000)::INTEGER AS k, ((i * 7919) % 10007) / 10007.0 AS v, 'cat' || (i % 17) AS s
           FROM range(${ROWS}) t(i)) TO '${file}' (FORMAT parquet)`,
    `SELECT k % 10 AS g, count(*) AS n, sum(v) AS total FROM read_parquet('${file}') WHERE v > 0.25 AND id >= ${half} GROUP BY 1 ORDER BY 1`,
  );
}
// Text (dictionary-encoded: 17 and 5003 distinct values) and a timestamp beside the numbers.
// Nulls: 'none'; 'same' (every column but id NULL on the same rows, i % 7 = 3); 'scattered' (each
// column NULL on rows of its own, so no column can take the filter column's NULL flags as its own).
// 'runs': scattered's NULLs, with v, s and name equal over stretches of 20 rows, so their indexes hold RLE
// runs: pages the picks by rank cannot read in their packed bits (parquet-page-runs.ts reads them).
// 'runs_short': the same with stretches of 4 rows (runs of 3 or 4 present values: pages the run picker
// refuses). 'runs_dense': stretches of 20 rows without NULLs (pages no picker by rank reads).
type Nulls = 'none' | 'same' | 'scattered' | 'runs' | 'runs_short' | 'runs_dense';
// Codec: DuckDB's default (Snappy), or zstd (Polars' default).
type Codec = 'snappy' | 'zstd';
const textFile = (nulls: Nulls | boolean, codec: Codec = 'snappy'): string => {
  const kind = nulls === true ? 'same' : nulls === false ? 'none' : nulls;
  const name = { none: 'text', same: 'nulls', scattered: 'nulls-scattered', runs: 'nulls-runs', runs_short: 'nulls-runs-short', runs_dense: 'runs-dense' }[kind];
  return join('.bench-data', `sources-${name}${codec === 'snappy' ? '' : `-${codec}`}-${ROWS}.parquet`);
};
const textWrite = (nulls: Nulls | boolean, codec: Codec = 'snappy'): string => {
  const kind = nulls === true ? 'same' : nulls === false ? 'none' : nulls;
  let col = 0;
  const n = (e: string): string => {
    const m = [7, 11, 13, 5, 9][col++]!;
    if (kind === 'none' || kind === 'runs_dense') return e;
    return `CASE WHEN i % ${kind === 'same' ? 7 : m} = 3 THEN NULL ELSE ${e} END`;
  };
  // The row number v, s and name are made of: i, or the stretch of 20 rows i is in.
  const j = kind === 'runs' || kind === 'runs_dense' ? '(i // 20)' : kind === 'runs_short' ? '(i // 4)' : 'i';
  return `COPY (SELECT i::INTEGER AS id, ${n('(i % 1000)::INTEGER')} AS k, ${n(`((${j} * 7919) % 10007) / 10007.0`)} AS v,
                  ${n(`'cat' || (${j} % 17)`)} AS s, ${n(`'name' || (${j} % 5003)`)} AS name,
                  ${n(`TIMESTAMP '2020-01-01' + to_seconds((i * 7) % 94608000)`)} AS ts
           FROM range(${ROWS}) t(i)) TO '${textFile(kind, codec)}' (FORMAT parquet${codec === 'snappy' ? '' : `, COMPRESSION ${codec}`})`;
};
const textQuery = (nulls: Nulls | boolean, codec: Codec = 'snappy'): string =>
  `SELECT s, count(*) AS n, count(name) AS names, sum(v) AS total FROM read_parquet('${textFile(nulls, codec)}') WHERE k < 500 GROUP BY s ORDER BY s`;
if (CASES.has('parquet_text')) await fileCase('parquet_text', textFile(false), textWrite(false), textQuery(false));
if (CASES.has('parquet_nulls')) await fileCase('parquet_nulls', textFile(true), textWrite(true), textQuery(true));
if (CASES.has('parquet_nulls_scattered')) await fileCase('parquet_nulls_scattered', textFile('scattered'), textWrite('scattered'), textQuery('scattered'));
if (CASES.has('parquet_nulls_runs')) await fileCase('parquet_nulls_runs', textFile('runs'), textWrite('runs'), textQuery('runs'));
if (CASES.has('parquet_nulls_runs_short')) await fileCase('parquet_nulls_runs_short', textFile('runs_short'), textWrite('runs_short'), textQuery('runs_short'));
if (CASES.has('parquet_runs_dense')) await fileCase('parquet_runs_dense', textFile('runs_dense'), textWrite('runs_dense'), textQuery('runs_dense'));
if (CASES.has('parquet_zstd')) await fileCase('parquet_zstd', textFile(false, 'zstd'), textWrite(false, 'zstd'), textQuery(false, 'zstd'));
// ZSTD with NULLs scattered per column: every page's definition levels read, from whole-decoded pages.
if (CASES.has('parquet_zstd_nulls')) await fileCase('parquet_zstd_nulls', textFile('scattered', 'zstd'), textWrite('scattered', 'zstd'), textQuery('scattered', 'zstd'));
if (CASES.has('parquet_pruned')) {
  // Rows in id order, so each row group covers one id range and the filter keeps one group.
  const lo = Math.floor(ROWS * 0.9);
  await fileCase('parquet_pruned', textFile(false), textWrite(false),
    `SELECT count(*) AS n, sum(v) AS total, min(name) AS lo FROM read_parquet('${textFile(false)}') WHERE id BETWEEN ${lo} AND ${lo + 999}`);
}
if (CASES.has('parquet_pruned_moving')) {
  // parquet_pruned with another id range each run (a user paging through the file): nothing learnt
  // from an earlier query's pruning or plan applies, every run prunes afresh. 7919 is prime to 900, so
  // the first 900 runs never repeat a range (a repeated text would find its plan kept).
  const step = Math.max(1, Math.floor(ROWS / 1000));
  await fileCase('parquet_pruned_moving', textFile(false), textWrite(false), (run) => {
    const lo = Math.floor(ROWS * 0.05) + ((run * 7919) % 900) * step;
    return `SELECT count(*) AS n, sum(v) AS total, min(name) AS lo FROM read_parquet('${textFile(false)}') WHERE id BETWEEN ${lo} AND ${lo + 999}`;
  });
}
if (CASES.has('parquet_page')) {
  // A user paging deep into a file: another 20-row page each run, anywhere in the file.
  await fileCase('parquet_page', textFile(false), textWrite(false), (run) => {
    const off = Math.floor(((run * 7919) % 997) * (ROWS / 1000));
    return `SELECT id, k, v, s, name FROM read_parquet('${textFile(false)}') LIMIT 20 OFFSET ${off}`;
  });
}
if (CASES.has('parquet_page_wide')) {
  // The shape the reader's LIMIT does not narrow: 20,000 rows, more than an eighth of a 122,880-row
  // group, so the rows' groups are decoded whole (and a page may span two groups).
  await fileCase('parquet_page_wide', textFile(false), textWrite(false), (run) => {
    const off = Math.floor(((run * 7919) % 997) * (ROWS / 1000));
    return `SELECT id, k, v, s, name FROM read_parquet('${textFile(false)}') LIMIT 20000 OFFSET ${off}`;
  });
}
// Shapes beside the dictionary-encoded ones: unique text (PLAIN pages), DECIMAL(12,2) (INT64
// unscaled), and a glob of 5,000-row files (rows/5,000 of them: 200 at 1M).
const shapesFile = join('.bench-data', `sources-shapes-${ROWS}.parquet`);
const shapesWrite = `COPY (SELECT i::INTEGER AS id, (i % 100)::INTEGER AS g, ((i * 7919) % 1000003 / 100.0)::DECIMAL(12,2) AS price,
                  'user-' || i AS u FROM range(${ROWS}) t(i)) TO '${shapesFile}' (FORMAT parquet)`;
if (CASES.has('parquet_plain_text')) {
  await fileCase('parquet_plain_text', shapesFile, shapesWrite, `SELECT count(*) AS n, max(u) AS hi FROM read_parquet('${shapesFile}') WHERE u LIKE 'user-99%'`);
}
if (CASES.has('parquet_plain_filters')) {
  await fileCase('parquet_plain_suffix', shapesFile, shapesWrite, `SELECT count(*) AS n, min(u) AS lo FROM read_parquet('${shapesFile}') WHERE u LIKE '%99'`);
  // A prefix past 8 bytes: the general per-value literal compare, not the two-word one.
  await fileCase('parquet_plain_long', shapesFile, shapesWrite, `SELECT count(*) AS n, max(u) AS hi FROM read_parquet('${shapesFile}') WHERE u LIKE 'user-9999%'`);
  await fileCase('parquet_plain_eq', shapesFile, shapesWrite, `SELECT count(*) AS n, min(id) AS lo FROM read_parquet('${shapesFile}') WHERE u = 'user-${Math.floor(ROWS / 3)}'`);
}
if (CASES.has('parquet_decimal')) {
  // Sums as text (exact in both); avg as a double (DuckDB's avg of a DECIMAL is one).
  await fileCase('parquet_decimal', shapesFile, shapesWrite,
    `SELECT g, CAST(sum(price) AS VARCHAR) AS total, CAST(avg(price) AS FLOAT8) AS mean, count(*) AS n FROM read_parquet('${shapesFile}') GROUP BY g ORDER BY g`);
}
if (CASES.has('parquet_glob')) {
  const files = Math.max(1, Math.floor(ROWS / 5000));
  const dir = join('.bench-data', `sources-glob-${ROWS}`);
  const part = (f: number): string => join(dir, `part-${String(f).padStart(5, '0')}.parquet`);
  if (!existsSync(part(files - 1))) {
    console.log(`writing ${files} files into ${dir} …`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < files; f++) {
      await dc.run(`COPY (SELECT (i + ${f * 5000})::INTEGER AS id, (i % 100)::INTEGER AS g, (i * 7919 % 10007) / 10007.0 AS v
                     FROM range(5000) t(i)) TO '${part(f)}' (FORMAT parquet)`);
    }
  }
  await fileCase('parquet_glob', part(files - 1), () => {}, `SELECT g, count(*) AS n, sum(v) AS total FROM read_parquet('${join(dir, '*.parquet')}') GROUP BY g ORDER BY g`);
}
if (CASES.has('ndjson')) {
  const file = join('.bench-data', `sources-${ROWS}.ndjson`);
  await fileCase(
    'ndjson',
    file,
    `COPY (SELECT i AS id, i % 1000 AS k, ((i * 7919) % 10007) / 10007.0 AS v, 'cat' || (i % 17) AS s
           FROM range(${ROWS}) t(i)) TO '${file}' (FORMAT json)`,
    `SELECT s, count(*) AS n, sum(v) AS total FROM read_json('${file}') WHERE k < 500 GROUP BY s ORDER BY s`,
  );
}
if (CASES.has('ndjson_nested')) {
  // ndjson's columns beside an object holding a list, which the query does not read.
  const file = join('.bench-data', `sources-nested-${ROWS}.ndjson`);
  await fileCase(
    'ndjson_nested',
    file,
    `COPY (SELECT i AS id, i % 1000 AS k, ((i * 7919) % 10007) / 10007.0 AS v, 'cat' || (i % 17) AS s,
                  {'a': i % 10, 'b': 'x' || (i % 7), 'l': [i % 3, i % 5]} AS obj
           FROM range(${ROWS}) t(i)) TO '${file}' (FORMAT json)`,
    `SELECT s, count(*) AS n, sum(v) AS total FROM read_json('${file}') WHERE k < 500 GROUP BY s ORDER BY s`,
  );
}
if (CASES.has('ndjson_mixed')) {
  // The same columns, but records name them in three orders and some leave k or v out: no one
  // shape fits every line, as in hand-written or merged JSON.
  const file = join('.bench-data', `sources-mixed-${ROWS}.ndjson`);
  await fileCase(
    'ndjson_mixed',
    file,
    () => writeMixedNdjson(file, ROWS),
    `SELECT s, count(*) AS n, count(k) AS ks, sum(v) AS total FROM read_json('${file}') WHERE k < 500 OR k IS NULL GROUP BY s ORDER BY s`,
  );
}

// ---- 2. CSV ----
if (CASES.has('csv')) {
  const file = join('.bench-data', `sources-${ROWS}.csv`);
  await fileCase(
    'csv',
    file,
    `COPY (SELECT i::INTEGER AS id, (i % 1000)::INTEGER AS g, ((i * 7919) % 10007) / 10007.0 AS v, 'name' || (i % 5003) AS s,
                  TIMESTAMP '2020-01-01' + to_seconds((i * 7) % 94608000) AS ts
           FROM range(${ROWS}) t(i)) TO '${file}' (FORMAT csv, HEADER)`,
    `SELECT g, count(*) AS n, sum(v) AS total FROM read_csv('${file}') WHERE id % 2 = 0 GROUP BY g ORDER BY g`,
    `SELECT g, count(*) AS n, sum(v) AS total FROM read_csv('${file}') WHERE id % 2 = 0 GROUP BY g ORDER BY g`,
  );
}
if (CASES.has('csv_quoted')) {
  const file = join('.bench-data', `sources-quoted-${ROWS}.csv`);
  // Every third note holds a newline, every fifth a doubled quote; all hold the delimiter.
  await fileCase(
    'csv_quoted',
    file,
    `COPY (SELECT i::INTEGER AS id, 'item ' || (i % 100) || ', size ' || (i % 7) || CASE WHEN i % 3 = 0 THEN chr(10) || 'second line' ELSE '' END
                    || CASE WHEN i % 5 = 0 THEN ' "quoted"' ELSE '' END AS note, (i % 1000) / 10.0 AS price
           FROM range(${ROWS}) t(i)) TO '${file}' (FORMAT csv, HEADER, FORCE_QUOTE (note))`,
    `SELECT length(note) AS len, count(*) AS n, sum(price) AS total FROM read_csv('${file}') GROUP BY 1 ORDER BY 1`,
    `SELECT length(note) AS len, count(*) AS n, sum(price) AS total FROM read_csv('${file}') GROUP BY 1 ORDER BY 1`,
  );
}

// ---- 4. PostgreSQL Top-N ----
const dsn = process.env.QUIRE_TEST_PG_DSN;
if (!CASES.has('postgres')) {
  // Not asked for.
} else if (dsn === undefined) {
  console.log('postgres: QUIRE_TEST_PG_DSN not set, skipped');
} else {
  const pgRows = Math.min(ROWS, 1_000_000);
  const admin = new pg.Client({ connectionString: dsn });
  await admin.connect();
  await admin.query(`DROP TABLE IF EXISTS quire_bench_t; CREATE TABLE quire_bench_t AS
    SELECT i AS id, (i::int8 * 7919) % 1000003 AS score, 'name' || i AS name FROM generate_series(1, ${pgRows}) i; ANALYZE quire_bench_t`);
  await db.query(`ATTACH '${dsn}' AS pg`);
  const topn = `SELECT id, score, name FROM pg.quire_bench_t ORDER BY score DESC, id LIMIT 10`;
  const on = await time(async () => db.query(topn));
  // Local/Global split: 4 ctid ranges, each with its own remote ORDER BY … LIMIT, read concurrently.
  await db.query(`SET quire.connector_partitions = 4`);
  const split = await time(async () => db.query(topn));
  await db.query(`RESET quire.connector_partitions`);
  await db.query(`SET quire.disabled_rules = 'push-into-remote-scan'`);
  const off = await time(async () => db.query(topn));
  await db.query(`RESET quire.disabled_rules`);
  const same = JSON.stringify(on.result) === JSON.stringify(off.result) && JSON.stringify(split.result) === JSON.stringify(off.result);
  out.postgresTopN = { rows: pgRows, query: topn, pushdownMs: Math.round(on.ms), split4Ms: Math.round(split.ms), noPushdownMs: Math.round(off.ms), speedup: +(off.ms / on.ms).toFixed(1), resultsAgree: same };
  console.log(`postgres ORDER BY LIMIT 10, ${pgRows} rows: pushdown ${on.ms.toFixed(0)} ms, split into 4 ${split.ms.toFixed(0)} ms, without ${off.ms.toFixed(0)} ms, results agree: ${same}`);
  await admin.query('DROP TABLE quire_bench_t');
  await admin.end();
}
await db.close();
writeFileSync('bench/sources-results.json', JSON.stringify(out, null, 2) + '\n');
