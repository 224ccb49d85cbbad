/**
 * sqllogictest parser and runner, in the sqllogictest-rs / DataFusion dialect.
 *
 *   statement ok | statement error [<SQLSTATE> | <regex>] | statement count <n>
 *   query <typechars> [nosort|rowsort|valuesort] [label]   then SQL, `----`, expected rows
 *   query error [<SQLSTATE> | <regex>]
 *   skipif <engine> / onlyif <engine>   (engines: quire, postgres; pglite is an alias of postgres)
 *   halt, hash-threshold <n> (ignored), # comments
 *
 * Result rows are compared after whitespace normalisation per cell: NULL prints as `NULL`, the empty string
 * as `(empty)`, cells are joined by single spaces. Expected results are never typed by hand: run
 *
 *   npx tsx test/harness/slt.ts --complete test/slt/foo.slt [...]
 *
 * to (re)fill every result block from PGlite (real PostgreSQL 17), and
 *
 *   npx tsx test/harness/slt.ts [--engine quire|postgres] test/slt/foo.slt [...]
 *
 * to run files from the command line.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { asSqlError, newConnection, type EngineName, type SqlConnection, type SqlResult } from './connection.js';

export { pgliteConnection, quireConnection, newPglite, newQuire, quireAvailable } from './connection.js';
export type { SqlConnection, SqlResult } from './connection.js';

export type SortMode = 'nosort' | 'rowsort' | 'valuesort';

interface RecordBase {
  /** 1-based line of the record's header (after any skipif/onlyif lines). */
  line: number;
  /** 0-based line indices [start, end) of the whole record in the file, for --complete rewriting. */
  start: number;
  end: number;
  /** 0-based index of the header line and of the first line after the SQL text. */
  headerIdx: number;
  sqlEnd: number;
  skipif: string[];
  onlyif: string[];
}

export interface ErrorExpectation {
  /** Any error at all when both are undefined. */
  sqlstate?: string;
  regex?: RegExp;
  /** Multi-line `----` block after `statement error`: the exact message. */
  message?: string;
}

export interface StatementRecord extends RecordBase {
  kind: 'statement';
  sql: string;
  expect: 'ok' | 'error' | 'count';
  error?: ErrorExpectation;
  count?: number;
}

export interface QueryRecord extends RecordBase {
  kind: 'query';
  sql: string;
  /** Empty for `query error`. */
  typechars: string;
  sort: SortMode;
  label?: string;
  error?: ErrorExpectation;
  /** Expected result lines (already whitespace-normalised); null when the record has no `----` block yet. */
  expected: string[] | null;
}

export interface HaltRecord extends RecordBase {
  kind: 'halt';
}

export type SltRecord = StatementRecord | QueryRecord | HaltRecord;

export class SltParseError extends Error {}

const SQLSTATE_RE = /^[0-9A-Z]{5}$/;

function parseErrorPattern(rest: string): ErrorExpectation {
  const p = rest.trim();
  if (p === '') return {};
  if (SQLSTATE_RE.test(p)) return { sqlstate: p };
  return { regex: new RegExp(p) };
}

/** Collapse runs of whitespace so that alignment and tab/space choices in .slt files never matter. */
export function normalizeLine(s: string): string {
  return s.trim().split(/\s+/).filter((x) => x !== '').join(' ');
}

