/**
 * Replays PostgreSQL's own regression tests (test/conformance/postgres, copied from the PostgreSQL source
 * tree under its license) against an engine and compares every statement's output with expected/*.out.
 *
 * Per statement: the .sql is split like psql splits it, the statement's echo is found in the .out file and
 * the block after it is parsed (aligned table, ERROR line, or nothing). Rows are compared as trimmed cell
 * text, in order when the statement has a top-level ORDER BY and as a multiset otherwise; errors by message.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asSqlError, newConnection, type EngineName, type SqlConnection, type SqlResult } from './connection.js';
import { hasTopLevelOrderBy, normCell, parseCopyText, parseCsv, parseOutputBlock, splitScript, type Expected, type ScriptItem } from './psql.js';

export const SUITE_DIR = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'conformance', 'postgres');

export const DEFAULT_FILES = [
  'select',
  'limit',
  'aggregates',
  'select_distinct',
  'select_distinct_on',
  'select_having',
  'select_implicit',
  'window',
  'portals',
];

/**
 * Scripts pg_regress's schedule runs before a file and whose objects the file uses. They run silently:
 * their results are not compared, they only create state.
 */
const PRELUDES: Record<string, string[]> = {
  aggregates: ['create_index', 'create_aggregate'],
};
/** create_index builds the indexes EXPLAIN outputs name; every file here was run after it by the schedule. */
const DEFAULT_PRELUDE = ['create_index'];
/**
 * Statements a prelude contributes. create_index.sql also drops schemas and creates scratch tables; only its
 * indexes on the shared tables matter to later files (and only to their EXPLAIN output).
 */
