/**
 * Tests of the test infrastructure itself, with fake connections: a harness that cannot fail proves nothing.
 */
import { describe, expect, it } from 'vitest';
import type { SqlConnection, SqlResult } from './connection.js';
import { compareOutcomes } from './differential.js';
import { hasTopLevelOrderBy, normCell, parseCopyText, parseOutputBlock, splitScript } from './psql.js';
import { generateQuery } from './query-gen.js';
import { completeSlt, parseSlt, resultLines, runSlt } from './slt.js';

/** Answers from a table of canned results; anything else is an error with SQLSTATE 42601. */
function fake(answers: Record<string, SqlResult | { code: string; message: string }>): SqlConnection {
  return {
    async query(sql: string) {
      const a = answers[sql.trim()];
      if (a === undefined) throw Object.assign(new Error(`syntax error at or near "${sql}"`), { code: '42601' });
      if ('code' in a) throw Object.assign(new Error(a.message), { code: a.code });
      return a;
    },
  };
}

const one = (rows: (string | null)[][], types = ['int4', 'text']): SqlResult => ({ columns: types.map((_, i) => `c${i}`), types, rows });

describe('sqllogictest parser', () => {
  it('parses records, conditions, sort modes and error expectations', () => {
    const recs = parseSlt(
      [
        '# comment',
        'hash-threshold 8',
        '',
        'statement ok',
        'CREATE TABLE t (a int)',
        '',
        'skipif quire',
        'query IT rowsort label1',
        'SELECT a,',
        '  b FROM t',
        '----',
        '1   x',
        'NULL (empty)',
        '',
        'statement error 22012',
        'SELECT 1/0',
        '',
        'query error relation .* does not exist',
        'SELECT * FROM nope',
        '',
        'halt',
      ].join('\n'),
    );
    expect(recs.map((r) => r.kind)).toEqual(['statement', 'query', 'statement', 'query', 'halt']);
    const q = recs[1];
    expect(q.kind === 'query' && q.sort).toBe('rowsort');
    expect(q.kind === 'query' && q.sql).toBe('SELECT a,\n  b FROM t');
    expect(q.kind === 'query' && q.expected).toEqual(['1 x', 'NULL (empty)']);
    expect(q.skipif).toEqual(['quire']);
    expect(recs[2].kind === 'statement' && recs[2].error?.sqlstate).toBe('22012');
    expect(recs[3].kind === 'query' && recs[3].error?.regex?.source).toBe('relation .* does not exist');
  });

  it('formats NULL, empty strings and embedded whitespace; sorts as asked', () => {
    expect(resultLines([['b', null], ['a', ''], ['x  y', 'z']], 'rowsort')).toEqual(['a (empty)', 'b NULL', 'x y z']);
    expect(resultLines([['3', '1'], ['2', null]], 'valuesort')).toEqual(['1', '2', '3', 'NULL']);
  });
});

describe('sqllogictest runner', () => {
  const file = ['query IT', 'SELECT 1', '----', '1 x', '', 'statement error 22012', 'SELECT 2', '', 'query I rowsort', 'SELECT 3', '----', '1', '2'].join('\n');

  it('passes when the engine agrees', async () => {
    const conn = fake({ 'SELECT 1': one([['1', 'x']]), 'SELECT 2': { code: '22012', message: 'division by zero' }, 'SELECT 3': one([['2'], ['1']], ['int4']) });
    const s = await runSlt(parseSlt(file), conn, { engine: 'postgres', file: 'f.slt' });
    expect(s.failures).toEqual([]);
  });

  it('reports wrong values, wrong SQLSTATEs, wrong types and missing errors with file:line', async () => {
    const conn = fake({ 'SELECT 1': one([['1', 'y']]), 'SELECT 2': one([]), 'SELECT 3': one([['2'], ['1']], ['float8']) });
    const s = await runSlt(parseSlt(file), conn, { engine: 'postgres', file: 'f.slt' });
    expect(s.failures.map((f) => f.line)).toEqual([1, 6, 9]);
    expect(s.failures[0].message).toContain('result mismatch');
    expect(s.failures[1].message).toContain('expected error 22012');
    expect(s.failures[2].message).toContain('column types');
  });

  it('--complete fills results and SQLSTATEs from the reference engine', async () => {
    const src = ['query ?', 'SELECT 1', '', 'statement error', 'SELECT 2', ''].join('\n');
    const conn = fake({ 'SELECT 1': one([['1', null]]), 'SELECT 2': { code: '22012', message: 'division by zero' } });
    const { text, problems } = await completeSlt(src, conn, 'f.slt');
    expect(problems).toEqual([]);
    expect(text).toBe(['query IT', 'SELECT 1', '----', '1 NULL', '', 'statement error 22012', 'SELECT 2', ''].join('\n'));
  });
});

