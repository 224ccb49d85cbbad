/**
 * psql-grade REPL commands: :var interpolation, \o, \copy, \h, \d+, \dt+, \dv, \dn, unknown
 * commands, Tab completion and the history file. Session-level tests run against a real Database;
 * piped stdin and a pseudo-terminal (util-linux `script`) drive the `quire` command end to end.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { loadDemo } from '../../src/demo/index.js';
import { Session } from '../../src/cli/session.js';
import { complete, type CompletionCatalog } from '../../src/cli/completion.js';
import { historyFile, loadHistory, saveHistory } from '../../src/cli/history.js';
import { parseCopyArgs } from '../../src/cli/session.js';
import { relationLister } from '../../src/cli/relation-lister.js';
import { functionLister } from '../../src/cli/function-list.js';
import { QUIRE_CLI } from '../harness/compiled.js';

const ROOT = join(import.meta.dirname, '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'quire-repl-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let db: Database;
beforeAll(async () => {
  db = await Database.create();
  await loadDemo(db);
  await db.query('create table pets (id int primary key, name text not null, born date)');
  await db.query("insert into pets values (1, 'Rex', '2020-01-02'), (2, 'Tom', null)");
  await db.query('create view pet_names as select name from pets');
});

function session(): { s: Session; out: () => string; err: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  const s = new Session(
    db,
    (v, t) => db.formatValue(v, t),
    { stdout: (x) => out.push(x), stderr: (x) => err.push(x) },
    relationLister(db),
    undefined,
    async (name) => db.describeRelation(name),
    functionLister,
  );
  return { s, out: () => out.join(''), err: () => err.join('') };
}

const script = async (lines: string[], interactive = false) => {
  const t = session();
  const r = await t.s.runScript(lines, { interactive });
  return { ...t, code: r.code };
};

describe('variables', () => {
  it(':NAME, :\'NAME\' and :"NAME" are replaced in SQL and in backslash arguments; casts and unset names stay', async () => {
    const t = await script([
      '\\set tbl pets',
      '\\set id 2',
      "\\set who O'Brien",
      '\\set col name',
      'select :"col", :\'who\' as who, :id::text as id from :tbl where id = :id;',
      "select ':id' as quoted, :unset_var_here as x;",
      '\\echo :tbl and :id',
    ]);
    expect(t.out()).toContain(" name |   who   | id \n------+---------+----\n Tom  | O'Brien | 2\n(1 row)");
    // psql leaves an unknown :name to the server, which rejects it.
    expect(t.err()).toMatch(/syntax error at or near ":"/);
    expect(t.out()).toContain('pets and 2\n');
  });
});

describe('output and copy', () => {
  it('\\o sends query results to a file until \\o without one', async () => {
    const f = join(tmp, 'o.txt');
    const t = await script([`\\o ${f}`, 'select 41 + 1 as answer;', '\\d pets', '\\o', 'select 7 as seven;']);
    expect(readFileSync(f, 'utf8')).toBe(' answer \n--------\n     42\n(1 row)\n\n' + readFileSync(f, 'utf8').slice(' answer \n--------\n     42\n(1 row)\n\n'.length));
    expect(readFileSync(f, 'utf8')).toMatch(/Table "public\.pets"/);
    expect(t.out()).toBe(' seven \n-------\n     7\n(1 row)\n\n');
    const bad = await script([`\\o ${join(tmp, 'no/such/dir/x.txt')}`]);
    expect(bad.err()).toMatch(/No such file or directory/);
  });

  it('\\copy writes a query or table to a local file and reads it back', async () => {
    const f = join(tmp, 'pets.csv');
    const t = await script([
      `\\copy (select id, name from pets order by id) to '${f}' with (format csv, header)`,
      'create table pets2 (id int, name text);',
      `\\copy pets2 from ${f} (format csv, header)`,
      'select * from pets2 order by id;',
      '\\copy pets (id, name) to stdout (format csv)',
      '\\copy pets from stdin',
    ]);
    expect(readFileSync(f, 'utf8')).toBe('id,name\n1,Rex\n2,Tom\n');
    expect(t.out()).toContain('COPY 2\nCREATE TABLE\nCOPY 2\n id | name \n----+------\n  1 | Rex\n  2 | Tom\n(2 rows)\n\n1,Rex\n2,Tom\nCOPY 2\n');
    expect(t.err()).toContain('\\copy: FROM STDIN is not supported; name a file');
    await db.query('drop table pets2');
  });

  it('parses \\copy arguments like COPY', () => {
    expect(parseCopyArgs("(select 'a from b') to 'x y.csv' (format csv)")).toEqual({ target: "(select 'a from b')", direction: 'to', file: { text: 'x y.csv', quoted: true }, options: '(format csv)' });
    expect(parseCopyArgs('t (a, b) from data.csv')).toEqual({ target: 't (a, b)', direction: 'from', file: { text: 'data.csv', quoted: false }, options: '' });
    expect(parseCopyArgs('t')).toMatch(/arguments required/);
  });
});

describe('informational and help commands', () => {
  it('\\d+ adds storage and description; \\dt+, \\dv, \\dn, \\di list as psql does', async () => {
    await db.query('create index pets_name on pets (name)');
    const t = await script(['\\d+ pets', '\\dv', '\\dt+', '\\dn', '\\di']);
    expect(t.err()).toBe('');
    expect(t.out()).toContain(' public | pets_name | index | pets\n');
    expect(t.out()).toMatch(/^ +Table "public\.pets"\n/);
    expect(t.out()).toContain(
      [
        ' Column |  Type   | Collation | Nullable | Default | Storage  | Description ',
        '--------+---------+-----------+----------+---------+----------+-------------',
        ' id     | integer |           | not null |         | plain    | ',
        ' name   | text    |           | not null |         | extended | ',
        ' born   | date    |           |          |         | plain    | ',
      ].join('\n'),
    );
    expect(t.out()).toContain(' public | pet_names | view\n(1 row)');
    expect(t.out()).toMatch(/ public \| pets +\| table \| permanent +\| \n/);
    expect(t.out()).not.toMatch(/pet_names \| table/);
    expect(t.out()).toContain(' public | quire\n(1 row)');
  });

  it('\\df lists built-in overloads for a pattern, none without one (no user functions), as psql', async () => {
    const t = await script(['\\df round', '\\df', '\\df concat*', '\\df no_such_fn']);
    expect(t.out()).toContain(
      [
        '   Schema   | Name  | Result data type | Argument data types | Type ',
        '------------+-------+------------------+---------------------+------',
        ' pg_catalog | round | double precision | double precision    | func',
        ' pg_catalog | round | numeric          | numeric             | func',
        ' pg_catalog | round | numeric          | numeric, integer    | func',
        '(3 rows)',
      ].join('\n'),
    );
    expect(t.out()).toContain(' pg_catalog | concat_ws | text             | text, VARIADIC "any" | func');
    expect(t.out().match(/\(0 rows\)/g)).toHaveLength(2);
    // Every listed overload is callable: round(numeric, integer) answers as PostgreSQL does.
    expect((await db.query('select round(2.345::numeric, 2)')).rows).toEqual([[expect.anything()]]);
  });

  it('\\h lists SQL commands and shows one command\'s synopsis', async () => {
    const t = await script(['\\h', '\\h create', '\\h select * from x', '\\h frobnicate']);
    expect(t.out()).toMatch(/^Available help:\n {2}ATTACH/);
    expect(t.out()).toContain('Command:     CREATE TABLE\n');
    expect(t.out()).toContain('Command:     CREATE VIEW\n');
    expect(t.out()).toContain('Command:     SELECT\nDescription: retrieve rows from a table or view\nSyntax:\n');
    expect(t.out()).toContain('No help available for "frobnicate".');
  });

  it('an unknown command answers as psql does, with the hint only when interactive', async () => {
    const i = await script(['\\foo'], true);
    expect(i.err()).toBe('invalid command \\foo\nTry \\? for help.\n');
    const p = await script(['\\foo']);
    expect(p.err()).toBe('invalid command \\foo\n');
  });
});

describe('completion', () => {
  const catalog = (): CompletionCatalog => ({
    relations: () => db.listTables().map((t) => t.name),
    columns: (name) => db.describeRelation(name)?.columns.map((c) => c.name) ?? [],
  });

  it('completes keywords in the typed case, relations after FROM, columns of the named table', () => {
    expect(complete('sel', catalog())).toEqual([['select'], 'sel']);
    expect(complete('SEL', catalog())).toEqual([['SELECT'], 'SEL']);
    expect(complete('select * from pe', catalog())).toEqual([['pet_names', 'pets'], 'pe']);
    expect(complete('select * from cal', catalog())).toEqual([['calcs'], 'cal']);
    expect(complete('select na', catalog())[0]).toContain('name');
    expect(complete('select b from pets where bo', catalog())).toEqual([['born'], 'bo']);
    expect(complete('select pets.n', catalog())).toEqual([['pets.name'], 'pets.n']);
    expect(complete('\\d', catalog())[0]).toEqual(['\\d', '\\d+', '\\df', '\\di', '\\dn', '\\dt', '\\dt+', '\\dv', '\\dv+']);
    expect(complete('\\d pe', catalog())).toEqual([['pet_names', 'pets'], 'pe']);
  });
});

describe('history', () => {
  it('saves oldest first and loads newest first, at most 1000 entries; QUIRE_HISTORY picks the file', () => {
    const f = join(tmp, 'hist');
    saveHistory(f, ['select 2;', 'select 1;']);
    expect(readFileSync(f, 'utf8')).toBe('select 1;\nselect 2;\n');
    expect(loadHistory(f)).toEqual(['select 2;', 'select 1;']);
    saveHistory(f, Array.from({ length: 1500 }, (_, i) => `q${i}`));
    expect(loadHistory(f)).toHaveLength(1000);
    expect(loadHistory(join(tmp, 'none'))).toEqual([]);
    expect(historyFile({ QUIRE_HISTORY: f })).toBe(f);
    expect(historyFile({ QUIRE_HISTORY: '' })).toBeNull();
    expect(historyFile({})).toMatch(/\.quire_history$/);
  });

  const hasScript = spawnSync('script', ['--version']).status === 0;
  it.skipIf(!hasScript)('on a terminal: Tab completes a table name and the line lands in the history file', async () => {
    const hist = join(tmp, 'pty-history');
    writeFileSync(hist, 'select 1;\n');
    const cmd = `${process.execPath} ${QUIRE_CLI} --demo`;
    const child = spawn('script', ['-qec', cmd, '/dev/null'], { cwd: tmp, env: { ...process.env, QUIRE_HISTORY: hist }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const waitFor = async (re: RegExp, from: number): Promise<void> => {
      for (let i = 0; i < 600 && !re.test(out.slice(from)); i++) await new Promise((r) => setTimeout(r, 100));
      expect(out.slice(from)).toMatch(re);
    };
    const pause = (): Promise<void> => new Promise((r) => setTimeout(r, 300));
    await waitFor(/quire=> /, 0);
    // Keys sent one chunk at a time: readline treats a chunk holding several keys as a paste, where Tab is literal.
    let mark = out.length;
    child.stdin.write('select count(*) from calc');
    await pause();
    child.stdin.write('\t');
    await waitFor(/calcs/, mark);
    child.stdin.write(';');
    await pause();
    mark = out.length;
    child.stdin.write('\r');
    await waitFor(/\(1 row\)[\s\S]*quire=> /, mark);
    expect(out.slice(mark)).toMatch(/ {4}17/);
    child.stdin.write('\\q\r');
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code).toBe(0);
    expect(existsSync(hist)).toBe(true);
    expect(readFileSync(hist, 'utf8')).toBe('select 1;\nselect count(*) from calcs;\n\\q\n');
  }, 90_000);
});

describe('piped stdin', () => {
  // psql reads \copy's arguments as one raw line, without variable interpolation.
  it('runs variables and \\copy through the quire command', async () => {
    const f = join(tmp, 'keys.csv');
    const input = ['\\set n 3', `\\copy (select key from calcs order by key limit 3) to '${f}' (format csv)`, 'select count(*) as c from calcs where int0 > :n;', ''].join('\n');
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [QUIRE_CLI, '--demo'], { cwd: tmp, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(input);
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(readFileSync(f, 'utf8')).toBe('key00\nkey01\nkey02\n');
    const expected = String((await db.query('select count(*) as c from calcs where int0 > 3')).rows[0]![0]);
    const w = Math.max(1, expected.length);
    expect(r.stdout).toBe(`COPY 3\n ${'c'.padStart(Math.ceil((w + 1) / 2)).padEnd(w)} \n${'-'.repeat(w + 2)}\n ${expected.padStart(w)}\n(1 row)\n\n`);
  }, 60_000);
});

describe('--help', () => {
  it('quire --help and quire serve --help list every flag the parsers accept, and the serve subcommand', async () => {
    const { HELP_TEXT } = await import('../../src/cli/options.js');
    const { SERVE_HELP } = await import('../../src/cli/serve.js');
    const options = readFileSync(join(ROOT, 'src/cli/options.ts'), 'utf8');
    const specs = [...options.matchAll(/\{ (?:short: '(.)', )?long: '([a-z-]+)'/g)];
    expect(specs.length).toBeGreaterThan(15);
    for (const [, short, long] of specs) {
      expect(HELP_TEXT, long).toContain(`--${long}`);
      if (short !== undefined) expect(HELP_TEXT, short).toContain(`-${short}, --${long}`);
    }
    expect(HELP_TEXT).toMatch(/quire serve \[OPTION\]/);
    const serve = readFileSync(join(ROOT, 'src/cli/serve.ts'), 'utf8');
    const flags = [...new Set([...serve.matchAll(/case '(--[a-z-]+)'/g)].map((m) => m[1]!))];
    expect(flags).toContain('--size-limit');
    for (const f of flags) expect(SERVE_HELP, f).toMatch(new RegExp(`^  ${f}\\b`, 'm'));
  });
});
