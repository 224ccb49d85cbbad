/**
 * One psql-like session over a Database: runs SQL and meta-commands, prints results, errors
 * and timings the way psql does, and tracks the display settings (\x, \pset, \timing ...).
 *
 * The session talks to the engine through the small structural interfaces below rather than
 * importing Database itself, so it can be driven by any object with the public API's shape.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DataType, Value } from '../common/types.js';
import { isNumericType } from '../common/types.js';
import { formatTable, displayWidth, type Cell, type OutputFormat, type TableColumn } from './format-table.js';
import { formatError, toReportable } from './error-report.js';
import { interpolation, StatementScanner, splitStatements } from './scanner.js';
import { sqlHelp } from './sql-help.js';

export interface ResultLike {
  readonly command: string;
  readonly columns: readonly { readonly name: string; readonly type: DataType }[];
  readonly rows: readonly (readonly Value[])[];
  readonly rowCount: number;
  /** PostgreSQL's command tag ('INSERT 0 5'); derived from command and rowCount when absent. */
  readonly commandTag?: string;
  /** Messages PostgreSQL would send as NOTICEs ("... does not exist, skipping"). */
  readonly notices?: readonly string[];
  /** COPY ... TO STDOUT data. */
  readonly copyOut?: string;
}

export interface DatabaseLike {
  query(sql: string): Promise<ResultLike>;
}

export type ValueFormatter = (v: Value, type: DataType) => string | null;

export interface DescribedRelation {
  kind: 'table' | 'view';
  columns: { name: string; type: string; notNull: boolean; default: string }[];
  /** psql's footer lines: `"name" FOREIGN KEY …` and `TABLE "c" CONSTRAINT "name" FOREIGN KEY …`. */
  foreignKeys?: string[];
  referencedBy?: string[];
}

/** One overload of a built-in function, for \df: [schema, name, result type, argument types, kind]. */
export type FunctionRow = [string, string, string, string, string];

export interface Output {
  stdout(s: string): void;
  stderr(s: string): void;
  /** Terminal width when stdout is a terminal (for \x auto), undefined otherwise. */
  readonly columns?: number;
}

/**
 * All of standard input. Read as a stream: a synchronous read of fd 0 fails with EAGAIN when
 * the descriptor is non-blocking, and with EBADF when there is no standard input at all.
 */