export function parseSlt(text: string, file = '<input>'): SltRecord[] {
  const lines = text.split(/\r?\n/);
  const records: SltRecord[] = [];
  let i = 0;
  const isBlank = (l: string | undefined) => l === undefined || l.trim() === '';
  while (i < lines.length) {
    const raw = lines[i];
    if (isBlank(raw) || raw.trimStart().startsWith('#')) {
      i++;
      continue;
    }
    const start = i;
    const skipif: string[] = [];
    const onlyif: string[] = [];
    // Conditions prefix the record they apply to.
    while (i < lines.length) {
      const m = /^(skipif|onlyif)\s+(\S+)/.exec(lines[i].trim());
      if (m === null) break;
      (m[1] === 'skipif' ? skipif : onlyif).push(m[2].toLowerCase());
      i++;
    }
    const headerIdx = i;
    const header = (lines[i] ?? '').trim();
    const words = header.split(/\s+/);
    const base = { line: i + 1, start, headerIdx, skipif, onlyif };
    i++;
    const readSql = (): string[] => {
      const sql: string[] = [];
      while (i < lines.length && !isBlank(lines[i]) && lines[i].trim() !== '----') sql.push(lines[i++]);
      return sql;
    };
    const readBlock = (): string[] | null => {
      if (i < lines.length && lines[i].trim() === '----') {
        i++;
        const out: string[] = [];
        while (i < lines.length && !isBlank(lines[i])) out.push(lines[i++]);
        return out;
      }
      return null;
    };
    switch (words[0]) {
      case 'hash-threshold':
      case 'control':
        continue;
      case 'halt':
        records.push({ kind: 'halt', ...base, sqlEnd: i, end: i });
        continue;
      case 'statement': {
        const sqlLines = readSql();
        const sqlEnd = i;
        const block = readBlock();
        if (sqlLines.length === 0) throw new SltParseError(`${file}:${base.line}: statement without SQL`);
        const rec: StatementRecord = { kind: 'statement', ...base, sqlEnd, end: i, sql: sqlLines.join('\n'), expect: 'ok' };
        if (words[1] === 'ok') rec.expect = 'ok';
        else if (words[1] === 'error') {
          rec.expect = 'error';
          rec.error = parseErrorPattern(header.replace(/^statement\s+error/, ''));
          if (block !== null) rec.error.message = block.join('\n').trim();
        } else if (words[1] === 'count') {
          rec.expect = 'count';
          rec.count = Number(words[2]);
          if (!Number.isInteger(rec.count)) throw new SltParseError(`${file}:${base.line}: bad statement count`);
        } else throw new SltParseError(`${file}:${base.line}: unknown statement kind '${words[1] ?? ''}'`);
        records.push(rec);
        continue;
      }
      case 'query': {
        const sqlLines = readSql();
        const sqlEnd = i;
        const block = readBlock();
        if (sqlLines.length === 0) throw new SltParseError(`${file}:${base.line}: query without SQL`);
        const rec: QueryRecord = {
          kind: 'query',
          ...base,
          sqlEnd,
          end: i,
          sql: sqlLines.join('\n'),
          typechars: '',
          sort: 'nosort',
          expected: block === null ? null : block.map(normalizeLine),
        };
        if (words[1] === 'error') {
          rec.error = parseErrorPattern(header.replace(/^query\s+error/, ''));
          if (block !== null) {
            rec.error.message = block.join('\n').trim();
            rec.expected = null;
          }
        } else {
          rec.typechars = words[1] ?? '';
          if (!/^[A-Z?]+$/.test(rec.typechars)) throw new SltParseError(`${file}:${base.line}: bad type string '${rec.typechars}'`);
          for (const w of words.slice(2)) {
            if (w === 'nosort' || w === 'rowsort' || w === 'valuesort') rec.sort = w;
            else rec.label = w;
          }
        }
        records.push(rec);
        continue;
      }
      default:
        throw new SltParseError(`${file}:${base.line}: unrecognised record '${header}'`);
    }
  }
  return records;
}

// ---------------------------------------------------------------------------------------------------------
// Result formatting

export function formatCell(v: string | null): string {
  if (v === null) return 'NULL';
  const n = normalizeLine(v);
  return n === '' ? '(empty)' : n;
}

/** The lines a result prints as in a `----` block, sorted as the record asks. */
export function resultLines(rows: (string | null)[][], sort: SortMode): string[] {
  if (sort === 'valuesort') {
    return rows
      .flat()
      .map(formatCell)
      .sort();
  }
  const lines = rows.map((r) => r.map(formatCell).join(' '));
  return sort === 'rowsort' ? lines.sort() : lines;
}

const TYPE_LETTERS: Record<string, string> = {
  bool: 'B',
  int2: 'I',
  int4: 'I',
  int8: 'I',
  float4: 'R',
  float8: 'R',
  numeric: 'R',
  text: 'T',
  varchar: 'T',
  bpchar: 'T',
  name: 'T',
  unknown: 'T',
  date: 'D',
  timestamp: 'P',
  timestamptz: 'P',
};

export function typeLetter(t: string): string {
  return TYPE_LETTERS[t] ?? '?';
}

function engineMatches(names: string[], engine: EngineName): boolean {
  return names.some((n) => n === engine || (engine === 'postgres' && n === 'pglite'));
}

