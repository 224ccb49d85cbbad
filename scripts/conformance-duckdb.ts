/**
 * DuckDB sqllogictest conformance report (test/harness/duckdb-conformance.ts says how statements are
 * scored and sorted).
 *
 *   npx tsx scripts/conformance-duckdb.ts [--verbose] [--gaps] [--no-write] [--json] [--timeout s] [--write-floor] [file...]
 *
 * Files are paths below test/conformance/duckdb (`sql/window/test_rank.test`), or a directory prefix
 * (`sql/window`); by default every file. --verbose prints every failing statement, --gaps only those
 * PostgreSQL gets right. On the full set the results are written into docs/conformance.md unless
 * --no-write is given; --write-floor also writes Quire's pass count per file into
 * test/conformance/duckdb-floor.json, the floor `npx vitest run test/conformance` holds Quire to.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { duckTestFiles, runDuckFile, runDuckFileIsolated, type DuckCategory, type DuckChildFile, type DuckFileReport } from '../test/harness/duckdb-conformance.js';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const DOC = join(root, 'docs', 'conformance.md');
const FLOOR = join(root, 'test', 'conformance', 'duckdb-floor.json');
const BEGIN = '<!-- results:duckdb -->';
const END = '<!-- /results:duckdb -->';

function pct(n: number, d: number): string {
  return d === 0 ? '–' : `${((100 * n) / d).toFixed(1)}%`;
}

/** The group a file reports under: its directory below sql/. */
function group(file: string): string {
  return file.split('/').slice(1, -1).join('/');
}

function summaryTable(reports: DuckFileReport[]): string {
  const groups = new Map<string, DuckFileReport[]>();
  for (const r of reports) groups.set(group(r.file), [...(groups.get(group(r.file)) ?? []), r]);
  const head = [
    '| files | run / skipped | statements | passed | raw pass rate | PostgreSQL\'s pass rate | Quire differs from PostgreSQL | PostgreSQL does what Quire does | all three differ |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const row = (name: string, rs: DuckFileReport[]): string => {
    const sum = (f: (r: DuckFileReport) => number) => rs.reduce((s, r) => s + f(r), 0);
    const total = sum((r) => r.total);
    const passed = sum((r) => r.passed);
    const cat = (c: DuckCategory) => sum((r) => r.byCategory[c]);
    const skipped = rs.filter((r) => r.skipped !== undefined).length;
    const pgPassed = sum((r) => r.postgresPassed ?? 0);
    return `| ${name} | ${rs.length - skipped} / ${skipped} | ${total} | ${passed} | ${pct(passed, total)} | ${pct(pgPassed, total)} | ${cat('postgres-agrees-with-duckdb')} | ${cat('postgres-agrees-with-quire')} | ${cat('all-differ')} |`;
  };
  const lines = [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([g, rs]) => row(g, rs));
  return [...head, ...lines, row('**total**', reports)].join('\n');
}

function writeDoc(reports: DuckFileReport[]): void {
  let doc = readFileSync(DOC, 'utf8');
  const skipped = reports.filter((r) => r.skipped !== undefined).map((r) => `\`${r.file}\` (${r.skipped})`);
  const body = [
    BEGIN,
    '### Quire on DuckDB\'s sqllogictest files',
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
    '',
    summaryTable(reports),
    '',
    skipped.length > 0 ? `Files not run: ${skipped.join(', ')}.` : 'Every file ran.',
    END,
  ].join('\n');
  const a = doc.indexOf(BEGIN);
  if (a < 0) doc += `\n${body}\n`;
  else doc = doc.slice(0, a) + body + doc.slice(doc.indexOf(END) + END.length);
  writeFileSync(DOC, doc);
}

/**
 * Child mode (runDuckFilesIsolated): the files given as JSON ({file, skipQuire, skipPostgres}[]) in
 * order, progress on stderr, each file's report as one line of JSON on stdout.
 */
async function child(argv: string[]): Promise<void> {
  const plan = JSON.parse(argv[0]!) as DuckChildFile[];
  const write = (line: string): Promise<void> => new Promise((resolve) => process.stdout.write(line, () => resolve()));
  for (const [i, f] of plan.entries()) {
    const r = await runDuckFile(f.file, {
      skipQuire: new Set(f.skipQuire),
      skipPostgres: new Set(f.skipPostgres),
      postgres: !argv.includes('--quire-only'),
      onRecord: (k, engine) => process.stderr.write(`@@record ${i} ${k} ${engine}\n`),
    });
    await write(`@@report ${JSON.stringify(r)}\n`);
  }
  // Exit once the reports are flushed: a large one outlives a synchronous exit on a pipe.
  process.exit(0);
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] === '--child') return child(argv.slice(1));
  let verbose = false;
  let gaps = false;
  let write = true;
  let json = false;
  let writeFloor = false;
  let timeoutMs = 20_000;
  const picks: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--verbose' || a === '-v') verbose = true;
    else if (a === '--gaps') gaps = true;
    else if (a === '--no-write') write = false;
    else if (a === '--json') json = true;
    else if (a === '--write-floor') writeFloor = true;
    else if (a === '--timeout') timeoutMs = 1000 * Number(argv[++i]);
    else picks.push(a);
  }
  const all = duckTestFiles();
  const files = picks.length === 0 ? all : all.filter((f) => picks.some((p) => f === p || f.startsWith(p.endsWith('/') ? p : `${p}/`)));
  const reports: DuckFileReport[] = [];
  for (const f of files) {
    const t0 = Date.now();
    const r = await runDuckFileIsolated(f, timeoutMs);
    reports.push(r);
    const secs = ((Date.now() - t0) / 1000).toFixed(1);
    if (r.skipped !== undefined) console.log(`${f}: skipped (${r.skipped})`);
    else console.log(`${f}: ${r.passed}/${r.total} passed; Quire differs from PostgreSQL in ${r.byCategory['postgres-agrees-with-duckdb']} (${secs} s)`);
    if (verbose || gaps) {
      for (const s of r.statements) {
        if (s.status === 'pass' || (gaps && s.category !== 'postgres-agrees-with-duckdb')) continue;
        console.log(`  ${f}:${s.line} [${s.category}] ${s.sql}\n      ${s.detail ?? ''}`);
      }
    }
  }
  console.log(`\n${summaryTable(reports)}`);
  if (json) console.log(JSON.stringify(reports, null, 2));
  if (write && picks.length === 0) {
    writeDoc(reports);
    console.log(`\nwrote ${DOC}`);
  }
  if (writeFloor && picks.length === 0) {
    const files = Object.fromEntries(reports.filter((r) => r.passed > 0).map((r) => [r.file, r.passed]));
    writeFileSync(FLOOR, `${JSON.stringify({ files }, null, 1)}\n`);
    console.log(`wrote ${FLOOR}`);
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
