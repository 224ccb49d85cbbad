/**
 * End-to-end: the `quire` command as a child process, on the compiled CLI (test/harness/compiled.ts:
 * the global setup builds dist/ when src/ is newer); the last test goes through the bin/quire.js shim.
 * Each test spawns its own processes, so the tests run concurrently.
 * Expected outputs are psql 15's for the same input (psql's "psql:" prefix becomes "quire:").
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { QUIRE_CLI } from '../harness/compiled.js';

const ROOT = join(import.meta.dirname, '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'quire-cli-'));

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function quire(args: string[], input = '', entry: 'main' | 'bin' = 'main'): Promise<Run> {
  const argv = entry === 'main' ? [QUIRE_CLI, ...args] : [join(ROOT, 'bin/quire.js'), ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: tmp, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

function file(name: string, text: string): string {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
}

const SEED_QUERY =
  "SELECT customer_name, customer_gender FROM customer_dimension WHERE occupation='Dancer' AND customer_city = 'San Francisco' ORDER BY customer_name OFFSET 8;";

/** The seed's output block, verbatim (its copy lost the header's trailing space). */
const SEED_OUTPUT = `   customer_name   | customer_gender
-------------------+-----------------
 Kevin . Campbell  | Male
 Raja Y. Wilson    | Male
 Samantha O. Brown | Female
 Steve H. Gauthier | Male
 William . Nielson | Male
 William Z. Roy    | Male
(6 rows)`;

const TABLE_SQL = "CREATE TABLE t (a integer, b text); INSERT INTO t VALUES (1, 'x'), (2, 'y,z'), (3, NULL);";