export function shouldRun(rec: SltRecord, engine: EngineName): boolean {
  if (engineMatches(rec.skipif, engine)) return false;
  if (rec.onlyif.length > 0 && !engineMatches(rec.onlyif, engine)) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------------------
// Running

export interface SltFailure {
  file: string;
  line: number;
  sql: string;
  message: string;
}

function checkError(exp: ErrorExpectation, err: { code?: string; message: string }): string | null {
  if (exp.sqlstate !== undefined && err.code !== exp.sqlstate) return `expected SQLSTATE ${exp.sqlstate}, got ${err.code ?? '(none)'}: ${err.message}`;
  if (exp.regex !== undefined && !exp.regex.test(err.message)) return `error message ${JSON.stringify(err.message)} does not match /${exp.regex.source}/`;
  if (exp.message !== undefined && normalizeLine(exp.message) !== normalizeLine(err.message)) return `expected error message ${JSON.stringify(exp.message)}, got ${JSON.stringify(err.message)}`;
  return null;
}

function describeExpectation(exp: ErrorExpectation): string {
  return exp.sqlstate ?? (exp.regex ? `/${exp.regex.source}/` : exp.message ?? 'an error');
}

function indent(lines: string[]): string {
  return lines.length === 0 ? '    (no rows)' : lines.map((l) => `    ${l}`).join('\n');
}

/** Checks one executed query against its record; returns a failure description or null. */
export function compareQuery(rec: QueryRecord, res: SqlResult): string | null {
  const problems: string[] = [];
  if (rec.typechars.length !== res.columns.length) {
    problems.push(`expected ${rec.typechars.length} column(s) (${rec.typechars}), got ${res.columns.length} (${res.columns.join(', ')})`);
  } else if (res.types !== undefined) {
    const actual = res.types.map(typeLetter).join('');
    for (let k = 0; k < rec.typechars.length; k++) {
      const want = rec.typechars[k];
      if (want !== '?' && want !== actual[k]) {
        problems.push(`column types: expected ${rec.typechars}, got ${actual} (${res.types.join(', ')})`);
        break;
      }
    }
  }
  const actual = resultLines(res.rows, rec.sort);
  const expected = rec.expected ?? [];
  const exp = rec.sort === 'nosort' ? expected : [...expected].sort();
  const same = actual.length === exp.length && actual.every((l, k) => l === exp[k]);
  if (!same) {
    let firstDiff = 0;
    while (firstDiff < actual.length && firstDiff < exp.length && actual[firstDiff] === exp[firstDiff]) firstDiff++;
    problems.push(
      `result mismatch (${rec.sort}; first difference at row ${firstDiff + 1}; expected ${exp.length} line(s), got ${actual.length})\n  expected:\n${indent(exp)}\n  actual:\n${indent(actual)}`,
    );
  }
  return problems.length === 0 ? null : problems.join('\n  ');
}

export interface RunOptions {
  engine: EngineName;
  file: string;
  /** Stop after this many failures in one file (later records often cascade from the first). */
  maxFailures?: number;
}

export interface RunSummary {
  records: number;
  ran: number;
  failures: SltFailure[];
}

export async function runSlt(records: SltRecord[], conn: SqlConnection, opts: RunOptions): Promise<RunSummary> {
  const failures: SltFailure[] = [];
  const max = opts.maxFailures ?? 20;
  let ran = 0;
  const fail = (rec: SltRecord & { sql: string }, message: string) =>
    failures.push({ file: opts.file, line: rec.line, sql: rec.sql, message });
  for (const rec of records) {
    if (failures.length >= max) break;
    if (!shouldRun(rec, opts.engine)) continue;
    if (rec.kind === 'halt') break;
    ran++;
    let res: SqlResult | undefined;
    let err: { code?: string; message: string } | undefined;
    try {
      res = await conn.query(rec.sql);
    } catch (e) {
      err = asSqlError(e);
    }
    const expectError = rec.kind === 'statement' ? rec.expect === 'error' : rec.error !== undefined;
    const errorExp = rec.error ?? {};
    if (expectError) {
      if (err === undefined) fail(rec, `expected error ${describeExpectation(errorExp)}, but the statement succeeded`);
      else {
        const p = checkError(errorExp, err);
        if (p !== null) fail(rec, p);
      }
      continue;
    }
    if (err !== undefined) {
      fail(rec, `unexpected error${err.code ? ` ${err.code}` : ''}: ${err.message}`);
      continue;
    }
    if (rec.kind === 'statement') {
      if (rec.expect === 'count' && res!.rowCount !== rec.count) fail(rec, `expected count ${rec.count}, got ${res!.rowCount}`);
      continue;
    }
    if (rec.kind === 'query') {
      const p = compareQuery(rec, res!);
      if (p !== null) fail(rec, p);
    }
  }
  return { records: records.length, ran, failures };
}

export function formatFailure(f: SltFailure): string {
  const sql = f.sql.split('\n').map((l) => `    ${l}`).join('\n');
  return `${f.file}:${f.line}:\n  query:\n${sql}\n  ${f.message}`;
}

export async function runSltFile(path: string, engine: EngineName, conn?: SqlConnection): Promise<RunSummary> {
  const records = parseSlt(readFileSync(path, 'utf8'), path);
  const c = conn ?? (await newConnection(engine));
  try {
    return await runSlt(records, c, { engine, file: path });
  } finally {
    if (conn === undefined) await c.close?.();
  }
}

// ---------------------------------------------------------------------------------------------------------
// --complete: fill result blocks from real PostgreSQL

/** Rewrites `text` with every query's results (and every bare `statement error`'s SQLSTATE) taken from `conn`. */
export async function completeSlt(text: string, conn: SqlConnection, file: string): Promise<{ text: string; problems: string[] }> {
  const lines = text.split(/\r?\n/);
  const records = parseSlt(text, file);
  const out: string[] = [];
  const problems: string[] = [];
  let pos = 0;
  for (const rec of records) {
    if (rec.kind === 'halt') break;
    // Records for other engines only are kept as written: PostgreSQL cannot vouch for them.
    if (!shouldRun(rec, 'postgres')) continue;
    let res: SqlResult | undefined;
    let err: { code?: string; message: string } | undefined;
    try {
      res = await conn.query(rec.sql);
    } catch (e) {
      err = asSqlError(e);
    }
    while (pos < rec.start) out.push(lines[pos++]);
    const head = lines.slice(rec.start, rec.headerIdx);
    const header = lines[rec.headerIdx];
    const sql = lines.slice(rec.headerIdx + 1, rec.sqlEnd);
    pos = rec.end;
    if (rec.kind === 'statement') {
      if (rec.expect === 'error') {
        if (err === undefined) problems.push(`${file}:${rec.line}: expected an error, PostgreSQL succeeded`);
        const bare = rec.error?.sqlstate === undefined && rec.error?.regex === undefined && rec.error?.message === undefined;
        out.push(...head, bare && err?.code ? `statement error ${err.code}` : header, ...sql);
        if (!bare && rec.error?.message !== undefined) out.push(...lines.slice(rec.sqlEnd, rec.end));
      } else {
        if (err !== undefined) problems.push(`${file}:${rec.line}: PostgreSQL error ${err.code ?? ''}: ${err.message}`);
        out.push(...lines.slice(rec.start, rec.end));
      }
      continue;
    }
    if (rec.error !== undefined) {
      if (err === undefined) problems.push(`${file}:${rec.line}: expected an error, PostgreSQL succeeded`);
      const bare = rec.error.sqlstate === undefined && rec.error.regex === undefined && rec.error.message === undefined;
      out.push(...head, bare && err?.code ? `query error ${err.code}` : header, ...sql);
      if (rec.error.message !== undefined) out.push(...lines.slice(rec.sqlEnd, rec.end));
      continue;
    }
    if (err !== undefined || res === undefined) {
      problems.push(`${file}:${rec.line}: PostgreSQL error ${err?.code ?? ''}: ${err?.message ?? ''}`);
      out.push(...lines.slice(rec.start, rec.end));
      continue;
    }
    // The type string is regenerated too, so it always states what PostgreSQL returns.
    const typechars = (res.types ?? res.columns.map(() => '?')).map(typeLetter).join('');
    const rest = header.trim().split(/\s+/).slice(2);
    out.push(...head, ['query', typechars, ...rest].join(' '), ...sql, '----', ...resultLines(res.rows, rec.sort));
  }
  while (pos < lines.length) out.push(lines[pos++]);
  return { text: out.join('\n'), problems };
}

// ---------------------------------------------------------------------------------------------------------
// CLI

async function main(argv: string[]): Promise<number> {
  let engine: EngineName = 'postgres';
  let complete = false;
  const files: string[] = [];
  for (let k = 0; k < argv.length; k++) {
    const a = argv[k];
    if (a === '--complete') complete = true;
    else if (a === '--engine') {
      const e = argv[++k];
      engine = e === 'quire' ? 'quire' : 'postgres';
    } else files.push(a);
  }
  let bad = 0;
  for (const f of files) {
    if (complete) {
      const conn = await newConnection('postgres');
      try {
        const { text, problems } = await completeSlt(readFileSync(f, 'utf8'), conn, f);
        writeFileSync(f, text);
        for (const p of problems) console.error(p);
        bad += problems.length;
        console.log(`${f}: completed${problems.length ? ` with ${problems.length} problem(s)` : ''}`);
      } finally {
        await conn.close?.();
      }
    } else {
      const s = await runSltFile(f, engine);
      for (const fl of s.failures) console.error(formatFailure(fl));
      bad += s.failures.length;
      console.log(`${f}: ${s.ran} records run on ${engine}, ${s.failures.length} failure(s)`);
    }
  }
  return bad === 0 ? 0 : 1;
}

const invokedDirectly = process.argv[1] !== undefined && /slt\.ts$/.test(process.argv[1]);
if (invokedDirectly) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(e);
      process.exit(2);
    },
  );
}
