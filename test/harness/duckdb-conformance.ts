/**
 * Runs DuckDB's sqllogictest files (test/conformance/duckdb) on Quire and, beside it, on PostgreSQL
 * (PGlite): Quire is scored against DuckDB's expected results, and each statement Quire fails is
 * sorted by what PostgreSQL does with it:
 *
 * - `postgres-agrees-with-duckdb`: PostgreSQL gives DuckDB's result and Quire does not. These are
 *   Quire's own gaps (a missing feature or a wrong answer), the list to work from.
 * - `postgres-agrees-with-quire`: PostgreSQL gives what Quire gives (both refuse a DuckDB-only
 *   statement, or both return PostgreSQL's answer where DuckDB's semantics differ).
 * - `all-differ`: three different outcomes.
 *
 * Statements are run in file order on both engines in one session each (TimeZone UTC, DateStyle ISO).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asSqlError, newPglite, newQuire, type SqlConnection, type SqlResult } from './connection.js';
import { duckText, matchResult, parseDuckTest, type DuckRecord } from './duckdb-slt.js';

export const DUCKDB_SUITE = join(dirname(fileURLToPath(import.meta.url)), '..', 'conformance', 'duckdb');

/** Files whose `require` names something neither engine has: DuckDB itself skips them without it. */
const UNAVAILABLE = [/^tpch/, /^tpcds/];

export type DuckCategory = 'postgres-agrees-with-duckdb' | 'postgres-agrees-with-quire' | 'all-differ';

export interface DuckStatementReport {
  line: number;
  sql: string;
  status: 'pass' | 'fail';
  category?: DuckCategory;
  /** Why Quire's outcome is not DuckDB's. */
  detail?: string;
}

export interface DuckFileReport {
  file: string;
  /** Why the whole file was not run (a `require` or a directive that needs a database file). */
  skipped?: string;
  total: number;
  passed: number;
  /** Statements whose outcome on PostgreSQL is DuckDB's (null when PostgreSQL was not run). */
  postgresPassed: number | null;
  byCategory: Record<DuckCategory, number>;
  statements: DuckStatementReport[];
}

/** Every test file of the suite, as paths relative to it (`sql/window/test_rank.test`). */
export function duckTestFiles(): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.test(_slow)?$/.test(name)) out.push(relative(DUCKDB_SUITE, p));
    }
  };
  walk(join(DUCKDB_SUITE, 'sql'));
  return out;
}

type Outcome = { error: string } | { result: SqlResult };

async function outcome(c: SqlConnection, sql: string): Promise<Outcome> {
  try {
    return { result: await c.query(sql) };
  } catch (e) {
    const err = asSqlError(e);
    return { error: `${err.code ?? ''} ${err.message}`.trim() };
  }
}

function textRows(r: SqlResult): string[][] {
  return r.rows.map((row) => row.map((v, i) => duckText(v, r.types?.[i])));
}

/** Whether an engine's outcome is what DuckDB's file expects; the reason when not. */
function judge(rec: DuckRecord, o: Outcome | 'skipped'): string | null {
  if (o === 'skipped') return 'timed out';
  if (rec.kind === 'statement') {
    if (rec.expect === 'maybe') return null;
    if (rec.expect === 'error') return 'error' in o ? null : 'succeeded where DuckDB raises an error';
    return 'error' in o ? o.error : null;
  }
  if ('error' in o) return o.error;
  const m = matchResult(rec, textRows(o.result));
  return m.ok ? null : m.reason;
}

function sameOutcome(a: Outcome | 'skipped', b: Outcome | 'skipped'): boolean {
  if (a === 'skipped' || b === 'skipped') return false;
  if ('error' in a || 'error' in b) return 'error' in a && 'error' in b;
  return JSON.stringify(textRows(a.result)) === JSON.stringify(textRows(b.result));
}

export interface DuckRunOptions {
  /** Record indices not to run on Quire / on PostgreSQL (they hung an earlier attempt). */
  skipQuire?: Set<number>;
  skipPostgres?: Set<number>;
  /** False: Quire alone (a pass count, failures unsorted). */
  postgres?: boolean;
  /** Called before each record runs on an engine (the watchdog of the isolated runner). */
  onRecord?: (index: number, engine: 'quire' | 'postgres') => void;
}

