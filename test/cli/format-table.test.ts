/**
 * The expected strings below are psql 15's own output for the same data (captured with
 * `psql -c ... | cat -A`), so these tests pin quire's printer to psql byte for byte.
 */
import { describe, expect, it } from 'vitest';
import { csvField, displayWidth, formatTable, type TableColumn } from '../../src/cli/format-table.js';

const L = (name: string): TableColumn => ({ name, align: 'left' });
const R = (name: string): TableColumn => ({ name, align: 'right' });

describe('aligned format', () => {
  it('centres headers, right-aligns numbers, pads all but the last column', () => {
    // select 'hello'::text as a, 12345 as n, 'a'||chr(10)||'bcd' as ml, 'z' as last
    expect(formatTable([L('a'), R('n'), L('ml'), L('last')], [['hello', '12345', 'a\nbcd', 'z']])).toBe(
      '   a   |   n   | ml  | last \n' +
        '-------+-------+-----+------\n' +
        ' hello | 12345 | a  +| z\n' +
        '       |       | bcd | \n' +
        '(1 row)\n\n',
    );
  });

  it('prints NULL as an empty cell, right-aligned columns still padded', () => {
    expect(formatTable([R('a'), L('bb'), R('c')], [['1', 'x', null]])).toBe(' a | bb | c \n---+----+---\n 1 | x  |  \n(1 row)\n\n');
  });

  it('prints the seed OFFSET example exactly as psql', () => {
    const rows = [
      ['Kevin . Campbell', 'Male'],
      ['Raja Y. Wilson', 'Male'],
      ['Samantha O. Brown', 'Female'],
      ['Steve H. Gauthier', 'Male'],
      ['William . Nielson', 'Male'],
      ['William Z. Roy', 'Male'],
    ];
    expect(formatTable([L('customer_name'), L('customer_gender')], rows)).toBe(
      '   customer_name   | customer_gender \n' +
        '-------------------+-----------------\n' +
        ' Kevin . Campbell  | Male\n' +
        ' Raja Y. Wilson    | Male\n' +
        ' Samantha O. Brown | Female\n' +
        ' Steve H. Gauthier | Male\n' +
        ' William . Nielson | Male\n' +
        ' William Z. Roy    | Male\n' +
        '(6 rows)\n\n',
    );
  });

  it('centres an odd leftover space to the right', () => {
    // "ab" in a 13-wide column: 5 spaces left, 6 right.
    expect(formatTable([L('ab'), L('c')], [['longer values', 'x']]).split('\n')[0]).toBe('      ab       | c ');
  });

  it('handles zero rows', () => {
    expect(formatTable([R('?column?')], [])).toBe(' ?column? \n----------\n(0 rows)\n\n');
  });

  it('handles zero columns (SELECT;)', () => {
    expect(formatTable([], [[]])).toBe('--\n(1 row)\n\n');
  });

  it('right-aligns numeric columns with mixed widths', () => {
    expect(formatTable([R('n'), R('m')], [['-1.5', '100'], ['22.25', '3']])).toBe(
      '   n   |  m  \n-------+-----\n  -1.5 | 100\n 22.25 |   3\n(2 rows)\n\n',
    );
  });

  it('lays out multi-line cells in several columns', () => {
    expect(formatTable([L('x'), L('y'), R('z')], [['a\nb', 'c\ndd\ne', '5']])).toBe(
      ' x | y  | z \n---+----+---\n a+| c +| 5\n b | dd+| \n   | e  | \n(1 row)\n\n',
    );
  });

  it('splits multi-line headers', () => {
    expect(formatTable([R('multi\nline'), L('h')], [['12', 'v']])).toBe(' multi+| h \n line  |   \n-------+---\n    12 | v\n(1 row)\n\n');
  });

  it('escapes control characters and measures wide characters', () => {
    expect(formatTable([L('t'), L('u'), L('cr')], [['x\ty', 'é日本', 'ab\rc']])).toBe(
      '     t     |   u   |  cr   \n-----------+-------+-------\n x       y | é日本 | ab\\rc\n(1 row)\n\n',
    );
    expect(displayWidth('é日本')).toBe(5);
  });

  it('-t: no header or footer, and headers do not widen columns', () => {
    const rows = [
      ['1', 'x,y', null, 'q"z', ''],
      ['22', ' s', '3', 'a\nb', null],
    ];
    const cols = [R('a'), L('bb'), R('c'), L('d'), L('e')];
    expect(formatTable(cols, rows, { tuplesOnly: true })).toBe('  1 | x,y |   | q"z | \n 22 |  s  | 3 | a  +| \n    |     |   | b   | \n\n');
    expect(formatTable([R('a')], [], { tuplesOnly: true })).toBe('\n');
  });

  it('custom NULL display and no footer', () => {
    expect(formatTable([R('a'), L('b')], [[null, null]], { nullString: 'NUL', footers: [] })).toBe('  a  |  b  \n-----+-----\n NUL | NUL\n\n');
  });

  it('centres a title over the table', () => {
    const out = formatTable(
      [L('Schema'), L('Name'), L('Type'), L('Owner')],
      [['public', 'tt', 'table', 'postgres']],
      { title: 'List of relations' },
    );
    expect(out.split('\n')[0]).toBe('        List of relations');
  });
});