// Generous timeout: several node processes share the machine's cores while these run.
describe.concurrent('quire command', { timeout: 180_000 }, () => {
  it('--demo -c prints the Spark OFFSET example exactly', async () => {
    const r = await quire(['--demo', '-c', SEED_QUERY]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // psql pads the last header cell; everything else is the seed verbatim.
    expect(r.stdout).toBe(SEED_OUTPUT.replace('customer_gender\n', 'customer_gender \n') + '\n\n');
    expect(r.stdout.split('\n').map((l) => l.trimEnd())).toEqual([...SEED_OUTPUT.split('\n'), '', '']);
  });

  it('prints command tags and --csv output', async () => {
    const r = await quire(['--csv', '-c', `${TABLE_SQL} SELECT * FROM t ORDER BY a;`]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('CREATE TABLE\nINSERT 0 3\na,b\n1,x\n2,"y,z"\n3,\n');
    expect(r.code).toBe(0);
  });

  it('-A -t prints bare rows; -F changes the separator; -P null= sets NULL display', async () => {
    expect((await quire(['-A', '-t', '-c', TABLE_SQL, '-c', 'SELECT a, b FROM t ORDER BY a'])).stdout).toBe(
      'CREATE TABLE\nINSERT 0 3\n1|x\n2|y,z\n3|\n',
    );
    expect((await quire(['-At', '-F', ';', '-c', "SELECT 1 AS a, 'x' AS b"])).stdout).toBe('1;x\n');
    expect((await quire(['-P', 'null=(null)', '-c', 'SELECT NULL::integer AS n'])).stdout).toBe('   n    \n--------\n (null)\n(1 row)\n\n');
  });

  it('aligned output right-aligns numbers and centres headers', async () => {
    const r = await quire(['-c', "SELECT 42 AS answer, 'left' AS txt, 1.5::double precision AS f"]);
    expect(r.stdout).toBe(' answer | txt  |  f  \n--------+------+-----\n     42 | left | 1.5\n(1 row)\n\n');
  });

  it('runs -c and -f in command-line order', async () => {
    const f1 = file('one.sql', 'CREATE TABLE t (a integer);\nINSERT INTO t VALUES (1);\n');
    const f2 = file('two.sql', '-- count them\nSELECT count(*) AS n\n  FROM t;\n');
    const r = await quire(['-f', f1, '-c', 'INSERT INTO t VALUES (2), (3)', '-f', f2, '-q']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(' n \n---\n 3\n(1 row)\n\n');
    const r2 = await quire(['-f', f1, '-c', 'INSERT INTO t VALUES (2), (3)', '-f', f2]);
    expect(r2.stdout).toBe('CREATE TABLE\nINSERT 0 1\nINSERT 0 2\n n \n---\n 3\n(1 row)\n\n');
  });

  it('-f - reads standard input', async () => {
    const r = await quire(['-f', '-'], 'SELECT 5 AS z;\n');
    expect(r.stdout).toBe(' z \n---\n 5\n(1 row)\n\n');
  });

  describe('errors and ON_ERROR_STOP', () => {
    const script = 'SELECT 1 AS a;\n\nSELECT\n  nosuch;\nSELECT 2 AS b;\n';

    it('continues after an error without ON_ERROR_STOP (exit 0)', async () => {
      const f = file('err.sql', script);
      const r = await quire(['-f', f]);
      expect(r.stdout).toBe(' a \n---\n 1\n(1 row)\n\n b \n---\n 2\n(1 row)\n\n');
      expect(r.stderr).toMatch(/^quire:.*err\.sql:4: ERROR: {2}column "nosuch" does not exist\nLINE 2: {3}nosuch;\n {10}\^\n$/);
      expect(r.code).toBe(0);
    });

    it('stops at the first error with ON_ERROR_STOP (exit 3)', async () => {
      const f = file('err-stop.sql', script);
      const r = await quire(['-v', 'ON_ERROR_STOP=1', '-f', f, '-c', 'SELECT 3']);
      expect(r.stdout).toBe(' a \n---\n 1\n(1 row)\n\n');
      expect(r.code).toBe(3);
    });

    it('a failing -c exits 1 and shows LINE and caret', async () => {
      const r = await quire(['-c', 'SELECT nosuch FROM calcs_missing_table_x']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^ERROR: {2}.+\nLINE 1: SELECT nosuch FROM calcs_missing_table_x\n +\^\n$/);
      const s = await quire(['-c', 'SELEC 1']);
      expect(s.stderr).toBe('ERROR:  syntax error at or near "SELEC"\nLINE 1: SELEC 1\n        ^\n');
      expect(s.code).toBe(1);
    });

    it('a later statement of a -c string shows the whole string', async () => {
      const r = await quire(['-c', 'SELECT 1 AS a; SELECT nosuch;']);
      expect(r.stdout).toBe(' a \n---\n 1\n(1 row)\n\n');
      expect(r.stderr).toBe('ERROR:  column "nosuch" does not exist\nLINE 1: SELECT 1 AS a; SELECT nosuch;\n                              ^\n');
      expect(r.code).toBe(1);
    });

    it('the exit code is the last action\'s', async () => {
      expect((await quire(['-c', 'SELECT nosuch', '-c', 'SELECT 1'])).code).toBe(0);
      expect((await quire(['-v', 'ON_ERROR_STOP=1', '-c', 'SELECT nosuch', '-c', 'SELECT 1'])).stdout).toBe('');
    });

    it('piped stdin is a script: no prompts, no error prefix', async () => {
      const r = await quire(['-v', 'ON_ERROR_STOP=on'], script);
      expect(r.stdout).toBe(' a \n---\n 1\n(1 row)\n\n');
      expect(r.stderr).toMatch(/^ERROR: {2}column "nosuch" does not exist\nLINE 2/);
      expect(r.code).toBe(3);
    });
  });

  it('drives a session through stdin with meta-commands', async () => {
    const session = [
      'CREATE TABLE t (a integer, b text);',
      "INSERT INTO t VALUES (1, 'one'),",
      "  (2, 'two');",
      '\\timing on',
      'SELECT count(*) AS n FROM t;',
      '\\timing off',
      '\\x',
      'SELECT * FROM t ORDER BY a;',
      '\\x off',
      '\\pset null NULL',
      'SELECT NULL AS v;',
      '\\echo done',
      '\\q',
      'SELECT 99;',
      '',
    ].join('\n');
    const r = await quire([], session);
    expect(r.stderr).toBe('');
    const out = r.stdout.replace(/Time: \d+\.\d{3} ms\n/, 'Time: X\n');
    expect(out).toBe(
      [
        'CREATE TABLE',
        'INSERT 0 2',
        'Timing is on.',
        ' n ',
        '---',
        ' 2',
        '(1 row)',
        '',
        'Time: X',
        'Timing is off.',
        'Expanded display is on.',
        '-[ RECORD 1 ]',
        'a | 1',
        'b | one',
        '-[ RECORD 2 ]',
        'a | 2',
        'b | two',
        '',
        'Expanded display is off.',
        'Null display is "NULL".',
        '  v   ',
        '------',
        ' NULL',
        '(1 row)',
        '',
        'done',
        '',
      ].join('\n'),
    );
    expect(r.code).toBe(0);
  });

  it('\\dt lists tables (or says it cannot)', async () => {
    const r = await quire(['-c', 'CREATE TABLE zeta (a integer)', '-c', '\\dt']);
    expect(r.stdout.startsWith('CREATE TABLE\n')).toBe(true);
    if (r.code === 0) expect(r.stdout).toMatch(/List of relations[\s\S]*zeta/);
    else expect(r.stderr).toMatch(/\\dt/);
  });

  it('\\d NAME describes a table or view as psql does; \\d lists relations; \\l lists the database', async () => {
    const script = [
      "create table t (id serial primary key, name text not null default 'x', n numeric(6,2) default 0, at timestamptz default now());",
      'create view v as select id, n from t;',
      '\\d t',
      '\\d V',
      '\\d',
      '\\l',
      '\\d nosuch',
    ].join('\n');
    const r = await quire([], script + '\n');
    expect(r.stdout).toContain('Table "public.t"');
    expect(r.stdout).toMatch(/ Column \| +Type +\| Collation \| Nullable \| +Default +\n/);
    expect(r.stdout).toMatch(/ id +\| integer +\| +\| not null \| nextval\('t_id_seq'::regclass\)/);
    expect(r.stdout).toMatch(/ name +\| text +\| +\| not null \| 'x'::text/);
    expect(r.stdout).toMatch(/ n +\| numeric\(6,2\) +\| +\| +\| 0/);
    expect(r.stdout).toMatch(/ at +\| timestamp with time zone +\| +\| +\| now\(\)/);
    expect(r.stdout).toContain('View "public.v"');
    expect(r.stdout).toMatch(/List of relations[\s\S]* public \| t +\| table[\s\S]* public \| v +\| view/);
    expect(r.stdout).toMatch(/List of databases[\s\S]* quire /);
    expect(r.stderr).toContain('Did not find any relation named "nosuch".');
  });

  it('\\d NAME lists foreign keys and the tables referencing the table, as psql does', async () => {
    const script = [
      'create table p (id int primary key, code text unique);',
      'create table c (id int, pid int references p on delete cascade, code text, constraint "C code" foreign key (code) references p (code) match full);',
      '\\d c',
      '\\d p',
    ].join('\n');
    const r = await quire([], script + '\n');
    expect(r.stdout).toContain(
      ['Foreign-key constraints:', '    "C code" FOREIGN KEY (code) REFERENCES p(code) MATCH FULL', '    "c_pid_fkey" FOREIGN KEY (pid) REFERENCES p(id) ON DELETE CASCADE', ''].join('\n'),
    );
    expect(r.stdout).toContain(
      ['Referenced by:', '    TABLE "c" CONSTRAINT "C code" FOREIGN KEY (code) REFERENCES p(code) MATCH FULL', '    TABLE "c" CONSTRAINT "c_pid_fkey" FOREIGN KEY (pid) REFERENCES p(id) ON DELETE CASCADE', ''].join('\n'),
    );
  });

  it('--help, --version, bad options and an unusable database argument', async () => {
    const h = await quire(['--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/Usage:\n {2}quire \[OPTION\]/);
    expect((await quire(['-?'])).stdout).toBe(h.stdout);
    expect(h.stdout).toContain('quire serve --help');
    // psql's -h names a host: said so clearly, not answered with the help text.
    const host = await quire(['-h', 'localhost', '-c', 'select 1']);
    expect(host.code).toBe(1);
    expect(host.stderr).toMatch(/-h\/--host names a server[\s\S]*psql -h localhost -p 5433/);
    for (const [flag, shown] of [['-p', '-p/--port'], ['-U', '-U/--username'], ['-d', '-d/--dbname']] as const) {
      const r = await quire([flag, 'x', '-c', 'select 1']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${shown} is a psql connection flag`);
    }
    expect((await quire(['--version'])).stdout).toMatch(/^quire \(Quire\) \d+\.\d+\.\d+\n$/);
    const bad = await quire(['--bogus']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe("quire: unrecognized option '--bogus'\nquire: hint: Try \"quire --help\" for more information.\n");
    // The database argument is a directory (test/persist covers it); one that cannot be created fails.
    const db = await quire(['/dev/null/my.db']);
    expect(db.code).toBe(1);
    expect(db.stderr).toMatch(/cannot open database "\/dev\/null\/my.db"/);
  });

  it('bin/quire.js runs the compiled CLI', async () => {
    const r = await quire(['-A', '-t', '-c', 'SELECT 1 + 1'], '', 'bin');
    expect(r.stdout).toBe('2\n');
    expect(r.code).toBe(0);
  });
});