describe('differential comparison', () => {
  const ok = (rows: (string | null)[][]) => ({ ok: true as const, result: { columns: ['a'], rows } });
  it('is order-sensitive only for totally ordered queries', () => {
    expect(compareOutcomes({ sql: '', ordered: false }, ok([['1'], ['2']]), ok([['2'], ['1']]))).toBeNull();
    expect(compareOutcomes({ sql: '', ordered: true }, ok([['1'], ['2']]), ok([['2'], ['1']]))).not.toBeNull();
    expect(compareOutcomes({ sql: '', ordered: false }, ok([['1'], ['1']]), ok([['1']]))).not.toBeNull();
    expect(compareOutcomes({ sql: '', ordered: false }, ok([['1.0']]), ok([['1']]))).not.toBeNull();
  });
  it('generates the same queries for the same seed', () => {
    expect(generateQuery(1, 5)).toEqual(generateQuery(1, 5));
    expect(generateQuery(1, 5).sql).not.toEqual(generateQuery(1, 6).sql);
  });
});

describe('psql emulation', () => {
  it('splits statements like psql', () => {
    const { items } = splitScript(
      ["SELECT 'a;b', $$x;y$$; SELECT 2; -- c;", '\\set x 1', 'SELECT (1;', '2);', 'CREATE FUNCTION f() RETURNS int BEGIN ATOMIC SELECT 1; END;', 'COPY t FROM STDIN;', '1\t2', '\\.', 'SELECT /* ; */ 3;'].join('\n'),
    );
    expect(items.map((i) => i.text)).toEqual([
      "SELECT 'a;b', $$x;y$$;",
      'SELECT 2;',
      '\\set x 1',
      'SELECT (1;\n2);',
      'CREATE FUNCTION f() RETURNS int BEGIN ATOMIC SELECT 1; END;',
      'COPY t FROM STDIN;',
      'SELECT /* ; */ 3;',
    ]);
    expect(items[5].copyData).toEqual(['1\t2']);
  });

  it('parses aligned tables (including multi-line cells), errors and nothing', () => {
    const out = [' a |  b  ', '---+-----', ' 1 | x', '   | y  +', '   | z', '(2 rows)', '', 'ERROR:  division by zero', 'NEXT'];
    const stop = (k: number) => out[k] === 'NEXT';
    const t = parseOutputBlock(out, 0, stop);
    expect(t.expected.kind).toBe('rows');
    if (t.expected.kind === 'rows') {
      expect(t.expected.columns).toEqual(['a', 'b']);
      expect(t.expected.rows.map((r) => r.map(normCell))).toEqual([['1', 'x'], ['', 'y\nz']]);
    }
    const e = parseOutputBlock(out, t.next, stop);
    expect(e.expected).toEqual({ kind: 'error', message: 'division by zero' });
    expect(parseOutputBlock(out, e.next, stop).expected).toEqual({ kind: 'none' });
  });

  it('knows when output order is defined', () => {
    expect(hasTopLevelOrderBy('SELECT * FROM t ORDER BY a')).toBe(true);
    expect(hasTopLevelOrderBy('SELECT sum(a) OVER (ORDER BY a) FROM t')).toBe(false);
    expect(hasTopLevelOrderBy("SELECT 'order by' FROM (SELECT a FROM t ORDER BY a) s")).toBe(false);
  });

  it('reads COPY text format', () => {
    expect(parseCopyText(['a\t\\N\tx\\ty', ''])).toEqual([['a', null, 'x\ty']]);
  });
});
