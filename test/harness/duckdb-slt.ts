/**
 * DuckDB's sqllogictest dialect (the files under test/conformance/duckdb, copied from DuckDB's test
 * suite with its LICENSE): parsing, loop expansion and result comparison by DuckDB's rules.
 *
 *   statement ok | statement error | statement maybe      SQL up to a blank line (error: `----` and a message)
 *   query <typechars> [nosort|rowsort|valuesort] [label]  SQL, `----`, rows (tab-separated) or
 *                                                         `<N> values hashing to <md5>`
 *   loop <var> <from> <to> / foreach <var> <values…> … endloop   (and their concurrent forms)
 *   require <what>, mode skip|unskip, set, restart, load, halt
 *
 * Expected values are DuckDB's text: NULL as `NULL`, the empty string as `(empty)`, booleans as
 * `true`/`false`. A value matches when its text is the same or both are numbers within a relative
 * 1e-6 (DuckDB prints a double 1 as `1.0` where PostgreSQL prints `1`). Hashes are the MD5 of every
 * value followed by a newline, in result order after the record's sort mode, as DuckDB's runner
 * computes them.
 */
import { createHash } from 'node:crypto';

export type DuckSortMode = 'nosort' | 'rowsort' | 'valuesort';

export interface DuckStatement {
  kind: 'statement';
  line: number;
  sql: string;
  expect: 'ok' | 'error' | 'maybe';
}

export interface DuckQuery {
  kind: 'query';
  line: number;
  sql: string;
  columns: number;
  sort: DuckSortMode;
  /** Expected result lines as written, or a hash. */
  expected: { lines: string[] } | { count: number; hash: string };
}

export type DuckRecord = DuckStatement | DuckQuery;

export interface DuckFile {
  records: DuckRecord[];
  /** `require` lines: what the file needs of the engine (DuckDB skips the file without it). */
  requires: string[];
  /** Directives the harness does not carry out (`load`, `restart`): the file depends on a database file. */
  unsupported: string[];
}

/** DuckDB's type groups in `foreach`. */
const TYPE_GROUPS: Record<string, string[]> = {
  '<integral>': ['tinyint', 'smallint', 'integer', 'bigint', 'hugeint', 'utinyint', 'usmallint', 'uinteger', 'ubigint', 'uhugeint'],
  '<signed>': ['tinyint', 'smallint', 'integer', 'bigint', 'hugeint'],
  '<unsigned>': ['utinyint', 'usmallint', 'uinteger', 'ubigint', 'uhugeint'],
  '<numeric>': ['tinyint', 'smallint', 'integer', 'bigint', 'hugeint', 'utinyint', 'usmallint', 'uinteger', 'ubigint', 'uhugeint', 'float', 'double'],
  '<alltypes>': ['boolean', 'tinyint', 'smallint', 'integer', 'bigint', 'hugeint', 'float', 'double', 'varchar', 'date', 'timestamp'],
};

/** Loops longer than this are cut (none of the copied files comes near it). */
const MAX_ITERATIONS = 100_000;

interface Line {
  text: string;
  line: number;
}

/** Splits `foreach` values: words, or quoted strings kept with their quotes stripped. */
function foreachValues(rest: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|(\S+)/g;
  for (let m = re.exec(rest); m !== null; m = re.exec(rest)) {
    const v = m[1] ?? m[2]!;
    out.push(...(TYPE_GROUPS[v] ?? [v]));
  }
  return out;
}

