/**
 * The `quire` command: a psql-compatible terminal over an in-memory Quire database.
 * bin/quire.js imports this module; importing it runs the command with process.argv.
 */
import { readFileSync } from 'node:fs';
import * as readline from 'node:readline';
import type { Database } from '../index.js';
import type { DataType, Value } from '../common/types.js';
import { formatError, toReportable } from './error-report.js';
import { complete, type CompletionCatalog } from './completion.js';
import { HISTORY_SIZE, historyFile, loadHistory, saveHistory } from './history.js';
import { HELP_TEXT, memorySettings, parseArgs, UsageError, type CliOptions } from './options.js';
import { EXIT_FAILURE, EXIT_SUCCESS, EXIT_USER, readStdin, Session, type Output, type ValueFormatter } from './session.js';
import { functionLister } from './function-list.js';
import { relationLister } from './relation-lister.js';

function packageVersion(): string {
  try {
    // Same relative path from src/cli (tsx) and dist/cli (compiled).
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

const stdoutOutput: Output = {
  stdout: (s) => {
    if (s !== '') process.stdout.write(s);
  },
  stderr: (s) => {
    if (s !== '') process.stderr.write(s);
  },
  get columns() {
    return process.stdout.isTTY ? process.stdout.columns : undefined;
  },
};

type FormatValue = (typeof import('../index.js'))['formatValue'];

/** formatValue needs the session time zone for timestamptz, which SET TIME ZONE can change. */
function valueFormatter(db: Database, formatValue: FormatValue): ValueFormatter {
  void formatValue;
  // The database formats with the session's TimeZone, DateStyle, IntervalStyle and extra_float_digits.
  return (v: Value, type: DataType) => db.formatValue(v, type);
}

/** The engine's grammar is PostgreSQL's (libpg-query), already loaded by Database.create(). */
async function parsesWhole(sql: string): Promise<boolean> {
  const pgQuery = await import('libpg-query');
  try {
    await pgQuery.loadModule();
    pgQuery.parseSync(sql);
    return true;
  } catch {
    return false;
  }
}

function applyOptions(session: Session, opts: CliOptions): boolean {
  for (const [k, v] of opts.variables) session.variables.set(k, v);
  if (opts.quiet) session.variables.set('QUIET', 'on');
  if (opts.format !== undefined) session.format = opts.format;
  if (opts.tuplesOnly) session.tuplesOnly = true;
  if (opts.expanded) session.expanded = 'on';
  if (opts.fieldSep !== undefined) session.fieldSep = opts.fieldSep;
  // -P prints no confirmations, unlike \pset.
  const quiet = session.variables.get('QUIET');
  session.variables.set('QUIET', 'on');
  let ok = true;
  for (const [name, value] of opts.psets) {
    if (session.pset(name, value, { interactive: false }, 0) !== 'ok') ok = false;
  }
  if (quiet === undefined) session.variables.delete('QUIET');
  else session.variables.set('QUIET', quiet);
  return ok;
}

/** Completion reads the catalog as it is at each Tab, so tables created in the session complete too. */
function completionCatalog(db: Database): CompletionCatalog {
  return {
    relations: () => db.listTables().map((t) => t.name),
    columns: (name) => {
      try {
        return db.describeRelation(name)?.columns.map((c) => c.name) ?? [];
      } catch {
        return [];
      }
    },
  };
}

async function repl(session: Session, version: string, cancel: () => void, catalog: CompletionCatalog): Promise<number> {
  const file = historyFile();
  const rl = readline.createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: true,
    history: loadHistory(file),
    historySize: HISTORY_SIZE,
    completer: (line: string) => complete(line, catalog),
  });
  const scanner = session.newScanner();
  const prompt = (): string => (scanner.pending ? `quire${scanner.continuation}> ` : 'quire=> ');
  rl.on('SIGINT', () => {
    // psql's Ctrl-C: cancel the running statement, or at the prompt drop the unfinished one.
    if (session.running) {
      cancel();
      return;
    }
    scanner.reset();
    process.stdout.write('\n');
    rl.setPrompt(prompt());
    rl.prompt();
  });
  process.stdout.write(`quire (${version})\nType "help" for help.\n\n`);
  rl.setPrompt(prompt());
  rl.prompt();
  let lineNo = 0;
  let quit = false;
  for await (const line of rl) {
    lineNo++;
    const r = await session.runLine(line, lineNo, { interactive: true }, scanner);
    if (r?.quit === true) {
      quit = true;
      break;
    }
    rl.setPrompt(prompt());
    rl.prompt();
  }
  const saved = (rl as unknown as { history?: string[] }).history ?? [];
  rl.close();
  // psql echoes the \q it performs when the user ends input with Ctrl-D.
  if (!quit) process.stdout.write('\\q\n');
  saveHistory(file, saved);
  return EXIT_SUCCESS;
}

