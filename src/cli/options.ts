/**
 * Command-line parsing with psql's flags and getopt conventions: bundled short options (-At),
 * attached values (-F, / -c"select 1"), --long=value and --long value.
 */

export type Action = { readonly kind: 'command'; readonly sql: string } | { readonly kind: 'file'; readonly path: string };

export interface CliOptions {
  /** -c and -f in command-line order, as psql runs them. */
  readonly actions: Action[];
  /** -v / --set / --variable NAME=VALUE. */
  readonly variables: Map<string, string>;
  /** -P / --pset NAME=VALUE, applied after the format flags. */
  readonly psets: [string, string | undefined][];
  format?: 'aligned' | 'unaligned' | 'csv';
  tuplesOnly: boolean;
  expanded: boolean;
  quiet: boolean;
  fieldSep?: string;
  demo: boolean;
  help: boolean;
  version: boolean;
  /** Positional database directory (created when missing; tables persist there). */
  database?: string;
  /** --progress: a progress bar on stderr for loads that run longer than a second. */
  progress: boolean;
  /** --memory-limit / --temp-dir: the session's memory_limit and temp_directory settings. */
  memoryLimit?: string;
  tempDir?: string;
  /** --read-only: open the database directory without its writer lock; nothing is ever written. */
  readOnly: boolean;
}

export class UsageError extends Error {}

interface OptionSpec {
  readonly short?: string;
  readonly long: string;
  readonly arg: boolean;
}

const SPECS: readonly OptionSpec[] = [
  { short: 'c', long: 'command', arg: true },
  { short: 'f', long: 'file', arg: true },
  { short: 'A', long: 'no-align', arg: false },
  { short: 't', long: 'tuples-only', arg: false },
  { short: 'x', long: 'expanded', arg: false },
  { short: 'F', long: 'field-separator', arg: true },
  { short: 'P', long: 'pset', arg: true },
  { short: 'v', long: 'set', arg: true },
  { long: 'variable', arg: true },
  { short: 'q', long: 'quiet', arg: false },
  // psql's "do not read ~/.psqlrc"; quire reads no startup file, so it is accepted and ignored.
  { short: 'X', long: 'no-psqlrc', arg: false },
  { long: 'csv', arg: false },
  { long: 'demo', arg: false },
  { long: 'progress', arg: false },
  { long: 'memory-limit', arg: true },
  { long: 'temp-dir', arg: true },
  { long: 'read-only', arg: false },
  // psql's -h names the server host; quire runs its engine in-process (see the 'host' case).
  { short: 'h', long: 'host', arg: true },
  // psql's other connection flags, refused with the same advice.
  { short: 'p', long: 'port', arg: true },
  { short: 'U', long: 'username', arg: true },
  { short: 'd', long: 'dbname', arg: true },
  { short: 'W', long: 'password', arg: false },
  { short: '?', long: 'help', arg: false },
  { short: 'V', long: 'version', arg: false },
];

export function parseArgs(argv: readonly string[]): CliOptions {
  const opts: CliOptions = {
    actions: [],
    variables: new Map(),
    psets: [],
    tuplesOnly: false,
    expanded: false,
    quiet: false,
    demo: false,
    progress: false,
    readOnly: false,
    help: false,
    version: false,
  };
  const positional: string[] = [];

  const apply = (spec: OptionSpec, value: string | undefined): void => {
    switch (spec.long) {
      case 'command':
        opts.actions.push({ kind: 'command', sql: value ?? '' });
        break;
      case 'file':
        opts.actions.push({ kind: 'file', path: value ?? '' });
        break;
      case 'no-align':
        opts.format = 'unaligned';
        break;
      case 'csv':
        opts.format = 'csv';
        break;
      case 'tuples-only':
        opts.tuplesOnly = true;
        break;
      case 'expanded':
        opts.expanded = true;
        break;
      case 'field-separator':
        opts.fieldSep = value;
        break;
      case 'pset': {
        const v = value ?? '';
        const eq = v.indexOf('=');
        opts.psets.push(eq < 0 ? [v, undefined] : [v.slice(0, eq), v.slice(eq + 1)]);
        break;
      }
      case 'set':
      case 'variable': {
        const v = value ?? '';
        const eq = v.indexOf('=');
        if (eq <= 0) throw new UsageError(`could not set variable "${v}"`);
        opts.variables.set(v.slice(0, eq), v.slice(eq + 1));
        break;
      }
      case 'quiet':
        opts.quiet = true;
        break;
      case 'no-psqlrc':
        break;
      case 'read-only':
        opts.readOnly = true;
        break;
      case 'demo':
        opts.demo = true;
        break;
      case 'progress':
        opts.progress = true;
        break;
      case 'memory-limit':
        opts.memoryLimit = value ?? '';
        break;
      case 'temp-dir':
        opts.tempDir = value ?? '';
        break;
      case 'help':
        opts.help = true;
        break;
      case 'host':
        throw new UsageError(
          `-h/--host names a server, but quire runs its own engine in this process (open a directory with "quire DBPATH"); to reach a Quire or PostgreSQL server use psql -h ${value ?? 'HOST'} -p 5433`,
        );
      case 'port':
      case 'username':
      case 'dbname':
      case 'password': {
        const flag = `-${spec.short ?? ''}/--${spec.long}`;
        throw new UsageError(
          `${flag} is a psql connection flag, but quire runs its own engine in this process (open a directory with "quire DBPATH"); to reach a Quire or PostgreSQL server use psql -h HOST -p 5433 -U USER -d DB`,
        );
      }
      case 'version':
        opts.version = true;
        break;
    }
  };

  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      const spec = SPECS.find((s) => s.long === name);
      if (spec === undefined) throw new UsageError(`unrecognized option '${a}'`);
      if (spec.arg) {
        let value: string;
        if (eq >= 0) value = a.slice(eq + 1);
        else if (i + 1 < argv.length) value = argv[++i];
        else throw new UsageError(`option '--${name}' requires an argument`);
        apply(spec, value);
      } else {
        if (eq >= 0) throw new UsageError(`option '--${name}' doesn't allow an argument`);
        apply(spec, undefined);
      }
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      for (let k = 1; k < a.length; k++) {
        const ch = a[k];
        const spec = SPECS.find((s) => s.short === ch);
        if (spec === undefined) throw new UsageError(`invalid option -- '${ch}'`);
        if (spec.arg) {
          let value: string;
          if (k + 1 < a.length) value = a.slice(k + 1);
          else if (i + 1 < argv.length) value = argv[++i];
          else throw new UsageError(`option requires an argument -- '${ch}'`);
          apply(spec, value);
          break;
        }
        apply(spec, undefined);
      }
      continue;
    }
    positional.push(a);
  }
  if (positional.length > 1) throw new UsageError(`extra command-line argument "${positional[1]}" ignored`);
  if (positional.length === 1) opts.database = positional[0];
  return opts;
}