/** The lines of a file with every loop unrolled (variables substituted), directives kept. */
function unroll(lines: Line[], vars: Map<string, string>, out: Line[]): void {
  // DuckDB substitutes `${var}` and `{var}` alike.
  const subst = (s: string): string => s.replace(/\$?\{(\w+)\}/g, (m, name: string) => vars.get(name) ?? m);
  for (let i = 0; i < lines.length; i++) {
    const words = lines[i]!.text.trim().split(/\s+/);
    const head = words[0];
    if (head === 'loop' || head === 'concurrentloop' || head === 'foreach' || head === 'concurrentforeach') {
      // Find the matching endloop.
      let depth = 1;
      let j = i + 1;
      for (; j < lines.length; j++) {
        const w = lines[j]!.text.trim().split(/\s+/)[0];
        if (w === 'loop' || w === 'concurrentloop' || w === 'foreach' || w === 'concurrentforeach') depth++;
        else if (w === 'endloop' && --depth === 0) break;
      }
      const body = lines.slice(i + 1, j);
      const name = words[1]!;
      let values: string[];
      if (head.endsWith('loop')) {
        const from = Number(subst(words[2]!));
        const to = Number(subst(words[3]!));
        values = [];
        for (let v = from; v < to && values.length < MAX_ITERATIONS; v++) values.push(String(v));
      } else {
        values = foreachValues(subst(lines[i]!.text.trim().slice(head.length + 1 + name.length)));
      }
      for (const v of values) {
        const inner = new Map(vars);
        inner.set(name, v);
        unroll(body, inner, out);
      }
      i = j;
      continue;
    }
    out.push({ text: subst(lines[i]!.text), line: lines[i]!.line });
  }
}

export function parseDuckTest(text: string, dirs: { testDir: string; tempDir: string }): DuckFile {
  const raw = text.split(/\r?\n/).map((t, i) => ({ text: t, line: i + 1 }));
  const lines: Line[] = [];
  unroll(raw, new Map(), lines);
  const file: DuckFile = { records: [], requires: [], unsupported: [] };
  const paths = (s: string): string =>
    s.replaceAll('{TEST_DIR}', dirs.testDir).replaceAll('__TEST_DIR__', dirs.tempDir).replaceAll('{TEMP_DIR}', dirs.tempDir);
  const blank = (i: number) => i >= lines.length || lines[i]!.text.trim() === '';
  let skipping = false;
  let i = 0;
  while (i < lines.length) {
    const t = lines[i]!.text.trim();
    if (t === '' || t.startsWith('#')) {
      i++;
      continue;
    }
    const words = t.split(/\s+/);
    const at = lines[i]!.line;
    i++;
    const readSql = (): string => {
      const sql: string[] = [];
      while (!blank(i) && lines[i]!.text.trim() !== '----') sql.push(lines[i++]!.text);
      return paths(sql.join('\n'));
    };
    const readBlock = (): string[] => {
      const out: string[] = [];
      if (i < lines.length && lines[i]!.text.trim() === '----') {
        i++;
        while (!blank(i)) out.push(lines[i++]!.text);
      }
      return out;
    };
    switch (words[0]) {
      case 'statement': {
        const sql = readSql();
        readBlock();
        const expect = words[1] === 'error' ? 'error' : words[1] === 'maybe' ? 'maybe' : 'ok';
        if (!skipping) file.records.push({ kind: 'statement', line: at, sql, expect });
        break;
      }
      case 'query': {
        const sql = readSql();
        const block = readBlock();
        const sortWord = words[2];
        const sort: DuckSortMode = sortWord === 'rowsort' || sortWord === 'valuesort' ? sortWord : 'nosort';
        const hash = block.length === 1 ? /^(\d+) values hashing to ([0-9a-f]{32})$/.exec(block[0]!.trim()) : null;
        if (!skipping) {
          file.records.push({
            kind: 'query',
            line: at,
            sql,
            columns: (words[1] ?? '').length,
            sort,
            expected: hash !== null ? { count: Number(hash[1]), hash: hash[2]! } : { lines: block },
          });
        }
        break;
      }
      case 'require':
        file.requires.push(words.slice(1).join(' '));
        break;
      case 'mode':
        if (words[1] === 'skip') skipping = true;
        else if (words[1] === 'unskip') skipping = false;
        break;
      case 'load':
      case 'restart':
        file.unsupported.push(words[0]);
        break;
      case 'halt':
        return file;
      default:
        // set seed / set variable / sleep / endloop leftovers: no effect on what is compared.
        break;
    }
  }
  return file;
}