const PRELUDE_FILTER: Record<string, RegExp> = {
  create_index: /^\s*create\s+(unique\s+)?index\s+\w+\s+on\s+(onek|onek2|tenk1|tenk2)\s+(using\s+btree\s*)?\(/i,
};

/**
 * Statements outside Quire's declared scope. A statement in one of these classes that fails is excluded from
 * the supported-feature rate (it still counts in total/failed). The reason is the first matching class.
 */
/** Types Quire does not have, recognised only where a type can appear (casts, typed literals, column definitions). */
const FOREIGN_TYPES =
  '(?:point|path|box|polygon|circle|lseg|line|inet|cidr|macaddr8?|json|jsonb|xml|uuid|money|tsvector|tsquery|int4range|int8range|numrange|tsrange|tstzrange|daterange|int4multirange|float8range|textrange|time|timetz|time\\s+with(?:out)?\\s+time\\s+zone|"char"|record|anyelement|anyarray|regclass|regtype|stoplight)';
const TYPES_OUT_OF_SCOPE = new RegExp(
  [
    `::\\s*${FOREIGN_TYPES}\\b`,
    `\\bas\\s+${FOREIGN_TYPES}\\s*[)\\[]`,
    `\\b${FOREIGN_TYPES}\\s+'`,
    `^\\s*create\\s+(temp\\s+|temporary\\s+)?table\\b[\\s\\S]*\\b\\w+\\s+${FOREIGN_TYPES}\\s*[,)\\[]`,
    // arrays: constructors, literals, subscripts, array types, array functions
    `\\barray\\s*[\\[(]`,
    `'\\{[^']*\\}'`,
    `\\w\\[\\s*\\d*\\s*(:\\s*\\d*\\s*)?\\]`,
    `::\\s*\\w+(\\s*\\(\\d+\\))?\\[\\]`,
    `\\b(unnest|array_agg|array_length|array_to_string|string_to_array|cardinality|json_\\w+|jsonb_\\w+|to_json|to_jsonb|row_to_json|xmlagg|range_agg|range_intersect_agg|int4range|numrange|daterange)\\s*\\(`,
  ].join('|'),
  'i',
);

export const OUT_OF_SCOPE: { reason: string; re: RegExp }[] = [
  { reason: 'EXPLAIN (plan text is engine-specific)', re: /^\s*explain\b/i },
  { reason: 'VACUUM/ANALYZE/maintenance', re: /^\s*(vacuum|analyze|cluster|reindex|checkpoint)\b/i },
  { reason: 'planner/server settings', re: /^\s*(set|reset|show)\s+(local\s+|session\s+)?(enable_\w+|work_mem|hash_mem_multiplier|jit\w*|parallel\w*|max_parallel\w*|min_parallel\w*|parallel_\w+|force_parallel_mode|debug_parallel_query|random_page_cost|seq_page_cost|cpu_\w+|effective_cache_size|plan_cache_mode|geqo\w*|from_collapse_limit|join_collapse_limit|constraint_exclusion|max_stack_depth|lc_\w+|search_path|role|session authorization|client_min_messages)\b/i },
  { reason: 'indexes', re: /^\s*(create|drop|alter)\s+(unique\s+)?index\b/i },
  { reason: 'functions/procedures/languages', re: /^\s*(create|drop|alter)\s+(or\s+replace\s+)?(function|procedure|language)\b|^\s*do\s+(\$|')/i },
  { reason: 'user-defined aggregates/operators/types/domains/casts', re: /^\s*(create|drop|alter)\s+(or\s+replace\s+)?(aggregate|operator|type|domain|cast|collation|statistics)\b/i },
  { reason: 'views, rules, triggers, sequences, schemas', re: /^\s*(create|drop|alter)\s+(or\s+replace\s+)?(temp\s+|temporary\s+)?(recursive\s+)?(materialized\s+)?(view|rule|trigger|sequence|schema)\b/i },
  { reason: 'ALTER TABLE / constraints / privileges', re: /^\s*(alter\s+table|grant|revoke|comment\s+on|lock\b|create\s+tablespace)/i },
  { reason: 'system catalogs / introspection', re: /\b(pg_(?!typeof\b)\w+|information_schema|regclass|regproc|regtype|txid_\w+|current_setting|set_config)\b|::oid\b/i },
  { reason: 'types outside Quire (arrays, json, geometry, ranges, ...)', re: TYPES_OUT_OF_SCOPE },
  { reason: 'prepared transactions / savepoints / 2PC', re: /^\s*(prepare\s+transaction|commit\s+prepared|rollback\s+prepared|savepoint|release|rollback\s+to)\b/i },
  { reason: 'statistical/ordered-set aggregates', re: /\b(percentile_cont|percentile_disc|mode|regr_\w+|covar_\w+|corr|stddev\w*|var_pop|var_samp|variance|rank\s*\(\s*\w[^)]*\)\s+within|within\s+group)\b/i },
  { reason: 'TABLESAMPLE', re: /\btablesample\b/i },
];

export interface StatementResult {
  index: number;
  line: number;
  sql: string;
  status: 'pass' | 'fail' | 'error' | 'unchecked';
  /** Filled for fail/error: why; for error also the engine's SQLSTATE. */
  detail?: string;
  code?: string;
  outOfScope?: string;
}

export interface FileReport {
  file: string;
  total: number;
  passed: number;
  failed: number;
  errored: number;
  unchecked: number;
  /** Failures (fail or error) excluded from the supported-feature rate, by reason. */
  excluded: Record<string, number>;
  excludedTotal: number;
  supportedRate: number;
  alignmentProblems: number;
  /** Where the echo of an input line was not found where expected (a parsing gap, not an engine fault). */
  alignmentNotes: string[];
  statements: StatementResult[];
  setupErrors: string[];
}

// ---------------------------------------------------------------------------------------------------------
// psql variables and COPY

function substituteVars(sql: string, vars: Map<string, string>): string {
  return sql.replace(/:'(\w+)'|:"(\w+)"|(?<![:\w]):(\w+)\b/g, (m, q: string | undefined, dq: string | undefined, raw: string | undefined) => {
    const name = q ?? dq ?? raw ?? '';
    const v = vars.get(name);
    if (v === undefined) return m;
    if (q !== undefined) return `'${v.replace(/'/g, "''")}'`;
    if (dq !== undefined) return `"${v.replace(/"/g, '""')}"`;
    return v;
  });
}

/** \set name value..., \getenv name ENV: the only meta-commands with an effect we need. */
function runMeta(cmd: string, vars: Map<string, string>): void {
  const m = /^\\(set|getenv)\s+(\w+)\s*(.*)$/.exec(cmd);
  if (m === null) return;
  if (m[1] === 'getenv') {
    if (m[3].trim() === 'PG_ABS_SRCDIR') vars.set(m[2], SUITE_DIR);
    else vars.set(m[2], '');
    return;
  }
  // psql concatenates the arguments, expanding :var and unquoting '...'.
  let value = '';
  const re = /'((?:[^']|'')*)'|:(\w+)|(\S+)/g;
  let a: RegExpExecArray | null;
  while ((a = re.exec(m[3])) !== null) {
    if (a[1] !== undefined) value += a[1].replace(/''/g, "'");
    else if (a[2] !== undefined) value += vars.get(a[2]) ?? '';
    else value += a[3];
  }
  vars.set(m[2], value);
}

