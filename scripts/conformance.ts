/**
 * PostgreSQL regression-test conformance report.
 *
 *   npx tsx scripts/conformance.ts [--engine quire|pglite] [--verbose] [--no-write] [--json] [--timeout s] [file...]
 *
 * Each file runs in a child process; a statement running longer than --timeout seconds (default 20) is
 * killed and counted as errored, and the file is rerun without it.
 *
 * Files are names from test/conformance/postgres/sql without .sql (default: the set in DEFAULT_FILES).
 * When run on the default file set, the results table for the engine is written into docs/conformance.md
 * (between the engine's markers) unless --no-write is given.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineName } from '../test/harness/connection.js';
import { DEFAULT_FILES, OUT_OF_SCOPE, pct, runConformanceFile, runConformanceFileIsolated, summaryTable, type FileReport } from '../test/harness/conformance.js';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const DOC = join(root, 'docs', 'conformance.md');

function docSkeleton(): string {
  return `# PostgreSQL regression-test conformance

Quire replays a subset of PostgreSQL 17's own regression suite (\`src/test/regress\`, copied with its
COPYRIGHT into \`test/conformance/postgres/\`) and compares every statement's output with PostgreSQL's
expected output.

## How to run

\`\`\`sh
npx tsx scripts/conformance.ts                    # Quire, all files, updates this document
npx tsx scripts/conformance.ts --engine pglite    # self-check of the harness on real PostgreSQL (PGlite)
npx tsx scripts/conformance.ts --verbose select   # one file, print every failing statement
npx vitest run test/conformance                   # asserts pass counts stay >= test/conformance/floor.json
\`\`\`

## How it works

1. A fresh database per file. From \`test_setup.sql\` only the data-creating statements run (CREATE TABLE,
   INSERT, COPY); psql variables (\`\\getenv abs_srcdir\`, \`\\set filename ...\`) are expanded; other
   meta-commands are skipped. Scripts the regression schedule runs earlier and a file depends on run
   silently first: the indexes \`create_index.sql\` builds on onek/onek2/tenk1/tenk2 (they only change
   EXPLAIN output) before every file, and all of \`create_aggregate.sql\` before \`aggregates\`.
2. COPY (from a data file or FROM STDIN) is replayed as batched INSERTs of untyped literals, identical for
   every engine.
3. Each test file is split into statements as psql does (semicolons outside quotes, comments, dollar
   quotes and parentheses). Each statement's echo is located in \`expected/<file>.out\` and the block after
   it is parsed: an aligned table (header, separator, rows cut at the separator's column widths,
   \`(N rows)\`), an \`ERROR:\` line, or nothing (DDL/DML in quiet mode).
4. Rows are compared as trimmed cell text (NULL prints as an empty cell, as in psql); order-sensitive when
   the statement has a top-level ORDER BY, as a multiset otherwise. Errors compare the primary message.
   Column headers are not compared; NOTICE/WARNING lines are ignored.
5. The session runs with pg_regress's settings: \`TimeZone 'America/Los_Angeles'\`, \`DateStyle 'Postgres, MDY'\`,
   \`IntervalStyle 'postgres_verbose'\` (the expected files print dates as \`01-01-2008\` and intervals as
   \`@ 1 year\`).
6. Each file runs in a child process. A statement that runs longer than \`--timeout\` seconds (default 20)
   gets the child killed; the file is rerun with that statement skipped and counted as errored (engine code
   that never yields to the event loop cannot be interrupted in-process).

## Known gaps of the harness

- Expanded output (\`\\x\`) and meta-command output (\`\\d+\`) are not interpreted: such statements count as
  *unchecked* (or the meta-command is skipped).
- Column headers, NOTICEs, error DETAIL/HINT/position are not compared.
- A statement's output order is only checked when it has a top-level ORDER BY, so a plan-dependent order
  PostgreSQL happens to produce (e.g. by a window's ORDER BY) is not required of Quire.
- Rows that tie on every sort key come out of PostgreSQL in the order its quicksort leaves them
  (\`sort_template.h\`: median-of-three pivots, equal keys swapped to the ends; not stable), while Quire
  kept input order for the ties of these statements. Replaying that quicksort over the same scan order reproduces
  PostgreSQL's order (e.g. \`window.sql\`'s \`ORDER BY depname, salary\` over empsalary), so the order is
  deterministic but only matched by sorting as PostgreSQL does, comparison by comparison; the window
  statements whose frames or final ORDER BY see tied rows (most of the non-EXPLAIN failures in
  \`window\`) fail for this reason.
- Classification as out of scope is by regular expression over the statement text (see
  \`OUT_OF_SCOPE\` in \`test/harness/conformance.ts\`); it only ever applies to statements that fail.

## Related harnesses

- **sqllogictest** (\`test/harness/slt.ts\`, files in \`test/slt/**/*.slt\`): every file runs on PGlite and on
  Quire (\`npx vitest run test/slt\`). Expected results are never typed by hand:
  \`npx tsx test/harness/slt.ts --complete test/slt/foo.slt\` fills them from PGlite;
  \`npx tsx test/harness/slt.ts --engine quire test/slt/foo.slt\` runs a file from the command line.
- **differential** (\`test/harness/query-gen.ts\`, \`test/differential/random-queries.test.ts\`): 400 seeded
  random queries over three small tables with NULLs, duplicates and negative numbers, compared with
  PGlite (\`DIFF_SEED=n DIFF_COUNT=n npx vitest run test/differential\` to explore other seeds).

## Counting

- **passed**: output matches; **failed**: different rows, or a different / missing error;
  **errored**: the engine raised an error where PostgreSQL printed a result; **unchecked**: the expected
  output could not be interpreted (expanded mode, meta-command output), run but not compared.
- **supported-feature rate** = passed / (statements - unchecked - excluded), where *excluded* are failing
  statements that either fail with SQLSTATE 0A000 (feature not supported) or belong to a class declared
  out of scope:

${OUT_OF_SCOPE.map((c) => `  - ${c.reason}`).join('\n')}
  - statements using an object created by out-of-scope DDL (e.g. a user-defined aggregate), or a setup
    table Quire could not create (geometric columns)

  Excluded statements still count as failed/errored in the totals.

## Results

<!-- results:pglite -->
<!-- /results:pglite -->

<!-- results:quire -->
<!-- /results:quire -->
`;
}