/** A result value in DuckDB's sqllogictest text: `NULL`, `(empty)`, booleans spelt out. */
export function duckText(v: string | null, type: string | undefined): string {
  if (v === null) return 'NULL';
  if (v === '') return '(empty)';
  if (type === 'bool') return v === 't' ? 'true' : v === 'f' ? 'false' : v;
  return v;
}

const NUMBER = /^[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?|inf|infinity|nan)$/i;

function numberOf(s: string): number {
  const l = s.toLowerCase();
  if (l === 'inf' || l === 'infinity' || l === '+inf' || l === '+infinity') return Infinity;
  if (l === '-inf' || l === '-infinity') return -Infinity;
  if (l === 'nan' || l === '-nan' || l === '+nan') return NaN;
  return Number(s);
}

export function sameValue(actual: string, expected: string): boolean {
  if (actual === expected) return true;
  if (!NUMBER.test(actual) || !NUMBER.test(expected)) return false;
  const a = numberOf(actual);
  const e = numberOf(expected);
  if (Number.isNaN(a) || Number.isNaN(e)) return Number.isNaN(a) && Number.isNaN(e);
  if (a === e) return true;
  return Math.abs(a - e) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(e));
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The values of a result in the order the record compares them. */
export function orderedValues(rows: string[][], sort: DuckSortMode): string[] {
  if (sort === 'valuesort') return rows.flat().sort(compareStrings);
  const r = sort === 'rowsort' ? [...rows].sort((x, y) => compareStrings(x.join('\t'), y.join('\t'))) : rows;
  return r.flat();
}

export function md5OfValues(values: string[]): string {
  const h = createHash('md5');
  for (const v of values) h.update(`${v}\n`);
  return h.digest('hex');
}

/**
 * Whether `rows` (already in DuckDB's text) are the record's expected result; a reason when not.
 */
export function matchResult(q: DuckQuery, rows: string[][]): { ok: true } | { ok: false; reason: string } {
  const width = rows.length > 0 ? rows[0]!.length : q.columns;
  if (rows.length > 0 && width !== q.columns) return { ok: false, reason: `${width} columns, expected ${q.columns}` };
  if ('hash' in q.expected) {
    const values = orderedValues(rows, q.sort);
    if (values.length !== q.expected.count) return { ok: false, reason: `${values.length} values, expected ${q.expected.count}` };
    const h = md5OfValues(values);
    return h === q.expected.hash ? { ok: true } : { ok: false, reason: 'values hash differently' };
  }
  const lines = q.expected.lines;
  // Expected results are rows of tab-separated values, or one value a line.
  const perLine = lines.length === rows.length * q.columns && q.columns > 1 && lines.every((l) => !l.includes('\t'));
  const expectedValues = perLine ? lines.map((l) => l.trim()) : lines.flatMap((l) => l.split('\t').map((v) => v.trim()));
  if (!perLine && lines.length !== rows.length) return { ok: false, reason: `${rows.length} rows, expected ${lines.length}` };
  const expRows: string[][] = [];
  for (let r = 0; r < expectedValues.length; r += q.columns) expRows.push(expectedValues.slice(r, r + q.columns));
  const got = orderedValues(rows, q.sort);
  const want = orderedValues(expRows, q.sort);
  if (got.length !== want.length) return { ok: false, reason: `${got.length} values, expected ${want.length}` };
  for (let k = 0; k < got.length; k++) {
    if (!sameValue(got[k]!, want[k]!)) {
      const row = Math.floor(k / q.columns) + 1;
      return { ok: false, reason: `row ${row}: got ${JSON.stringify(got[k])}, expected ${JSON.stringify(want[k])}` };
    }
  }
  return { ok: true };
}