function quoteLiteral(v: string | null): string {
  return v === null ? 'NULL' : `'${v.replace(/'/g, "''")}'`;
}

/**
 * COPY is replayed as batched INSERTs of untyped literals (so PostgreSQL coerces them exactly as COPY's
 * input functions would) — the same statements for every engine, and no file access needed by the engine.
 */
function copyToInserts(sql: string, inline: string[] | undefined): string[] | null {
  const m = /^\s*copy\s+([\w."]+)\s*(\(([^)]*)\))?\s+from\s+(?:'((?:[^']|'')*)'|stdin)\s*(.*)$/is.exec(sql);
  if (m === null) return null;
  const table = m[1];
  const cols = m[3] !== undefined ? ` (${m[3]})` : '';
  const opts = m[5] ?? '';
  const csv = /\bcsv\b/i.test(opts);
  const nullOpt = /\bnull\s+(?:as\s+)?'((?:[^']|'')*)'/i.exec(opts);
  const delimOpt = /\bdelimiter\s+(?:as\s+)?'((?:[^']|'')*)'/i.exec(opts);
  const lines = inline ?? readFileSync(m[4].replace(/''/g, "'"), 'utf8').split('\n');
  const rows = csv
    ? parseCsv(lines, delimOpt?.[1] ?? ',')
    : parseCopyText(lines, { delimiter: delimOpt?.[1]?.replace(/\\t/, '\t'), null: nullOpt?.[1] });
  const out: string[] = [];
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    out.push(`INSERT INTO ${table}${cols} VALUES ${chunk.map((r) => `(${r.map(quoteLiteral).join(', ')})`).join(', ')}`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Setup

/** The parts of test_setup.sql that create data: tables, inserts, COPYs (and the psql variables they use). */
function isSetupStatement(sql: string): boolean {
  // VACUUM ANALYZE only gives the planner statistics (EXPLAIN output depends on them); engines without it
  // simply fail those statements, which setup ignores.
  return /^\s*(create\s+table|insert\s+into|copy|vacuum|analyze)\b/i.test(sql);
}

async function execute(conn: SqlConnection, sql: string, item: ScriptItem | undefined): Promise<SqlResult> {
  const inserts = /^\s*copy\b/i.test(sql) && /\bfrom\b/i.test(sql) ? copyToInserts(sql, item?.copyData) : null;
  if (inserts !== null) {
    let n = 0;
    for (const ins of inserts) n += (await conn.query(ins)).rowCount ?? 0;
    return { columns: [], rows: [], rowCount: n, command: 'COPY' };
  }
  return conn.query(sql);
}

export async function runSetup(conn: SqlConnection, engine: EngineName, files: string[] = ['test_setup']): Promise<string[]> {
  const errors: string[] = [];
  for (const f of files) {
    const text = readFileSync(join(SUITE_DIR, 'sql', `${f}.sql`), 'utf8');
    const { items } = splitScript(text);
    const vars = new Map<string, string>();
    // test_setup.sql contributes only its data-creating statements; preludes run whole (minus PRELUDE_FILTER).
    const whole = f !== 'test_setup';
    for (const it of items) {
      if (it.kind === 'meta') {
        runMeta(it.text, vars);
        continue;
      }
      if (!whole && !isSetupStatement(it.text)) continue;
      const filter = PRELUDE_FILTER[f];
      if (filter !== undefined && !filter.test(it.text)) continue;
      const sql = substituteVars(it.text, vars);
      try {
        await execute(conn, sql, it);
      } catch (e) {
        // test_setup failures are reported (they explain cascades of 42P01 later); prelude scripts are full of
        // out-of-scope DDL whose failures would only be noise.
        if (!whole) errors.push(`${f}:${it.startLine + 1}: ${asSqlError(e).message} -- ${sql.split('\n')[0].slice(0, 80)}`);
      }
    }
  }
  return errors;
}

// ---------------------------------------------------------------------------------------------------------
// Comparison

function actualCell(v: string | null): string {
  // psql prints NULL as an empty cell.
  return v === null ? '' : normCell(v);
}

function compare(sql: string, exp: Expected, res: SqlResult | undefined, err: { code?: string; message: string } | undefined): { ok: boolean; detail?: string } {
  if (exp.kind === 'unparsed') return { ok: true };
  if (exp.kind === 'error') {
    if (err === undefined) return { ok: false, detail: `expected error "${exp.message}", got success` };
    return err.message === exp.message ? { ok: true } : { ok: false, detail: `expected error "${exp.message}", got "${err.message}"` };
  }
  if (err !== undefined) return { ok: false, detail: `error ${err.code ?? ''}: ${err.message}` };
  if (exp.kind === 'none') {
    // Statements psql prints nothing for in quiet mode (DDL, DML, SET, MOVE...). A query that returned
    // columns would have printed a table.
    return res !== undefined && res.columns.length > 0 && !/^\s*(insert|update|delete|merge)\b/i.test(sql)
      ? { ok: false, detail: `expected no output, got ${res.rows.length} row(s)` }
      : { ok: true };
  }
  const r = res!;
  if (r.columns.length !== exp.columns.length) return { ok: false, detail: `expected ${exp.columns.length} column(s) [${exp.columns.join(', ')}], got ${r.columns.length} [${r.columns.join(', ')}]` };
  const got = r.rows.map((row) => row.map(actualCell));
  const want = exp.rows.map((row) => row.map(normCell));
  const key = (row: string[]) => JSON.stringify(row);
  const g = got.map(key);
  const w = want.map(key);
  const ordered = hasTopLevelOrderBy(sql);
  if (!ordered) {
    g.sort();
    w.sort();
  }
  if (g.length !== w.length) return { ok: false, detail: `expected ${w.length} row(s), got ${g.length}${g.length && w.length ? `; first expected ${w[0]}, first got ${g[0]}` : ''}` };
  for (let i = 0; i < g.length; i++) if (g[i] !== w[i]) return { ok: false, detail: `${ordered ? 'row' : 'sorted row'} ${i + 1}: expected ${w[i]}, got ${g[i]}` };
  return { ok: true };
}

/** An object whose creation was out of scope, and how a statement can refer to it. */
type DerivedKind = 'relation' | 'routine' | 'type';

function refersTo(sql: string, name: string, kind: DerivedKind): boolean {
  // Names such as `emp` are also common aliases and column names, so only count the positions where the
  // object itself is meant.
  if (kind === 'routine') return new RegExp(`\\b${name}\\s*\\(`, 'i').test(sql);
  if (kind === 'type') return new RegExp(`\\b${name}\\b`, 'i').test(sql);
  return new RegExp(`\\b(from|join|into|update|table|only|cursor\\s+for\\s+select\\s+\\*\\s+from)\\s+${name}\\b|\\bfrom\\s+[\\w\\s,]*,\\s*${name}\\b`, 'i').test(sql);
}

function outOfScopeReason(sql: string, derived: Map<string, DerivedKind>): string | undefined {
  for (const c of OUT_OF_SCOPE) if (c.re.test(sql)) return c.reason;
  for (const [name, kind] of derived) if (refersTo(sql, name, kind)) return 'uses an object created by out-of-scope DDL';
  return undefined;
}

/** Names created by out-of-scope DDL (functions, aggregates, types, views...), so their uses are out of scope too. */
function createdName(sql: string): { name: string; kind: DerivedKind } | undefined {
  const m = /^\s*create\s+(?:or\s+replace\s+)?(?:temp\s+|temporary\s+)?(?:recursive\s+)?(?:materialized\s+)?(?:unlogged\s+)?(function|procedure|aggregate|type|domain|view|operator\s+class|sequence|table)\s+(?:if\s+not\s+exists\s+)?([\w"]+)/i.exec(sql);
  if (m === null) return undefined;
  const what = m[1].toLowerCase();
  const kind: DerivedKind = what === 'function' || what === 'procedure' || what === 'aggregate' || what === 'sequence' ? 'routine' : what === 'type' || what === 'domain' ? 'type' : 'relation';
  // Sequences are used through nextval('name'), which the routine pattern does not see; name them as types.
  return { name: m[2].replace(/"/g, ''), kind: what === 'sequence' ? 'type' : kind };
}

/** Tables that could not be created during setup (unsupported column types). */
async function missingTables(conn: SqlConnection, names: string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const n of names) {
    try {
      await conn.query(`SELECT * FROM ${n} LIMIT 0`);
    } catch {
      missing.push(n);
    }
  }
  return missing;
}

export const SESSION_SETTINGS = ["SET TimeZone = 'America/Los_Angeles'", "SET DateStyle = 'Postgres, MDY'", "SET IntervalStyle = 'postgres_verbose'"];

const SETUP_TABLES = ['char_tbl', 'float8_tbl', 'int2_tbl', 'int4_tbl', 'int8_tbl', 'point_tbl', 'text_tbl', 'varchar_tbl', 'onek', 'onek2', 'tenk1', 'tenk2', 'person', 'emp', 'student', 'stud_emp', 'road', 'ihighway', 'shighway'];

export interface FileRunOptions {
  /** Statement indexes not to run (they timed out in an earlier attempt); they count as errored. */
  skip?: ReadonlySet<number>;
  /** Called before each statement runs, with its index in the file. */
  onStatement?: (index: number) => void;
}

export async function runConformanceFile(file: string, engine: EngineName, conn?: SqlConnection, opts: FileRunOptions = {}): Promise<FileReport> {
  const c = conn ?? (await newConnection(engine));
  const report: FileReport = {
    file,
    total: 0,
    passed: 0,
    failed: 0,
    errored: 0,
    unchecked: 0,
    excluded: {},
    excludedTotal: 0,
    supportedRate: 0,
    alignmentProblems: 0,
    alignmentNotes: [],
    statements: [],
    setupErrors: [],
  };
  try {
    // pg_regress runs psql with PGTZ, PGDATESTYLE and PGINTERVALSTYLE set; the expected output depends on them.
    for (const set of SESSION_SETTINGS) {
      try {
        await c.query(set);
      } catch (e) {
        report.setupErrors.push(`${set}: ${asSqlError(e).message}`);
      }
    }
    report.setupErrors.push(...(await runSetup(c, engine, ['test_setup'])));
    const missing = await missingTables(c, SETUP_TABLES);
    for (const t of missing) report.setupErrors.push(`setup: table ${t} could not be created`);
    report.setupErrors.push(...(await runSetup(c, engine, PRELUDES[file] ?? DEFAULT_PRELUDE)));
    // Objects the engine could not create make every use of them out of scope.
    const derived = new Map<string, DerivedKind>(missing.map((t) => [t, 'relation']));
    for (const p of PRELUDES[file] ?? DEFAULT_PRELUDE) {
      // Only whole preludes define objects (user-defined aggregates, functions); filtered ones add indexes.
      if (PRELUDE_FILTER[p] !== undefined) continue;
      for (const it of splitScript(readFileSync(join(SUITE_DIR, 'sql', `${p}.sql`), 'utf8')).items) {
        const n = it.kind === 'sql' && !/^\s*create\s+(temp\w*\s+)?(unlogged\s+)?table\b/i.test(it.text) ? createdName(it.text) : undefined;
        if (n !== undefined) derived.set(n.name, n.kind);
      }
    }

    const sqlText = readFileSync(join(SUITE_DIR, 'sql', `${file}.sql`), 'utf8');
    const outLines = readFileSync(join(SUITE_DIR, 'expected', `${file}.out`), 'utf8').split('\n');
    const { items, lines, copyDataLines } = splitScript(sqlText);
    const vars = new Map<string, string>();

    // Echoed input lines, in order: psql -a echoes every non-blank input line except COPY data.
    const echoed: number[] = [];
    for (let ln = 0; ln < lines.length; ln++) if (lines[ln].trim() !== '' && !copyDataLines.has(ln)) echoed.push(ln);
    const byEnd = new Map<number, ScriptItem[]>();
    for (const it of items) {
      const list = byEnd.get(it.endLine) ?? [];
      list.push(it);
      byEnd.set(it.endLine, list);
    }

    let j = 0;
    for (let e = 0; e < echoed.length; e++) {
      const ln = echoed[e];
      const src = lines[ln].trimEnd();
      // Find the echo of this input line; blank output lines between are padding.
      let k = j;
      while (k < outLines.length && outLines[k].trimEnd() !== src) k++;
      if (k >= outLines.length) {
        report.alignmentProblems++;
        report.alignmentNotes.push(`${file}.sql:${ln + 1}: echo not found in .out`);
        continue;
      }
      if (k !== j && outLines.slice(j, k).some((l) => l.trim() !== '')) {
        report.alignmentProblems++;
        report.alignmentNotes.push(`${file}.sql:${ln + 1}: skipped ${file}.out lines ${j + 1}-${k}`);
      }
      j = k + 1;
      const nextSrc = e + 1 < echoed.length ? lines[echoed[e + 1]].trimEnd() : null;
      const stop = (x: number) => nextSrc !== null && outLines[x].trimEnd() === nextSrc;
      for (const it of byEnd.get(ln) ?? []) {
        if (it.kind === 'meta') {
          runMeta(it.text, vars);
          // Meta-command output (\d and friends) runs until the next echoed line.
          while (j < outLines.length && !stop(j)) j++;
          continue;
        }
        const parsed = parseOutputBlock(outLines, j, stop);
        j = parsed.next;
        const sql = substituteVars(it.text, vars);
        let res: SqlResult | undefined;
        let err: { code?: string; message: string } | undefined;
        const t0 = Date.now();
        if (process.env.CONFORMANCE_TRACE === 'all') console.error(`[run] ${file}.sql:${it.startLine + 1}`);
        opts.onStatement?.(report.total);
        if (opts.skip?.has(report.total)) {
          err = { code: '57014', message: 'statement timed out in the conformance harness' };
        } else {
          try {
            res = await execute(c, sql, it);
          } catch (x) {
            err = asSqlError(x);
          }
        }
        // CONFORMANCE_TRACE=<ms> logs statements slower than that (=all: every statement as it starts), to find
        // what makes a run slow.
        const slow = Number(process.env.CONFORMANCE_TRACE ?? 0);
        if (slow > 0 && Date.now() - t0 >= slow) console.error(`[slow ${Date.now() - t0} ms] ${file}.sql:${it.startLine + 1} ${sql.replace(/\s+/g, ' ').slice(0, 120)}`);
        const cmp = compare(sql, parsed.expected, res, err);
        const st: StatementResult = { index: report.total, line: it.startLine + 1, sql, status: 'pass' };
        report.total++;
        const created = createdName(sql);
        if (parsed.expected.kind === 'unparsed') {
          st.status = 'unchecked';
          report.unchecked++;
        } else if (cmp.ok) {
          report.passed++;
        } else {
          const engineFailed = err !== undefined && parsed.expected.kind !== 'error';
          st.status = engineFailed ? 'error' : 'fail';
          if (engineFailed) report.errored++;
          else report.failed++;
          if (cmp.detail !== undefined) st.detail = cmp.detail;
          if (err?.code !== undefined) st.code = err.code;
          const reason = err?.code === '0A000' ? 'feature not supported (0A000)' : outOfScopeReason(sql, derived);
          if (reason !== undefined) {
            st.outOfScope = reason;
            report.excluded[reason] = (report.excluded[reason] ?? 0) + 1;
            report.excludedTotal++;
          }
          // An object that could not be created for an out-of-scope reason makes its later uses out of scope.
          if (created !== undefined && err !== undefined && reason !== undefined) derived.set(created.name, created.kind);
        }
        report.statements.push(st);
      }
    }
    const denom = report.total - report.unchecked - report.excludedTotal;
    report.supportedRate = denom === 0 ? 0 : report.passed / denom;
    return report;
  } finally {
    if (conn === undefined) await c.close?.();
  }
}

/**
 * Runs a file in a child process and enforces a per-statement time limit. Engine code that never yields to
 * the event loop cannot be interrupted in-process, so a statement that exceeds the limit gets the child
 * killed, and the file is rerun from scratch with that statement skipped (counted as errored).
 */
export async function runConformanceFileIsolated(file: string, engine: EngineName, statementTimeoutMs = 20_000): Promise<FileReport> {
  const { spawn } = await import('node:child_process');
  const script = join(SUITE_DIR, '..', '..', '..', 'scripts', 'conformance.ts');
  const skip = new Set<number>();
  for (let attempt = 0; attempt < 50; attempt++) {
    const result = await new Promise<{ report?: FileReport; stuck?: number; error?: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', script, '--child', file, '--engine', engine === 'quire' ? 'quire' : 'pglite', '--skip', [...skip].join(',')], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let current = -1;
      let stdout = '';
      let stderr = '';
      let errTail: string[] = [];
      let timer: NodeJS.Timeout | undefined;
      const arm = () => {
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          resolve({ stuck: current });
        }, statementTimeoutMs);
      };
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        // Progress lines "@@stmt <index>" re-arm the watchdog.
        const lines = stderr.split('\n');
        stderr = lines.pop() ?? '';
        for (const l of lines) {
          const m = /^@@stmt (\d+)$/.exec(l);
          if (m !== null) {
            current = Number(m[1]);
            arm();
          } else errTail = [...errTail.slice(-20), l];
        }
      });
      // Setup (loading tenk1 etc.) gets a generous budget of its own.
      timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve({ stuck: current });
      }, Math.max(statementTimeoutMs, 120_000));
      child.on('exit', (code) => {
        if (timer) clearTimeout(timer);
        const start = stdout.indexOf('@@report ');
        if (start >= 0) resolve({ report: JSON.parse(stdout.slice(start + 9)) as FileReport });
        else resolve({ error: `child exited with ${code}: ${stdout.slice(-500)}\n${errTail.join('\n')}` });
      });
    });
    if (result.report !== undefined) return result.report;
    if (result.stuck === undefined || result.stuck < 0) throw new Error(`conformance child for ${file} failed: ${result.error ?? 'timed out during setup'}`);
    skip.add(result.stuck);
  }
  throw new Error(`conformance run for ${file}: too many timeouts`);
}