export async function runDuckFile(file: string, opts: DuckRunOptions = {}): Promise<DuckFileReport> {
  const report: DuckFileReport = {
    file,
    total: 0,
    passed: 0,
    postgresPassed: opts.postgres === false ? null : 0,
    byCategory: { 'postgres-agrees-with-duckdb': 0, 'postgres-agrees-with-quire': 0, 'all-differ': 0 },
    statements: [],
  };
  const tempDir = mkdtempSync(join(tmpdir(), 'quire-duckdb-slt-'));
  try {
    const parsed = parseDuckTest(readFileSync(join(DUCKDB_SUITE, file), 'utf8'), { testDir: join(DUCKDB_SUITE, '..'), tempDir });
    const missing = parsed.requires.find((r) => UNAVAILABLE.some((re) => re.test(r)));
    if (missing !== undefined) report.skipped = `require ${missing}`;
    else if (parsed.unsupported.length > 0) report.skipped = `${parsed.unsupported[0]} (needs a DuckDB database file)`;
    if (report.skipped !== undefined) return report;
    const q = await newQuire();
    const pg = opts.postgres === false ? null : await newPglite();
    try {
      const session = "SET TimeZone = 'UTC'; SET DateStyle = 'ISO, MDY'; SET IntervalStyle = 'postgres'";
      await q.query(session);
      await pg?.query(session);
      for (let k = 0; k < parsed.records.length; k++) {
        const rec = parsed.records[k]!;
        opts.onRecord?.(k, 'quire');
        const qo = opts.skipQuire?.has(k) ? 'skipped' : await outcome(q, rec.sql);
        let po: Outcome | 'skipped' | null = null;
        if (pg !== null) {
          opts.onRecord?.(k, 'postgres');
          po = opts.skipPostgres?.has(k) ? 'skipped' : await outcome(pg, rec.sql);
        }
        report.total++;
        const qWhy = judge(rec, qo);
        const pgPasses = po !== null && judge(rec, po) === null;
        if (pgPasses) report.postgresPassed = (report.postgresPassed ?? 0) + 1;
        const sql = rec.sql.replace(/\s+/g, ' ').trim().slice(0, 200);
        if (qWhy === null) {
          report.passed++;
          report.statements.push({ line: rec.line, sql, status: 'pass' });
          continue;
        }
        if (po === null) {
          report.statements.push({ line: rec.line, sql, status: 'fail', detail: qWhy.slice(0, 300) });
          continue;
        }
        const category: DuckCategory = pgPasses ? 'postgres-agrees-with-duckdb' : sameOutcome(qo, po) ? 'postgres-agrees-with-quire' : 'all-differ';
        report.byCategory[category]++;
        report.statements.push({ line: rec.line, sql, status: 'fail', category, detail: qWhy.slice(0, 300) });
      }
    } finally {
      await q.close?.();
      await pg?.close?.();
    }
    return report;
  } finally {
    rmSync(tempDir, { recursive: true, force: true });
  }
}

/** One file of a child's run (scripts/conformance-duckdb.ts --child), and the records it leaves out. */
export interface DuckChildFile {
  file: string;
  skipQuire: number[];
  skipPostgres: number[];
}

/**
 * runDuckFile over several files in one child process (scripts/conformance-duckdb.ts --child) with a
 * watchdog: a record that runs longer than `timeoutMs` on either engine gets the child killed, and a
 * new child goes on from that file without that record on that engine (it then counts as failed
 * there). One child runs many files: starting one costs about as much as running a typical file.
 */
export async function runDuckFilesIsolated(files: readonly string[], timeoutMs = 20_000, postgres = true): Promise<DuckFileReport[]> {
  const { spawn } = await import('node:child_process');
  const script = join(DUCKDB_SUITE, '..', '..', '..', 'scripts', 'conformance-duckdb.ts');
  const plan: DuckChildFile[] = files.map((file) => ({ file, skipQuire: [], skipPostgres: [] }));
  const reports: DuckFileReport[] = [];
  let timeouts = 0;
  while (reports.length < plan.length) {
    const rest = plan.slice(reports.length);
    const args = ['--import', 'tsx', script, '--child', JSON.stringify(rest)];
    if (!postgres) args.push('--quire-only');
    const base = reports.length;
    const result = await new Promise<{ stuck?: { i: number; k: number; engine: string }; error?: string }>((resolve) => {
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let current: { i: number; k: number; engine: string } | undefined;
      let stdout = '';
      let pending = '';
      const tail: string[] = [];
      let timer: NodeJS.Timeout | undefined;
      const arm = (ms: number): void => {
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          resolve(current === undefined ? { error: 'timed out before the first record' } : { stuck: current });
        }, ms);
      };
      arm(Math.max(timeoutMs, 60_000));
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        // One report per line, in file order.
        for (let nl = stdout.indexOf('\n'); nl >= 0; nl = stdout.indexOf('\n')) {
          const line = stdout.slice(0, nl);
          stdout = stdout.slice(nl + 1);
          if (!line.startsWith('@@report ')) continue;
          reports.push(JSON.parse(line.slice(9)) as DuckFileReport);
          // The next file's set-up gets the start-up allowance.
          arm(Math.max(timeoutMs, 60_000));
        }
      });
      child.stderr.on('data', (d: Buffer) => {
        const lines = (pending + d.toString()).split('\n');
        pending = lines.pop() ?? '';
        for (const l of lines) {
          const m = /^@@record (\d+) (\d+) (quire|postgres)$/.exec(l);
          if (m !== null) {
            current = { i: Number(m[1]), k: Number(m[2]), engine: m[3]! };
            arm(timeoutMs);
          } else tail.push(l), tail.length > 20 && tail.shift();
        }
      });
      child.on('exit', (code) => {
        if (timer) clearTimeout(timer);
        resolve(code === 0 ? {} : { error: `child exited with ${code}: ${tail.join('\n')}` });
      });
    });
    if (reports.length === plan.length) break;
    if (result.stuck === undefined) throw new Error(`DuckDB conformance child for ${plan[reports.length]!.file} failed: ${result.error ?? 'it ended before the file did'}`);
    // The record is the stuck file's (its index in this child's plan); the files before it reported.
    const at = plan[base + result.stuck.i]!;
    if (++timeouts > 50) throw new Error(`DuckDB conformance run for ${at.file}: too many timeouts`);
    (result.stuck.engine === 'quire' ? at.skipQuire : at.skipPostgres).push(result.stuck.k);
  }
  return reports;
}

/** runDuckFilesIsolated of one file. */
export async function runDuckFileIsolated(file: string, timeoutMs = 20_000, postgres = true): Promise<DuckFileReport> {
  return (await runDuckFilesIsolated([file], timeoutMs, postgres))[0]!;
}
