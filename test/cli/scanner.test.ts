import { describe, expect, it } from 'vitest';
import { StatementScanner, splitMetaArgs, splitStatements } from '../../src/cli/scanner.js';
import { errorPosition, formatError } from '../../src/cli/error-report.js';

function scan(text: string): (string | [string, string[]])[] {
  const s = new StatementScanner();
  const out: (string | [string, string[]])[] = [];
  text.split('\n').forEach((line, i) => {
    for (const it of s.pushLine(line, i + 1)) out.push(it.kind === 'sql' ? it.text : [it.command, it.args]);
  });
  return out;
}

describe('StatementScanner', () => {
  it('ends statements at semicolons outside quotes, comments and parentheses', () => {
    expect(
      scan(`select 'a;b', "c;d", $$e;f$$, $x$ g;$$ $x$ /* h; /* nested; */ i; */ from t; select (1; 2);
select E'\\';' ; select 3`),
    ).toEqual([`select 'a;b', "c;d", $$e;f$$, $x$ g;$$ $x$ /* h; /* nested; */ i; */ from t;`, 'select (1; 2);', `select E'\\';' ;`]);
  });

  it('drops leading whitespace and -- comments but keeps them inside a statement', () => {
    expect(scan('  -- intro\n\n  select 1 -- one\n  ;')).toEqual(['select 1 -- one\n  ;']);
  });

  it('keeps a doubled quote inside a literal', () => {
    expect(scan("select 'it''s; ok';")).toEqual(["select 'it''s; ok';"]);
  });

  it('does not take $1 or identifiers with $ for dollar quotes', () => {
    expect(scan('select $1, a$b$ from t;')).toEqual(['select $1, a$b$ from t;']);
  });

  it('recognises meta-commands and their arguments', () => {
    expect(scan("\\x on\nselect 1;\\timing\n\\pset null '(none)'")).toEqual([
      ['x', ['on']],
      'select 1;',
      ['timing', []],
      ['pset', ['null', '(none)']],
    ]);
  });

  it('reports the continuation state for the prompt', () => {
    const s = new StatementScanner();
    s.pushLine('select 1,', 1);
    expect([s.pending, s.continuation]).toEqual([true, '-']);
    s.pushLine("'abc", 2);
    expect(s.continuation).toBe("'");
    s.pushLine("' , (", 3);
    expect(s.continuation).toBe('(');
    s.pushLine(') /* x', 4);
    expect(s.continuation).toBe('*');
    s.reset();
    expect(s.pending).toBe(false);
  });

  it('splitStatements reports offsets into the whole text', () => {
    const text = 'select 1;  select 2;\n  select\n 3';
    expect(splitStatements(text)).toEqual([
      { text: 'select 1;', offset: 0 },
      { text: 'select 2;', offset: 11 },
      { text: 'select\n 3', offset: 23 },
    ]);
  });

  it('splitMetaArgs honours single quotes', () => {
    expect(splitMetaArgs(" null 'a b' c''d 'it''s'")).toEqual(['null', 'a b', "c''d", "it's"]);
  });
});

describe('error report', () => {
  it('prints LINE and a caret like psql', () => {
    expect(formatError({ message: 'column "nosuch" does not exist', position: 8 }, 'select nosuch from pg_class')).toBe(
      'ERROR:  column "nosuch" does not exist\nLINE 1: select nosuch from pg_class\n               ^\n',
    );
  });

  it('counts lines and shows only the error line', () => {
    expect(errorPosition('select\n  nosuch;', 10)).toBe('LINE 2:   nosuch;\n          ^\n');
  });

  it('truncates long lines around the error (psql output)', () => {
    const q = `select '${'a'.repeat(84)}' as x, nosuch, '${'b'.repeat(78)}'`;
    expect(errorPosition(q, q.indexOf('nosuch') + 1)).toBe(
      `LINE 1: ...${'a'.repeat(42)}' as x, nosuch, 'b...\n` + ' '.repeat(61) + '^\n',
    );
    const q2 = `select nosuch, '${'b'.repeat(94)}'`;
    expect(errorPosition(q2, 8)).toBe(`LINE 1: select nosuch, '${'b'.repeat(44)}...\n               ^\n`);
  });

  it('omits the position when unknown and adds DETAIL and HINT', () => {
    expect(formatError({ message: 'boom', position: 0, detail: 'd', hint: 'h' }, 'select 1')).toBe('ERROR:  boom\nDETAIL:  d\nHINT:  h\n');
  });
});