export async function runConformance(engine: EngineName, files: string[] = DEFAULT_FILES): Promise<FileReport[]> {
  const out: FileReport[] = [];
  for (const f of files) out.push(await runConformanceFile(f, engine));
  return out;
}

export function pct(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}

export function summaryTable(reports: FileReport[]): string {
  const rows = ['| file | statements | passed | failed | errored | unchecked | excluded (out of scope / 0A000) | pass rate | supported-feature rate |', '|---|---:|---:|---:|---:|---:|---:|---:|---:|'];
  const t = { total: 0, passed: 0, failed: 0, errored: 0, unchecked: 0, excluded: 0 };
  for (const r of reports) {
    rows.push(`| ${r.file} | ${r.total} | ${r.passed} | ${r.failed} | ${r.errored} | ${r.unchecked} | ${r.excludedTotal} | ${pct(r.total ? r.passed / r.total : 0)} | ${pct(r.supportedRate)} |`);
    t.total += r.total;
    t.passed += r.passed;
    t.failed += r.failed;
    t.errored += r.errored;
    t.unchecked += r.unchecked;
    t.excluded += r.excludedTotal;
  }
  const denom = t.total - t.unchecked - t.excluded;
  rows.push(`| **total** | ${t.total} | ${t.passed} | ${t.failed} | ${t.errored} | ${t.unchecked} | ${t.excluded} | ${pct(t.total ? t.passed / t.total : 0)} | ${pct(denom ? t.passed / denom : 0)} |`);
  return rows.join('\n');
}
