/** Session behaviour against a scripted stand-in database (no engine needed). */
import { describe, expect, it } from 'vitest';
import { T } from '../../src/common/types.js';
import { StatementScanner } from '../../src/cli/scanner.js';
import { commandTag, formatTiming, Session, type ResultLike } from '../../src/cli/session.js';

class Err extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly position: number,
  ) {
    super(message);
  }
}

function setup(results: Record<string, ResultLike | Err>) {
  const out: string[] = [];
  const err: string[] = [];
  const sent: string[] = [];
  const db = {
    async query(sql: string): Promise<ResultLike> {
      sent.push(sql);
      const r = results[sql];
      if (r === undefined) throw new Err(`unexpected ${sql}`, 'XX000', 0);
      if (r instanceof Err) throw r;
      return r;
    },
  };
  const session = new Session(db, (v) => (v === null ? null : String(v)), { stdout: (s) => out.push(s), stderr: (s) => err.push(s) });
  return { session, out: () => out.join(''), err: () => err.join(''), sent };
}

const tag = (command: string, commandTag: string, rowCount = 0): ResultLike => ({ command, commandTag, columns: [], rows: [], rowCount });

describe('Session', () => {
  it('prints tags, notices and COPY data like psql', async () => {
    const t = setup({
      'DROP TABLE IF EXISTS x;': { ...tag('DROP TABLE', 'DROP TABLE'), notices: ['table "x" does not exist, skipping'] },
      'COPY t TO STDOUT;': { ...tag('COPY', 'COPY 2', 2), copyOut: '1\n2\n' },
      'CREATE TABLE u AS SELECT 1;': tag('SELECT', 'SELECT 1', 1),
    });
    const r = await t.session.runScript(['DROP TABLE IF EXISTS x;', 'COPY t TO STDOUT;', 'CREATE TABLE u AS SELECT 1;'], { name: 'f.sql', interactive: false });
    expect(r.code).toBe(0);
    expect(t.out()).toBe('DROP TABLE\n1\n2\nCOPY 2\nSELECT 1\n');
    expect(t.err()).toBe('quire:f.sql:1: NOTICE:  table "x" does not exist, skipping\n');
  });

  it('prints RETURNING rows followed by the tag', async () => {
    const t = setup({
      'INSERT INTO t VALUES (1) RETURNING a;': { command: 'INSERT', commandTag: 'INSERT 0 1', columns: [{ name: 'a', type: T.int4 }], rows: [[1]], rowCount: 1 },
    });
    await t.session.runScript(['INSERT INTO t VALUES (1) RETURNING a;'], { interactive: false });
    expect(t.out()).toBe(' a \n---\n 1\n(1 row)\n\nINSERT 0 1\n');
  });

  it('derives tags when the engine gives none', () => {
    expect(commandTag({ command: 'INSERT', columns: [], rows: [], rowCount: 5 })).toBe('INSERT 0 5');
    expect(commandTag({ command: 'UPDATE', columns: [], rows: [], rowCount: 2 })).toBe('UPDATE 2');
    expect(commandTag({ command: 'CREATE TABLE', columns: [], rows: [], rowCount: 0 })).toBe('CREATE TABLE');
  });

  it('formats timings like psql', () => {
    expect(formatTiming(1.2345)).toBe('Time: 1.234 ms\n');
    expect(formatTiming(61_234.6)).toBe('Time: 61234.600 ms (01:01.235)\n');
    expect(formatTiming(3_723_000)).toBe('Time: 3723000.000 ms (01:02:03.000)\n');
  });

  it('stops a script at the first error with ON_ERROR_STOP', async () => {
    const t = setup({ 'SELECT x;': new Err('column "x" does not exist', '42703', 8), 'SET a = 1;': tag('SET', 'SET') });
    t.session.variables.set('ON_ERROR_STOP', '1');
    const r = await t.session.runScript(['SELECT x;', 'SET a = 1;'], { interactive: false });
    expect(r.code).toBe(3);
    expect(t.sent).toEqual(['SELECT x;']);
    expect(t.err()).toBe('ERROR:  column "x" does not exist\nLINE 1: SELECT x;\n               ^\n');
  });

  it('sends an unterminated last statement at the end of a script only', async () => {
    const t = setup({ 'SET a = 1': tag('SET', 'SET') });
    await t.session.runScript(['SET a = 1'], { interactive: false });
    expect(t.out()).toBe('SET\n');
    const u = setup({});
    await u.session.runScript(['SET a = 1'], { interactive: true });
    expect(u.sent).toEqual([]);
  });

  it('interactive help and quit, \\g re-runs the last query, \\r clears the buffer', async () => {
    const t = setup({ 'SET a = 1;': tag('SET', 'SET'), 'SET b = 2': tag('SET', 'SET') });
    const scanner = new StatementScanner();
    const src = { interactive: true };
    expect(await t.session.runLine('help', 1, src, scanner)).toBeUndefined();
    expect(t.out()).toMatch(/^You are using quire/);
    await t.session.runLine('SET a = 1;', 2, src, scanner);
    await t.session.runLine('\\g', 3, src, scanner);
    await t.session.runLine('SET nothing', 4, src, scanner);
    await t.session.runLine('\\r', 5, src, scanner);
    await t.session.runLine('SET b = 2', 6, src, scanner);
    await t.session.runLine('\\g', 7, src, scanner);
    expect(t.sent).toEqual(['SET a = 1;', 'SET a = 1;', 'SET b = 2']);
    expect(await t.session.runLine('quit', 8, src, scanner)).toEqual({ code: 0, quit: true });
  });

  it("answers SQLite's dot commands with the backslash command to use, instead of waiting for a ';'", async () => {
    const t = setup({ 'SELECT 1;': tag('SELECT', 'SELECT 1', 1) });
    const scanner = new StatementScanner();
    expect(await t.session.runLine('.tables', 1, { interactive: true }, scanner)).toBeUndefined();
    expect(t.err()).toBe("invalid command .tables: use \\dt (Quire takes psql's backslash commands; \\? lists them)\n");
    expect(scanner.pending).toBe(false);
    await t.session.runLine('SELECT 1;', 2, { interactive: true }, scanner);
    expect(t.sent).toEqual(['SELECT 1;']);
  });

  it('rejects unknown meta-commands', async () => {
    const t = setup({});
    const r = await t.session.runCommandString('\\frobnicate');
    expect(r).toBe(1);
    expect(t.err()).toBe('invalid command \\frobnicate\n');
  });
});