export async function readStdin(): Promise<string> {
  if (process.stdin.destroyed) return '';
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  } catch {
    // A closed or unreadable stdin is an empty script.
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** psql's exit codes. */
export const EXIT_SUCCESS = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USER = 3;

export type ScriptOutcome = { readonly code: number; readonly quit: boolean };

/** Where script lines come from, for psql's "psql:FILE:LINE: " error prefix. */
export interface InputSource {
  /** File name shown in error prefixes; undefined for -c strings, the REPL and piped stdin. */
  readonly name?: string;
  readonly interactive: boolean;
}

const META_HELP = `General
  \\q                     quit quire
  \\? [commands]          show help on backslash commands
  help                   (interactive) a short introduction

Help
  \\h [NAME]              help on syntax of SQL commands, * for all commands

Query Buffer
  \\g                     execute query buffer (or the previous query)
  \\r                     reset (clear) the query buffer

Input/Output
  \\copy ...              perform SQL COPY with a file of this machine (or stdout)
  \\echo [STRING]         write string to standard output
  \\i FILE                execute commands from file
  \\ir FILE               as \\i, relative to the location of the current script
  \\o [FILE]              send all query results to file (no FILE: back to stdout)

Informational
  (options: + = additional detail)
  \\d[+]                  list tables and views
  \\d[+] NAME             describe table or view
  \\df[S] [PATTERN]       list functions (built-in ones with S or a PATTERN)
  \\di[+]                 list indexes
  \\dn                    list schemas
  \\dt[+]                 list tables
  \\dv[+]                 list views
  \\l                     list databases

Formatting
  \\a                     toggle between unaligned and aligned output mode
  \\f [STRING]            show or set field separator for unaligned query output
  \\pset [NAME [VALUE]]   set table output option
                         (border|csv_fieldsep|expanded|fieldsep|footer|format|
                         null|pager|tuples_only)
  \\t [on|off]            show only rows
  \\x [on|off|auto]       toggle expanded output

Variables
  \\set [NAME [VALUE]]    set internal variable, or list all if no parameters
                         (ON_ERROR_STOP, QUIET); :NAME, :'NAME' and :"NAME" in
                         SQL and in backslash-command arguments are replaced by the value
  \\unset NAME            unset (delete) internal variable
  \\timing [on|off]       toggle timing of commands
`;

const INTERACTIVE_HELP = `You are using quire, the command-line interface to the Quire SQL engine.
Type:  \\? for help with quire commands
       \\g or terminate with semicolon to execute query
       \\q to quit
`;

/** Commands whose PostgreSQL status tag carries a row count. */
const COUNTED = new Set(['UPDATE', 'DELETE', 'MERGE', 'SELECT', 'MOVE', 'FETCH', 'COPY']);

/** The status line psql prints for a command (PQcmdStatus). */
export function commandTag(r: ResultLike): string {
  if (r.commandTag !== undefined && r.commandTag !== '') return r.commandTag;
  const cmd = r.command.toUpperCase();
  if (cmd === 'INSERT') return `INSERT 0 ${r.rowCount}`;
  // CREATE TABLE AS and SELECT INTO report like the SELECT that filled the table.
  if (cmd === 'CREATE TABLE AS' || cmd === 'SELECT INTO') return `SELECT ${r.rowCount}`;
  if (COUNTED.has(cmd)) return `${cmd} ${r.rowCount}`;
  return cmd;
}

/**
 * Whether PostgreSQL would answer with a row set (PGRES_TUPLES_OK) rather than a bare command
 * tag. Any result with columns or rows is one ("SELECT;" has one row and no columns); CREATE
 * TABLE AS reports command 'SELECT' with neither, and prints as its tag "SELECT n".
 */
export function returnsRows(r: ResultLike): boolean {
  return r.columns.length > 0 || r.rows.length > 0;
}

function parseBool(v: string): boolean | undefined {
  const s = v.toLowerCase();
  if (['on', 'true', 'yes', '1', 't', 'y'].includes(s)) return true;
  if (['off', 'false', 'no', '0', 'f', 'n'].includes(s)) return false;
  return undefined;
}

/** psql's PrintTiming. */
export function formatTiming(ms: number): string {
  if (ms < 1000) return `Time: ${ms.toFixed(3)} ms\n`;
  let seconds = ms / 1000;
  let minutes = Math.floor(seconds / 60);
  seconds -= 60 * minutes;
  const ss = seconds.toFixed(3).padStart(6, '0');
  if (minutes < 60) return `Time: ${ms.toFixed(3)} ms (${String(minutes).padStart(2, '0')}:${ss})\n`;
  let hours = Math.floor(minutes / 60);
  minutes -= 60 * hours;
  const mm = String(minutes).padStart(2, '0');
  if (hours < 24) return `Time: ${ms.toFixed(3)} ms (${String(hours).padStart(2, '0')}:${mm}:${ss})\n`;
  const days = Math.floor(hours / 24);
  hours -= 24 * days;
  return `Time: ${ms.toFixed(3)} ms (${days} d ${String(hours).padStart(2, '0')}:${mm}:${ss})\n`;
}

export class Session {
  format: OutputFormat = 'aligned';
  expanded: 'on' | 'off' | 'auto' = 'off';
  tuplesOnly = false;
  fieldSep = '|';
  csvFieldSep = ',';
  nullString = '';
  footer = true;
  timing = false;
  readonly variables = new Map<string, string>();
  /** A statement is executing (Ctrl-C then cancels it instead of ending the session). */
  running = false;
  private lastQuery: string | undefined;

  constructor(
    private readonly db: DatabaseLike,
    private readonly formatValue: ValueFormatter,
    private readonly out: Output,
    /** Optional engine hook for \dt: [schema, name, type] rows. */
    private readonly listTables?: () => Promise<string[][]>,
    /** Optional: does this text parse as a whole? (see runCommandString) */
    private readonly parses?: (sql: string) => Promise<boolean>,
    /** Optional engine hook for \d NAME: the relation's columns, or null when there is none. */
    private readonly describe?: (name: string) => Promise<DescribedRelation | null>,
    /** Optional engine hook for \df: the built-in functions' overloads. */
    private readonly listFunctions?: () => Promise<FunctionRow[]>,
  ) {}

  get onErrorStop(): boolean {
    const v = this.variables.get('ON_ERROR_STOP');
    return v !== undefined && parseBool(v) !== false;
  }

  get quiet(): boolean {
    const v = this.variables.get('QUIET');
    return v !== undefined && parseBool(v) === true;
  }

  /**
   * Run one statement; print its result or its error. `display` is the text the error position
   * is shown against and `offset` where the statement starts in it (a -c string holding several
   * statements shows the whole string, as psql does).
   */
  async runSql(sql: string, prefix = '', display?: { text: string; offset: number }): Promise<boolean> {
    this.lastQuery = sql;
    const started = performance.now();
    let result: ResultLike;
    try {
      this.running = true;
      result = await this.db.query(sql);
    } catch (e) {
      const err = toReportable(e);
      let text = sql;
      let position = err.position;
      if (display !== undefined && position !== undefined && position > 0) {
        text = display.text;
        position += Array.from(display.text.slice(0, display.offset)).length;
      }
      this.out.stderr(prefix + formatError({ ...err, position }, text));
      if (this.timing) this.out.stdout(formatTiming(performance.now() - started));
      return false;
    } finally {
      this.running = false;
    }
    const elapsed = performance.now() - started;
    for (const n of result.notices ?? []) this.out.stderr(`${prefix}NOTICE:  ${n}\n`);
    try {
      this.printResult(result);
    } catch (e) {
      this.out.stderr(prefix + formatError(toReportable(e), undefined));
      return false;
    }
    if (this.timing) this.out.stdout(formatTiming(elapsed));
    return true;
  }

  printResult(r: ResultLike): void {
    // An empty query (";" or only comments) answers nothing, like PostgreSQL's EmptyQueryResponse.
    if (r.command === 'EMPTY' && r.columns.length === 0) return;
    if (r.copyOut !== undefined) this.result(r.copyOut);
    if (!returnsRows(r)) {
      if (!this.quiet) this.out.stdout(commandTag(r) + '\n');
      return;
    }
    const columns: TableColumn[] = r.columns.map((c) => ({ name: c.name, align: isNumericType(c.type) ? 'right' : 'left' }));
    const rows: Cell[][] = r.rows.map((row) => r.columns.map((c, j) => this.formatValue(row[j] ?? null, c.type)));
    this.result(this.renderTable(columns, rows));
    const cmd = r.command.toUpperCase();
    // INSERT/UPDATE/DELETE ... RETURNING print their rows and then their status, like psql.
    if ((cmd === 'INSERT' || cmd === 'UPDATE' || cmd === 'DELETE' || cmd === 'MERGE') && !this.quiet) {
      this.out.stdout(commandTag(r) + '\n');
    }
  }

  /** `rowCount` false: no "(n rows)" footer, as psql's \d prints a table's columns. */
  renderTable(columns: TableColumn[], rows: Cell[][], title?: string, rowCount = true): string {
    const base = {
      format: this.format,
      tuplesOnly: this.tuplesOnly,
      fieldSep: this.fieldSep,
      csvFieldSep: this.csvFieldSep,
      nullString: this.nullString,
      ...(title !== undefined ? { title } : {}),
      ...(this.footer && rowCount ? {} : { footers: [] }),
    };
    if (this.expanded === 'auto') {
      // psql's "\x auto": expanded only when the normal layout would not fit the terminal.
      const normal = formatTable(columns, rows, { ...base, expanded: false });
      const width = this.out.columns;
      if (this.format !== 'aligned' || width === undefined) return normal;
      const widest = Math.max(0, ...normal.split('\n').map(displayWidth));
      return widest > width ? formatTable(columns, rows, { ...base, expanded: true }) : normal;
    }
    return formatTable(columns, rows, { ...base, expanded: this.expanded === 'on' });
  }

  /** psql -c: one string, possibly several statements (or a meta-command line). */
  async runCommandString(text: string): Promise<number> {
    if (text.trimStart().startsWith('\\')) {
      // A backslash command string runs like a one-line script; its status is the last command's.
      this.lastOk = true;
      const r = await this.runScript(text.split('\n'), { interactive: false });
      return r.code === EXIT_SUCCESS && this.lastOk ? EXIT_SUCCESS : EXIT_FAILURE;
    }
    const stmts = splitStatements(text);
    // Only whitespace and comments: PostgreSQL answers an empty query with nothing at all.
    if (stmts.length === 0) return EXIT_SUCCESS;
    // PostgreSQL parses a multi-statement string before running any of it, so a syntax error
    // anywhere means nothing runs; sending the whole text then reports just that error.
    if (stmts.length <= 1 || (this.parses !== undefined && !(await this.parses(text)))) {
      return (await this.runSql(text)) ? EXIT_SUCCESS : EXIT_FAILURE;
    }
    for (const s of stmts) {
      // Like a multi-statement simple query: the first failure ends the string.
      if (!(await this.runSql(s.text, '', { text, offset: s.offset }))) return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
  }

  private lastOk = true;

  /**
   * Run script lines (a file, piped stdin, or the lines of a meta-command -c). Returns psql's
   * exit code for the script: EXIT_USER when ON_ERROR_STOP ended it early.
   */
  /** A scanner that replaces :NAME with this session's variables, as psql's lexer does. */
  newScanner(): StatementScanner {
    return new StatementScanner((name) => this.variables.get(name));
  }

  async runScript(lines: Iterable<string>, source: InputSource, scanner = this.newScanner()): Promise<ScriptOutcome> {
    let lineNo = 0;
    for (const line of lines) {
      lineNo++;
      const r = await this.runLine(line, lineNo, source, scanner);
      if (r !== undefined) return r;
    }
    // psql sends an unterminated last statement at the end of a script (not of a REPL session).
    if (scanner.buffer.trim() !== '' && !source.interactive) {
      const sql = scanner.buffer;
      scanner.reset();
      const ok = await this.runSql(sql, this.prefix(source, lineNo));
      if (!ok && this.onErrorStop) return { code: EXIT_USER, quit: false };
    }
    return { code: EXIT_SUCCESS, quit: false };
  }

  /** Process one input line; returns an outcome when the input source must stop. */
  async runLine(line: string, lineNo: number, source: InputSource, scanner: StatementScanner): Promise<ScriptOutcome | undefined> {
    // psql's interactive shortcuts, recognised only on an empty query buffer.
    if (source.interactive && !scanner.pending) {
      const word = line.trim().replace(/;$/, '').toLowerCase();
      if (word === 'help') {
        this.out.stdout(INTERACTIVE_HELP);
        return undefined;
      }
      if (word === 'quit' || word === 'exit') return { code: EXIT_SUCCESS, quit: true };
      // SQLite's and DuckDB's dot commands would otherwise wait silently for a ';'.
      const dot = /^\.([a-z]+)\b/.exec(line.trim());
      if (dot !== null) {
        const instead: Record<string, string> = { tables: '\\dt', schema: '\\d NAME', quit: '\\q', exit: '\\q', help: '\\?', mode: '\\pset format', headers: '\\t', timer: '\\timing', read: '\\i FILE' };
        this.out.stderr(`invalid command .${dot[1]}${instead[dot[1]!] !== undefined ? `: use ${instead[dot[1]!]}` : ''} (Quire takes psql's backslash commands; \\? lists them)\n`);
        return undefined;
      }
    }
    for (const item of scanner.pushLine(line, lineNo)) {
      let ok: boolean;
      if (item.kind === 'sql') {
        ok = await this.runSql(item.text, this.prefix(source, item.line));
      } else {
        const r = await this.runMeta(item.command, item.args.map((a) => this.interpolate(a)), source, scanner, lineNo, item.raw);
        if (r === 'quit') return { code: EXIT_SUCCESS, quit: true };
        if (r === 'stop') return { code: EXIT_USER, quit: false };
        ok = r === 'ok';
      }
      this.lastOk = ok;
      if (!ok && this.onErrorStop && !source.interactive) return { code: EXIT_USER, quit: false };
    }
    return undefined;
  }

  /** A backslash-command argument that is exactly :NAME, :'NAME' or :"NAME" takes the variable's value. */
  private interpolate(arg: string): string {
    const r = interpolation(arg, 0, (n) => this.variables.get(n));
    return r !== null && r[1] === arg.length ? r[0] : arg;
  }

  /** Query results and \d listings go to the \o file when one is set. */
  private result(s: string): void {
    if (s === '') return;
    if (this.outputFile === null) this.out.stdout(s);
    else appendFileSync(this.outputFile, s);
  }

  private outputFile: string | null = null;

  private prefix(source: InputSource, line: number): string {
    return source.name !== undefined ? `quire:${source.name}:${line}: ` : '';
  }

  /** psql's pg_log_error: "psql:FILE:LINE: error: " inside a script file, the bare message otherwise. */
  private metaError(source: InputSource, line: number, message: string): 'error' {
    const p = this.prefix(source, line);
    this.out.stderr(`${p === '' ? '' : p + 'error: '}${message}\n`);
    return 'error';
  }

  private toggle(current: boolean, arg: string | undefined, name: string, source: InputSource, line: number): boolean | undefined {
    if (arg === undefined) return !current;
    const b = parseBool(arg);
    if (b === undefined) {
      this.metaError(source, line, `unrecognized value "${arg}" for "${name}": Boolean expected`);
      return undefined;
    }
    return b;
  }

  async runMeta(
    command: string,
    args: string[],
    source: InputSource,
    scanner: StatementScanner,
    line: number,
    raw = args.join(' '),
  ): Promise<'ok' | 'error' | 'quit' | 'stop'> {
    switch (command) {
      case 'q':
      case 'quit':
        return 'quit';
      case '?':
        this.out.stdout(META_HELP);
        return 'ok';
      case 'timing': {
        const v = this.toggle(this.timing, args[0], '\\timing', source, line);
        if (v === undefined) return 'error';
        this.timing = v;
        if (!this.quiet) this.out.stdout(`Timing is ${v ? 'on' : 'off'}.\n`);
        return 'ok';
      }
      case 'x':
        return this.pset('expanded', args[0], source, line);
      case 'a':
        return this.pset('format', this.format === 'aligned' ? 'unaligned' : 'aligned', source, line);
      case 't':
        return this.pset('tuples_only', args[0], source, line);
      case 'f':
        return this.pset('fieldsep', args[0], source, line);
      case 'pset':
        if (args[0] === undefined) return this.metaError(source, line, '\\pset: missing required argument');
        return this.pset(args[0], args[1], source, line);
      case 'echo':
        this.out.stdout(args.join(' ') + '\n');
        return 'ok';
      case 'r':
        scanner.reset();
        if (!this.quiet) this.out.stdout('Query buffer reset (cleared).\n');
        return 'ok';
      case 'g': {
        const sql = scanner.pending ? scanner.buffer.replace(/\n$/, '') : this.lastQuery;
        scanner.reset();
        if (sql === undefined) return 'ok';
        return (await this.runSql(sql, this.prefix(source, line))) ? 'ok' : 'error';
      }
      case 'set': {
        if (args[0] === undefined) {
          for (const [k, v] of this.variables) this.out.stdout(`${k} = '${v}'\n`);
          return 'ok';
        }
        this.variables.set(args[0], args.slice(1).join(''));
        return 'ok';
      }
      case 'unset':
        if (args[0] !== undefined) this.variables.delete(args[0]);
        return 'ok';
      case 'i':
      case 'include':
      case 'ir':
      case 'include_relative': {
        const file = args[0];
        if (file === undefined) return this.metaError(source, line, `\\${command}: missing required argument`);
        let path = file;
        if ((command === 'ir' || command === 'include_relative') && source.name !== undefined && !file.startsWith('/')) {
          const dir = source.name.includes('/') ? source.name.slice(0, source.name.lastIndexOf('/') + 1) : '';
          path = dir + file;
        }
        const r = await this.runFile(path, { source, line });
        return r.code === EXIT_USER ? 'stop' : r.code === EXIT_SUCCESS ? 'ok' : 'error';
      }
      case 'dt':
      case 'dt+':
        return this.describeTables(source, line, ['table'], command.endsWith('+'));
      case 'di':
      case 'di+':
        return this.describeTables(source, line, ['index'], command.endsWith('+'));
      case 'dv':
      case 'dv+':
        return this.describeTables(source, line, ['view'], command.endsWith('+'));
      case 'd':
      case 'd+':
        return args[0] === undefined ? this.describeTables(source, line, ['table', 'view'], command === 'd+') : this.describeRelation(args[0], source, line, command === 'd+');
      case 'dn':
      case 'dn+': {
        const columns: TableColumn[] = ['Name', 'Owner'].map((name) => ({ name, align: 'left' }));
        this.result(this.renderTable(columns, [['public', 'quire']], 'List of schemas'));
        return 'ok';
      }
      case 'df':
      case 'dfS':
      case 'df+':
      case 'dfS+':
        return this.describeFunctions(args[0], command.includes('S'), source, line);
      case 'h':
      case 'help': {
        const h = sqlHelp(raw);
        this.out.stdout(h.text);
        return 'ok';
      }
      case 'o':
      case 'out': {
        if (args[0] === undefined) {
          this.outputFile = null;
          return 'ok';
        }
        if (args[0].startsWith('|')) return this.metaError(source, line, '\\o: piping output to a command is not supported');
        try {
          writeFileSync(args[0], '');
        } catch (e) {
          return this.metaError(source, line, `${args[0]}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'No such file or directory' : (e as Error).message}`);
        }
        this.outputFile = resolve(args[0]);
        return 'ok';
      }
      case 'copy':
        return this.clientCopy(raw, source, line);
      case 'l':
      case 'list': {
        const columns: TableColumn[] = ['Name', 'Owner', 'Encoding', 'Collate', 'Ctype', 'Access privileges'].map((name) => ({ name, align: 'left' }));
        this.out.stdout(this.renderTable(columns, [['quire', 'quire', 'UTF8', 'C', 'C', '']], 'List of databases'));
        return 'ok';
      }
      default:
        this.metaError(source, line, `invalid command \\${command}`);
        if (source.interactive) this.out.stderr('Try \\? for help.\n');
        return 'error';
    }
  }

  /**
   * Read and run a script file (-f, or \i when `includedFrom` says where); "-" is standard input.
   */
  async runFile(path: string, includedFrom?: { source: InputSource; line: number }): Promise<ScriptOutcome> {
    let text: string;
    try {
      text = path === '-' ? await readStdin() : readFileSync(path, 'utf8');
    } catch (e) {
      const code = (e as { code?: string }).code;
      const message = `${path}: ${code === 'ENOENT' ? 'No such file or directory' : e instanceof Error ? e.message : String(e)}`;
      if (includedFrom !== undefined) this.metaError(includedFrom.source, includedFrom.line, message);
      else this.out.stderr(`quire: error: ${message}\n`);
      return { code: EXIT_FAILURE, quit: false };
    }
    if (text.endsWith('\n')) text = text.slice(0, -1);
    return this.runScript(text === '' ? [] : text.split('\n'), { name: path === '-' ? '<stdin>' : path, interactive: false });
  }

  /** \pset, and the shortcuts built on it (\x, \t, \a, \f). Prints psql's confirmation. */
  pset(name: string, value: string | undefined, source: InputSource, line: number): 'ok' | 'error' {
    const say = (s: string): 'ok' => {
      if (!this.quiet) this.out.stdout(s + '\n');
      return 'ok';
    };
    switch (name) {
      case 'format': {
        if (value === undefined) return say(`Output format is ${this.format}.`);
        const f = ['aligned', 'unaligned', 'csv'].find((x) => x.startsWith(value.toLowerCase()));
        if (f === undefined || value === '') {
          return this.metaError(source, line, '\\pset: allowed formats are aligned, csv, unaligned');
        }
        this.format = f as OutputFormat;
        return say(`Output format is ${this.format}.`);
      }
      case 'expanded':
      case 'x': {
        if (value === undefined) this.expanded = this.expanded === 'on' ? 'off' : 'on';
        else if (value.toLowerCase() === 'auto') this.expanded = 'auto';
        else {
          const b = parseBool(value);
          if (b === undefined) return this.metaError(source, line, `unrecognized value "${value}" for "expanded"\nAvailable values are: on, off, auto.`);
          this.expanded = b ? 'on' : 'off';
        }
        return say(this.expanded === 'auto' ? 'Expanded display is used automatically.' : `Expanded display is ${this.expanded}.`);
      }
      case 'tuples_only': {
        const v = this.toggle(this.tuplesOnly, value, 'tuples_only', source, line);
        if (v === undefined) return 'error';
        this.tuplesOnly = v;
        // psql confirms only the toggle: with an explicit value do_pset returns before printing.
        return value !== undefined ? 'ok' : say(`Tuples only is ${v ? 'on' : 'off'}.`);
      }
      case 'footer': {
        const v = this.toggle(this.footer, value, 'footer', source, line);
        if (v === undefined) return 'error';
        this.footer = v;
        return value !== undefined ? 'ok' : say(`Default footer is ${v ? 'on' : 'off'}.`);
      }
      case 'fieldsep':
        if (value !== undefined) this.fieldSep = value;
        return say(`Field separator is "${this.fieldSep}".`);
      case 'csv_fieldsep':
        if (value !== undefined) {
          if (value.length !== 1) return this.metaError(source, line, '\\pset: csv_fieldsep must be a single one-byte character');
          this.csvFieldSep = value;
        }
        return say(`Field separator for CSV is "${this.csvFieldSep}".`);
      case 'null':
        if (value !== undefined) this.nullString = value;
        return say(`Null display is "${this.nullString}".`);
      case 'pager':
        // quire never pipes output through a pager; accepted so "-P pager=off" keeps working.
        return say('Pager usage is off.');
      case 'border':
        // Only psql's default border style is implemented.
        if (value !== undefined && value !== '1') return this.metaError(source, line, '\\pset: only border 1 is supported');
        return say('Border style is 1.');
      default:
        return this.metaError(source, line, `\\pset: unknown option: ${name}`);
    }
  }

  /** \d NAME: the columns of a table or view, as psql prints them. */
  private async describeRelation(name: string, source: InputSource, line: number, verbose = false): Promise<'ok' | 'error'> {
    let rel: DescribedRelation | null;
    try {
      if (this.describe === undefined) return this.metaError(source, line, '\\d is not supported by this engine');
      // Unquoted names fold to lower case, as in SQL; a quoted one is taken as written.
      const folded = name.startsWith('"') && name.endsWith('"') ? name.slice(1, -1).replace(/""/g, '"') : name.toLowerCase();
      rel = await this.describe(folded.replace(/^public\./, ''));
      if (rel === null) {
        this.out.stderr(`Did not find any relation named "${name}".\n`);
        return 'error';
      }
      const headers = ['Column', 'Type', 'Collation', 'Nullable', 'Default', ...(verbose ? ['Storage', 'Description'] : [])];
      const columns: TableColumn[] = headers.map((n) => ({ name: n, align: 'left' }));
      const rows = rel.columns.map((c) => [c.name, c.type, '', c.notNull ? 'not null' : '', c.default, ...(verbose ? [storageOf(c.type), ''] : [])]);
      const title = `${rel.kind === 'table' ? 'Table' : 'View'} "public.${folded.replace(/^public\./, '')}"`;
      let footer = '';
      if (rel.foreignKeys !== undefined) footer += `Foreign-key constraints:\n${rel.foreignKeys.map((l) => `    ${l}\n`).join('')}`;
      if (rel.referencedBy !== undefined) footer += `Referenced by:\n${rel.referencedBy.map((l) => `    ${l}\n`).join('')}`;
      const table = this.renderTable(columns, rows, title, false);
      this.result(footer === '' ? table : table.replace(/\n*$/, '\n') + footer + (table.endsWith('\n\n') ? '\n' : ''));
      return 'ok';
    } catch (e) {
      this.out.stderr(this.prefix(source, line) + formatError(toReportable(e), undefined));
      return 'error';
    }
  }

  private async describeTables(source: InputSource, line: number, kinds: readonly string[], verbose: boolean): Promise<'ok' | 'error'> {
    let tables: string[][];
    try {
      if (this.listTables === undefined) {
        return this.metaError(source, line, '\\dt is not supported: this engine has no table catalog to list yet');
      }
      tables = (await this.listTables()).filter((t) => kinds.includes(t[2]));
    } catch (e) {
      this.out.stderr(this.prefix(source, line) + formatError(toReportable(e), undefined));
      return 'error';
    }
    if (tables.length === 0) {
      if (!this.quiet) this.out.stderr('Did not find any relations.\n');
      return 'ok';
    }
    const headers = ['Schema', 'Name', 'Type', ...(kinds.includes('index') ? ['Table'] : []), ...(verbose ? ['Persistence', 'Description'] : [])];
    const columns: TableColumn[] = headers.map((name) => ({ name, align: 'left' }));
    if (verbose) tables = tables.map((t) => [...t, 'permanent', '']);
    this.result(this.renderTable(columns, tables, 'List of relations'));
    return 'ok';
  }

  /**
   * \df [PATTERN]: as in psql, system (built-in) functions are listed only for a pattern or with S;
   * Quire has no user-defined functions, so plain \df lists none. `*` and `?` are wildcards.
   */
  private async describeFunctions(pattern: string | undefined, system: boolean, source: InputSource, line: number): Promise<'ok' | 'error'> {
    if (this.listFunctions === undefined) return this.metaError(source, line, '\\df is not supported by this engine');
    let rows: FunctionRow[] = [];
    if (pattern !== undefined || system) {
      const name = pattern?.replace(/^pg_catalog\./i, '');
      const re = name === undefined ? null : new RegExp(`^${name.toLowerCase().replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
      rows = (await this.listFunctions()).filter((r) => re === null || re.test(r[1]));
    }
    const columns: TableColumn[] = ['Schema', 'Name', 'Result data type', 'Argument data types', 'Type'].map((n) => ({ name: n, align: 'left' }));
    this.result(this.renderTable(columns, rows, 'List of functions'));
    return 'ok';
  }

  /**
   * psql's \copy: COPY with a file of the machine quire runs on. The engine runs in this process, so
   * FROM 'file' reads the file directly and TO 'file' (or STDOUT) writes what COPY … TO STDOUT sent.
   */
  private async clientCopy(raw: string, source: InputSource, line: number): Promise<'ok' | 'error'> {
    const parsed = parseCopyArgs(raw);
    if (typeof parsed === 'string') return this.metaError(source, line, `\\copy: ${parsed}`);
    const { target, direction, file, options } = parsed;
    const stdio = /^(stdin|stdout|pstdin|pstdout)$/i.test(file.text) && !file.quoted;
    if (direction === 'from' && stdio) return this.metaError(source, line, '\\copy: FROM STDIN is not supported; name a file');
    const sql = direction === 'from' ? `COPY ${target} FROM '${resolve(file.text).replace(/'/g, "''")}' ${options}` : `COPY ${target} TO STDOUT ${options}`;
    let r: ResultLike;
    try {
      r = await this.db.query(sql);
    } catch (e) {
      this.out.stderr(this.prefix(source, line) + formatError(toReportable(e), undefined));
      return 'error';
    }
    if (direction === 'to') {
      if (stdio) this.result(r.copyOut ?? '');
      else {
        try {
          writeFileSync(file.text, r.copyOut ?? '');
        } catch (e) {
          return this.metaError(source, line, `${file.text}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'No such file or directory' : (e as Error).message}`);
        }
      }
    }
    if (!this.quiet) this.out.stdout(commandTag(r) + '\n');
    return 'ok';
  }
}

/** psql's \d+ Storage column: fixed-size types are stored plain, the rest extended (TOAST-able). */
function storageOf(type: string): string {
  return /^(smallint|integer|bigint|real|double precision|boolean|date|timestamp.*|time.*|interval|uuid)$/.test(type) ? 'plain' : 'extended';
}

/**
 * \copy's arguments: `table [(columns)] | (query)`, FROM or TO, a file name (quoted or bare, or
 * stdin/stdout) and COPY's own options after it. A string is the error to report.
 */
export function parseCopyArgs(raw: string): { target: string; direction: 'from' | 'to'; file: { text: string; quoted: boolean }; options: string } | string {
  const s = raw.trim();
  let i = 0;
  let depth = 0;
  // The target runs to the FROM / TO keyword outside parentheses and quotes.
  for (; i < s.length; i++) {
    const c = s[i]!;
    if (c === "'" || c === '"') {
      const j = s.indexOf(c, i + 1);
      if (j < 0) return 'unterminated quoted string';
      i = j;
    } else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && /\s/.test(c) && /^\s+(from|to)\s/i.test(s.slice(i))) break;
  }
  const target = s.slice(0, i).trim();
  const m = /^\s+(from|to)\s+('((?:[^']|'')*)'|\S+)\s*([\s\S]*)$/i.exec(s.slice(i));
  if (target === '' || m === null) return 'arguments required: \copy table [(columns)] | (query) FROM | TO file [options]';
  const quoted = m[3] !== undefined;
  const file = { text: quoted ? m[3]!.replace(/''/g, "'") : m[2]!, quoted };
  return { target, direction: m[1]!.toLowerCase() as 'from' | 'to', file, options: m[4]!.replace(/;\s*$/, '') };
}
