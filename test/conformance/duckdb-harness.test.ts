import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DUCKDB_SUITE, duckTestFiles } from '../harness/duckdb-conformance.js';
import { duckText, matchResult, md5OfValues, orderedValues, parseDuckTest, sameValue, type DuckQuery } from '../harness/duckdb-slt.js';

const dirs = { testDir: '/suite', tempDir: '/tmp/x' };

describe("DuckDB's sqllogictest dialect", () => {
  it('unrolls loops and foreach (nested, with type groups) and substitutes their variables', () => {
    const f = parseDuckTest(
      [
        'loop i 0 2',
        '',
        'foreach t integer "double precision"',
        '',
        'statement ok',
        'SELECT ${i}::{t}',
        '',
        'endloop',
        '',
        'endloop',
        '',
        'foreach t <signed>',
        '',
        'statement ok',
        'SELECT 1::${t}',
        '',
        'endloop',
      ].join('\n'),
      dirs,
    );
    expect(f.records.map((r) => r.sql)).toEqual([
      'SELECT 0::integer',
      'SELECT 0::double precision',
      'SELECT 1::integer',
      'SELECT 1::double precision',
      'SELECT 1::tinyint',
      'SELECT 1::smallint',
      'SELECT 1::integer',
      'SELECT 1::bigint',
      'SELECT 1::hugeint',
    ]);
  });

  it('reads statement error messages, query sort modes, hashes, skipped regions, requires and paths', () => {
    const f = parseDuckTest(
      [
        'require parquet',
        '',
        'statement error',
        'SELECT x',
        '----',
        'Binder Error',
        '',
        'mode skip',
        '',
        'statement ok',
        'SELECT 2',
        '',
        'mode unskip',
        '',
        'query IT rowsort',
        "SELECT * FROM read_csv('{TEST_DIR}/a.csv')",
        '----',
        '1\ta',
        '2\tb',
        '',
        'query I',
        'SELECT 1',
        '----',
        '3 values hashing to 0123456789abcdef0123456789abcdef',
        '',
        'halt',
        '',
        'statement ok',
        'SELECT 3',
      ].join('\n'),
      dirs,
    );
    expect(f.requires).toEqual(['parquet']);
    expect(f.records).toHaveLength(3);
    expect(f.records[0]).toMatchObject({ kind: 'statement', expect: 'error', sql: 'SELECT x', line: 3 });
    expect(f.records[1]).toMatchObject({ kind: 'query', columns: 2, sort: 'rowsort', sql: "SELECT * FROM read_csv('/suite/a.csv')", expected: { lines: ['1\ta', '2\tb'] } });
    expect(f.records[2]).toMatchObject({ expected: { count: 3, hash: '0123456789abcdef0123456789abcdef' } });
  });

  it("hashes values as DuckDB's runner does (a result computed here, hash from DuckDB's own file)", () => {
    // test_window_distinct.test: i, i % 29 and COUNT(DISTINCT v) over 25 rows either side, for
    // i < 1000. 29 consecutive rows hold every residue, so the count is min(29, frame size).
    const text = readFileSync(join(DUCKDB_SUITE, 'sql/window/test_window_distinct.test'), 'utf8');
    const q = parseDuckTest(text, dirs).records.find((r): r is DuckQuery => r.kind === 'query' && 'hash' in r.expected && r.sql.includes('range(1000)'))!;
    const rows: string[][] = [];
    for (let i = 0; i < 1000; i++) rows.push([String(i), String(i % 29), String(Math.min(29, Math.min(i + 25, 999) - Math.max(i - 25, 0) + 1))]);
    expect(md5OfValues(orderedValues(rows, 'nosort'))).toBe((q.expected as { hash: string }).hash);
    expect(matchResult(q, rows)).toEqual({ ok: true });
    rows[500]![2] = '28';
    expect(matchResult(q, rows)).toEqual({ ok: false, reason: 'values hash differently' });
  });

  it("compares values by DuckDB's text, numbers within a relative 1e-6", () => {
    expect(duckText(null, 'int4')).toBe('NULL');
    expect(duckText('', 'text')).toBe('(empty)');
    expect(duckText('t', 'bool')).toBe('true');
    expect(sameValue('1', '1.0')).toBe(true);
    expect(sameValue('0.3333333333333333', '0.333333')).toBe(true);
    expect(sameValue('2', '2.001')).toBe(false);
    expect(sameValue('NaN', 'nan')).toBe(true);
    expect(sameValue('-Infinity', '-inf')).toBe(true);
    expect(sameValue('a', 'A')).toBe(false);
    const q: DuckQuery = { kind: 'query', line: 1, sql: '', columns: 2, sort: 'rowsort', expected: { lines: ['1\tb', '2\ta'] } };
    expect(matchResult(q, [['2', 'a'], ['1', 'b']])).toEqual({ ok: true });
    expect(matchResult({ ...q, sort: 'nosort' }, [['2', 'a'], ['1', 'b']]).ok).toBe(false);
    expect(matchResult(q, [['1', 'b']])).toEqual({ ok: false, reason: '1 rows, expected 2' });
    // One value a line is read as rows of the record's width.
    expect(matchResult({ ...q, expected: { lines: ['1', 'b', '2', 'a'] } }, [['1', 'b'], ['2', 'a']])).toEqual({ ok: true });
  });

  it('parses every copied file', () => {
    const files = duckTestFiles();
    expect(files.length).toBeGreaterThan(100);
    for (const file of files) {
      const f = parseDuckTest(readFileSync(join(DUCKDB_SUITE, file), 'utf8'), dirs);
      for (const r of f.records) {
        expect(r.sql.trim(), `${file}:${r.line}`).not.toBe('');
        if (r.kind === 'query') expect(r.columns, `${file}:${r.line}`).toBeGreaterThan(0);
      }
    }
  });
});
