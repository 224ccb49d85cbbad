/**
 * INSERT … VALUES of literal rows parsed without the grammar: for every literal shape the lexer
 * knows (ints at the int4 edges, signs, decimals, exponents, quoted quotes, backslashes, NULL/TRUE/
 * FALSE in any case, any whitespace) the tree is the grammar's own, and everything else still goes
 * to the grammar (expressions, DEFAULT, E'' strings, comments, RETURNING, trailing junk, non-ASCII).
 */
import { parseSync } from 'libpg-query';
import { beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { parseInsertValues } from '../../src/sql/parse-insert-values.js';
import { ensureParser, parseStatements } from '../../src/sql/parse.js';
import { rng } from '../operators/helpers.js';

beforeAll(async () => {
  await ensureParser();
});

const grammar = (text: string): unknown => (parseSync(text) as { stmts: { stmt: unknown }[] }).stmts[0]!.stmt;

const LITERALS = [
  '0', '-0', '7', '-7', '007', '2147483647', '2147483648', '-2147483647', '-2147483648', '-2147483649', '9223372036854775808',
  '123456789012345678901234567890', '0.5', '-0.5', '.5', '-.5', '5.', '-5.', '1e5', '1E-3', '-2.5e+10', '1.e3', '0.0', '-0.0',
  '0.', '00.50', '12.345e-7', '.5E+2', '1E+0', '2147483648.5', '99999999999999999999.25', `${'9'.repeat(390)}.5`,
  "''", "'x'", "'it''s'", "''''", "'a\\b'", "'\\'", "'two  spaces'", "'line\nbreak'", "'tab\there'", "'-- not a comment'", "'/* nor this */'",
  'NULL', 'null', 'Null', 'TRUE', 'true', 'False', 'false',
];
const SPACE = ['', ' ', '  ', '\n', '\t', ' \n '];

describe('INSERT … VALUES without the grammar', () => {
  it('builds the grammar\'s tree for every literal shape, after learning a prefix once', () => {
    const prefixes = ['INSERT INTO t VALUES', 'insert into t values', 'INSERT  INTO  t\nVALUES', 'INSERT INTO public.t (a, b, c) VALUES', 'insert into t(a,b,c)values'];
    const r = rng(42);
    const pick = <X>(xs: readonly X[]): X => xs[Math.floor(r() * xs.length)]!;
    let fast = 0;
    for (const prefix of prefixes) {
      parseStatements(`${prefix} (1, 2, 3)`);
      for (let k = 0; k < 300; k++) {
        const rows = Array.from({ length: 1 + Math.floor(r() * 3) }, () => {
          const vals = Array.from({ length: 3 }, () => `${pick(SPACE)}${pick(LITERALS)}${pick(SPACE)}`);
          return `(${vals.join(',')})`;
        });
        const text = `${prefix}${pick([' ', '\n', ''])}${rows.join(`${pick(SPACE)},${pick(SPACE)}`)}${pick(SPACE)}`;
        const tree = parseInsertValues(text);
        expect(tree, text).not.toBeNull();
        expect(tree, text).toEqual(grammar(text));
        // And what the engine sees is that tree, with the statement's extent.
        expect(parseStatements(text)).toEqual([{ stmt: tree, start: 0, end: text.length, text }]);
        fast++;
      }
    }
    expect(fast).toBe(1500);
  });

  it('statements that begin with the text of the prefix before are read by their own prefix', () => {
    for (const prefix of ['INSERT INTO w VALUES', 'INSERT INTO ww VALUES', 'INSERT INTO w (a) VALUES']) parseStatements(`${prefix} (1)`);
    // Each text after one whose prefix it begins with (the loop's shortcut), or after another prefix;
    // taken (the grammar's tree) or not (null: another spelling of the prefix was never learned, or
    // the text is not rows of literals).
    const texts: [string, boolean][] = [
      ['INSERT INTO w VALUES (1)', true],
      ['INSERT INTO w VALUES(2),(3)', true],
      ['INSERT INTO w VALUES\n (4)', true],
      ['INSERT INTO ww VALUES (5)', true],
      ['INSERT INTO w VALUES (6)', true],
      ['INSERT INTO w  VALUES (7)', false],
      ['INSERT INTO w (a) VALUES (8)', true],
      ['INSERT INTO w VALUES (9)', true],
      ['INSERT INTO w VALUES (10) RETURNING a', false],
      ['INSERT INTO w VALUESx (11)', false],
      ['INSERT INTO w VALUES', false],
      ['INSERT INTO w VALUES ', false],
      ['INSERT INTO w VALUES (12', false],
      ['INSERT INTO w VALUES (13)', true],
    ];
    for (const [text, taken] of texts) expect(parseInsertValues(text), text).toEqual(taken ? grammar(text) : null);
  });

  it('leaves everything else to the grammar', () => {
    parseStatements('INSERT INTO u VALUES (1)');
    expect(parseInsertValues('INSERT INTO u VALUES (1)')).not.toBeNull();
    const others = [
      'INSERT INTO u VALUES (DEFAULT)',
      'INSERT INTO u VALUES (1 + 2)',
      'INSERT INTO u VALUES (-1::int)',
      "INSERT INTO u VALUES (E'a\\nb')",
      "INSERT INTO u VALUES (U&'a')",
      "INSERT INTO u VALUES ('a' 'b')",
      "INSERT INTO u VALUES ('a'\n'b')",
      'INSERT INTO u VALUES (1abc)',
      'INSERT INTO u VALUES (0x1F)',
      'INSERT INTO u VALUES (1_000)',
      'INSERT INTO u VALUES (1e)',
      'INSERT INTO u VALUES (1.5e)',
      'INSERT INTO u VALUES (1e+)',
      'INSERT INTO u VALUES (.e1)',
      'INSERT INTO u VALUES (.)',
      'INSERT INTO u VALUES (-.)',
      'INSERT INTO u VALUES (1.2.3)',
      'INSERT INTO u VALUES (1.5x)',
      `INSERT INTO u VALUES (${'9'.repeat(400)})`,
      'INSERT INTO u VALUES (- 1)',
      'INSERT INTO u VALUES (--1\n2)',
      'INSERT INTO u VALUES (/* c */ 1)',
      'INSERT INTO u VALUES (1) RETURNING *',
      'INSERT INTO u VALUES (1) ON CONFLICT DO NOTHING',
      'INSERT INTO u VALUES (1);',
      'INSERT INTO u VALUES (1); SELECT 1',
      "INSERT INTO u VALUES ('é')",
      "INSERT INTO u VALUES ('open)",
      'INSERT INTO u VALUES (1),',
      'INSERT INTO u VALUES ()',
      'INSERT INTO u VALUES (NaN)',
      // Another prefix: not learned yet.
      'INSERT INTO v VALUES (1)',
    ];
    for (const text of others) expect(parseInsertValues(text), text).toBeNull();
  });

  it('a prefix the grammar refuses is never learned, and its errors stay the grammar\'s', () => {
    for (let i = 0; i < 2; i++) {
      expect(() => parseStatements('INSERT INTO select VALUES (1)')).toThrow(expect.objectContaining({ code: '42601' }));
    }
    expect(parseInsertValues('INSERT INTO select VALUES (1)')).toBeNull();
  });

  it('rows inserted through this path are the rows the grammar path inserts', async () => {
    const db = await Database.create();
    await db.query('CREATE TABLE t (i int, n numeric, f float8, s text, b bool)');
    await db.query('CREATE TABLE g (i int, n numeric, f float8, s text, b bool)');
    const rows = ["(1, 2.50, -1e3, 'it''s', true)", "(-2147483648, -0.0, .5, 'a\\b', NULL)", "(0, 12345678901234567890, 5., '', FALSE)"];
    for (const r of rows) {
      await db.query(`INSERT INTO t VALUES ${r}`);
      // A statement with a comment goes through the grammar.
      await db.query(`INSERT INTO g VALUES /* grammar */ ${r}`);
    }
    const a = (await db.query('SELECT * FROM t ORDER BY i')).rows;
    expect(a).toEqual((await db.query('SELECT * FROM g ORDER BY i')).rows);
    expect(a.length).toBe(3);
    await expect(db.query("INSERT INTO t VALUES ('x', 1, 1, 'a', true)")).rejects.toMatchObject({ code: '22P02', position: 23 });
  });
});