describe('expanded format', () => {
  const cols = [R('a'), L('bb'), R('c'), L('d'), L('e')];
  const rows = [
    ['1', 'x,y', null, 'q"z', ''],
    ['22', ' s', '3', 'a\nb', null],
  ];

  it('prints record headers and one line per field', () => {
    expect(formatTable(cols, rows, { expanded: true })).toBe(
      '-[ RECORD 1 ]\na  | 1\nbb | x,y\nc  | \nd  | q"z\ne  | \n-[ RECORD 2 ]\na  | 22\nbb |  s\nc  | 3\nd  | a  +\n   | b\ne  | \n\n',
    );
  });

  it('pads the record header to the widest value', () => {
    expect(formatTable([L('longname'), R('n'), L('m')], [['abcdefghijklmnopqrst', '1', 'a\nbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb']], { expanded: true })).toBe(
      '-[ RECORD 1 ]----------------------------\n' +
        'longname | abcdefghijklmnopqrst\n' +
        'n        | 1\n' +
        'm        | a                             +\n' +
        '         | bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\n\n',
    );
  });

  it('puts the divider mark in the record header for long column names', () => {
    expect(formatTable([R('a_very_long_column_name_here'), R('b')], [['1', '2']], { expanded: true })).toBe(
      '-[ RECORD 1 ]----------------+--\na_very_long_column_name_here | 1\nb                            | 2\n\n',
    );
  });

  it('-x -t separates records with a plain line', () => {
    expect(formatTable([R('a')], [['1'], ['2']], { expanded: true, tuplesOnly: true })).toBe('a | 1\n--+--\na | 2\n\n');
  });

  it('zero rows', () => {
    expect(formatTable([R('a')], [], { expanded: true })).toBe('(0 rows)\n\n');
    expect(formatTable([R('a')], [], { expanded: true, format: 'unaligned' })).toBe('');
  });

  it('unaligned and CSV variants', () => {
    expect(formatTable([R('a'), R('b')], [['1', '2'], ['2', '3']], { expanded: true, format: 'unaligned' })).toBe('a|1\nb|2\n\na|2\nb|3\n');
    expect(formatTable([R('a'), L('b')], [['1', 'x,y']], { expanded: true, format: 'csv' })).toBe('a,1\nb,"x,y"\n');
  });
});

describe('unaligned format', () => {
  const cols = [R('a'), L('bb'), R('c'), L('d'), L('e')];
  const rows = [
    ['1', 'x,y', null, 'q"z', ''],
    ['22', ' s', '3', 'a\nb', null],
  ];

  it('-A: header, rows, footer, "|" separator', () => {
    expect(formatTable(cols, rows, { format: 'unaligned' })).toBe('a|bb|c|d|e\n1|x,y||q"z|\n22| s|3|a\nb|\n(2 rows)\n');
  });

  it('-A -t: rows only', () => {
    expect(formatTable(cols, rows, { format: 'unaligned', tuplesOnly: true })).toBe('1|x,y||q"z|\n22| s|3|a\nb|\n');
    expect(formatTable(cols, [], { format: 'unaligned', tuplesOnly: true })).toBe('');
  });

  it('-F sets the separator', () => {
    expect(formatTable([R('a'), L('b')], [['1', 'x']], { format: 'unaligned', fieldSep: ';' })).toBe('a;b\n1;x\n(1 row)\n');
  });
});

describe('CSV format', () => {
  it('quotes only when needed, NULL and empty both empty', () => {
    const cols = [R('a'), L('bb'), R('c'), L('d'), L('e')];
    const rows = [
      ['1', 'x,y', null, 'q"z', ''],
      ['22', ' s', '3', 'a\nb', null],
    ];
    expect(formatTable(cols, rows, { format: 'csv' })).toBe('a,bb,c,d,e\n1,"x,y",,"q""z",\n22, s,3,"a\nb",\n');
    expect(formatTable(cols, rows, { format: 'csv', tuplesOnly: true })).toBe('1,"x,y",,"q""z",\n22, s,3,"a\nb",\n');
  });

  it('header only for zero rows', () => {
    expect(formatTable([R('a'), L('b')], [], { format: 'csv' })).toBe('a,b\n');
  });

  it('csvField guards COPY end marker and separators', () => {
    expect(csvField('\\.', ',')).toBe('"\\."');
    expect(csvField('a;b', ';')).toBe('"a;b"');
    expect(csvField('plain', ',')).toBe('plain');
    expect(csvField('cr\r', ',')).toBe('"cr\r"');
  });
});