export async function main(argv: readonly string[]): Promise<number> {
  // `quire serve …` is its own command with its own options (src/cli/serve.ts).
  if (argv[0] === 'serve') return (await import('./serve.js')).serveCommand(argv.slice(1));
  let opts: CliOptions;
  try {
    opts = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`quire: ${e.message}\nquire: hint: Try "quire --help" for more information.\n`);
    return EXIT_FAILURE;
  }
  if (opts.help) {
    process.stdout.write(HELP_TEXT);
    return EXIT_SUCCESS;
  }
  const version = packageVersion();
  if (opts.version) {
    process.stdout.write(`quire (Quire) ${version}\n`);
    return EXIT_SUCCESS;
  }
  // Loaded only now, so that --help and --version do not pay for the engine's start-up.
  const { Database, formatValue } = await import('../index.js');
  let db: Database;
  try {
    db = await Database.create({ ...(opts.database !== undefined ? { path: opts.database, readOnly: opts.readOnly } : {}), settings: memorySettings(opts) });
  } catch (e) {
    if ((e as { code?: unknown }).code === '22023') {
      // An invalid --memory-limit / --temp-dir value, reported like psql reports a bad option.
      process.stderr.write(`quire: error: ${(e as Error).message}\n`);
      return EXIT_FAILURE;
    }
    process.stderr.write(`quire: error: cannot open database "${opts.database}": ${e instanceof Error ? e.message : String(e)}\n`);
    return EXIT_FAILURE;
  }
  if (opts.progress) (await import('./progress-bar.js')).installProgressBar(process.stderr);
  if (opts.demo) {
    const { loadDemo, DemoLoadError } = await import('../demo/index.js');
    try {
      await loadDemo(db);
    } catch (e) {
      const sql = e instanceof DemoLoadError ? e.sql : undefined;
      const cause = e instanceof DemoLoadError ? e.cause : e;
      process.stderr.write('quire: error: loading the demo database failed\n' + formatError(toReportable(cause), sql));
      return EXIT_FAILURE;
    }
  }
  const session = new Session(db, valueFormatter(db, formatValue), stdoutOutput, relationLister(db), parsesWhole, async (name) => db.describeRelation(name), functionLister);
  if (!applyOptions(session, opts)) return EXIT_FAILURE;
  process.on('SIGINT', () => {
    // Outside the REPL Ctrl-C cancels the running statement; when idle it ends quire, like psql.
    if (session.running) db.cancel();
    else process.exit(130);
  });

  if (opts.actions.length > 0) {
    // psql runs -c and -f in order; the exit code is the last action's, and with ON_ERROR_STOP
    // the first failing action ends the run.
    let code = EXIT_SUCCESS;
    for (const action of opts.actions) {
      if (action.kind === 'command') code = await session.runCommandString(action.sql);
      else {
        const r = await session.runFile(action.path);
        code = r.code;
      }
      if (code !== EXIT_SUCCESS && session.onErrorStop) break;
    }
    return code;
  }
  if (process.stdin.isTTY && process.stdout.isTTY) return repl(session, version, () => db.cancel(), completionCatalog(db));
  // Piped input is a script, as with "psql < file": no prompts, no error prefixes.
  const text = await readStdin();
  const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  const r = await session.runScript(lines, { interactive: false });
  return r.code === EXIT_USER ? EXIT_USER : EXIT_SUCCESS;
}

process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  // "quire ... | head" closes the pipe early; that is not an error worth a stack trace.
  if (e.code === 'EPIPE') process.exit(EXIT_SUCCESS);
  throw e;
});

main(process.argv.slice(2)).then(
  (code) => {
    // Exit only once stdout has drained: large results written to a pipe are flushed asynchronously.
    process.stdout.write('', () => process.exit(code));
  },
  (e: unknown) => {
    process.stderr.write(`quire: fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(EXIT_FAILURE);
  },
);