function writeDoc(engine: EngineName, reports: FileReport[]): void {
  let doc = existsSync(DOC) ? readFileSync(DOC, 'utf8') : docSkeleton();
  const tag = engine === 'quire' ? 'quire' : 'pglite';
  const begin = `<!-- results:${tag} -->`;
  const end = `<!-- /results:${tag} -->`;
  if (!doc.includes(begin)) doc += `\n${begin}\n${end}\n`;
  const title = engine === 'quire' ? 'Quire' : 'PGlite (PostgreSQL 17) — harness self-check';
  const reasons = new Map<string, number>();
  for (const r of reports) for (const [k, v] of Object.entries(r.excluded)) reasons.set(k, (reasons.get(k) ?? 0) + v);
  const reasonLines = [...reasons.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => `- ${k}: ${v}`);
  const body = [
    begin,
    `### ${title}`,
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
    '',
    summaryTable(reports),
    '',
    reasonLines.length ? `Excluded failures by reason:\n\n${reasonLines.join('\n')}` : 'No excluded failures.',
    end,
  ].join('\n');
  const a = doc.indexOf(begin);
  const b = doc.indexOf(end) + end.length;
  doc = doc.slice(0, a) + body + doc.slice(b);
  writeFileSync(DOC, doc);
}

/** Child mode used by runConformanceFileIsolated: progress on stderr, the report as JSON on stdout. */
async function child(argv: string[]): Promise<void> {
  const file = argv[0];
  const engine: EngineName = argv[argv.indexOf('--engine') + 1] === 'quire' ? 'quire' : 'postgres';
  const skipArg = argv[argv.indexOf('--skip') + 1] ?? '';
  const skip = new Set(skipArg.split(',').filter((x) => x !== '').map(Number));
  const r = await runConformanceFile(file, engine, undefined, { skip, onStatement: (i) => process.stderr.write(`@@stmt ${i}\n`) });
  process.stdout.write(`@@report ${JSON.stringify(r)}`);
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] === '--child') return child(argv.slice(1));
  let engine: EngineName = 'quire';
  let timeoutMs = 20_000;
  let verbose = false;
  let write = true;
  let json = false;
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--engine') engine = argv[++i] === 'quire' ? 'quire' : 'postgres';
    else if (a === '--verbose' || a === '-v') verbose = true;
    else if (a === '--no-write') write = false;
    else if (a === '--json') json = true;
    else if (a === '--timeout') timeoutMs = 1000 * Number(argv[++i]);
    else files.push(a.replace(/\.sql$/, ''));
  }
  const list = files.length ? files : DEFAULT_FILES;
  const reports: FileReport[] = [];
  for (const f of list) {
    const t0 = Date.now();
    const r = await runConformanceFileIsolated(f, engine, timeoutMs);
    reports.push(r);
    console.log(
      `${f}: ${r.passed}/${r.total} passed, ${r.failed} failed, ${r.errored} errored, ${r.unchecked} unchecked, ${r.excludedTotal} excluded; supported-feature rate ${pct(r.supportedRate)}` +
        `${r.alignmentProblems ? `; ${r.alignmentProblems} alignment problem(s)` : ''} (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
    );
    if (verbose) {
      for (const e of r.setupErrors) console.log(`  setup: ${e}`);
      for (const n of r.alignmentNotes) console.log(`  alignment: ${n}`);
      for (const s of r.statements) {
        if (s.status === 'pass' || s.status === 'unchecked') continue;
        console.log(`  ${f}.sql:${s.line} [${s.status}${s.outOfScope ? `, excluded: ${s.outOfScope}` : ''}] ${s.sql.replace(/\s+/g, ' ').slice(0, 160)}\n      ${s.detail ?? ''}`);
      }
    }
  }
  console.log(`\n${summaryTable(reports)}`);
  if (json) console.log(JSON.stringify(reports.map(({ statements: _s, ...rest }) => rest), null, 2));
  if (write && files.length === 0) {
    writeDoc(engine, reports);
    console.log(`\nwrote ${DOC}`);
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