/** The session settings --memory-limit and --temp-dir stand for (what `SET memory_limit = ...` sets). */
export function memorySettings(o: { memoryLimit?: string; tempDir?: string }): Record<string, string> {
  const s: Record<string, string> = {};
  if (o.memoryLimit !== undefined) s.memory_limit = o.memoryLimit;
  if (o.tempDir !== undefined) s.temp_directory = o.tempDir;
  return s;
}

export const HELP_TEXT = `quire is the interactive terminal of the Quire SQL engine (psql-compatible).

Usage:
  quire [OPTION]... [DBPATH]
  quire serve [OPTION]...      serve REST (OpenSearch SQL) and the PostgreSQL protocol;
                               see "quire serve --help"

General options:
  -c, --command=COMMAND    run only single command (SQL or internal) and exit
  -f, --file=FILENAME      execute commands from file, then exit ("-" reads stdin)
  -v, --set=, --variable=NAME=VALUE
                           set psql variable NAME to VALUE
                           (e.g., -v ON_ERROR_STOP=1)
  -X, --no-psqlrc          accepted for psql compatibility (no startup file is read)
      --demo               preload the demo database (tables calcs, customer_dimension, events)
      --progress           show a progress bar on stderr for loads longer than a second
      --memory-limit=SIZE  memory budget of one statement's sorts, windows and
                           aggregates before they spill to disk (e.g. 256MB,
                           1GB; 0 = unlimited); same as SET memory_limit
      --temp-dir=DIR       directory for spill files (default: the OS temp
                           directory); same as SET temp_directory
      --read-only          open DBPATH without its writer lock, as a snapshot
                           that is never written (another process may write it)
  -V, --version            output version information, then exit
  -?, --help               show this help, then exit

Input and output options:
  -q, --quiet              run quietly (no command tags, only query output)

Output format options:
  -A, --no-align           unaligned table output mode
      --csv                CSV (Comma-Separated Values) table output mode
  -F, --field-separator=STRING
                           field separator for unaligned output (default: "|")
  -P, --pset=VAR[=ARG]     set printing option VAR to ARG (see \\pset command)
  -t, --tuples-only        print rows only
  -x, --expanded           turn on expanded table output

Connection options:
  -h, --host=HOST          not used: quire runs its engine in this process; to reach
                           "quire serve" use psql -h HOST -p 5433
  -p, --port=PORT, -U, --username=USER, -d, --dbname=DB, -W, --password
                           refused likewise (psql's connection flags)

Environment:
  QUIRE_HISTORY            history file of the interactive terminal (default
                           ~/.quire_history; empty: keep no history)

With neither -c nor -f, commands are read from standard input: interactively
(prompt "quire=> ", with history and Tab completion of keywords, tables and
columns) on a terminal, otherwise as a script. Type \\? there for the backslash
commands and \\h for SQL syntax.
DBPATH is a database directory (created if missing): tables created there are
written to it atomically and loaded again by the next "quire DBPATH".
`;
