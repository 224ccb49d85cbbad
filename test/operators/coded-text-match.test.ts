/**
 * LIKE, NOT LIKE, ILIKE and the POSIX regular-expression operators against a constant pattern, over a
 * text column carrying dictionary codes (or its lower() or upper()), and AND/OR/NOT trees of them: matched once per entry (coded-text-match.ts), in WHERE (the
 * predicate kernel) and in an aggregate's FILTER and the select list (the projection kernel). Results
 * are compared with PostgreSQL (PGlite) with NULLs, empty, multibyte and astral strings, case pairs
 * that lower-case differently, '_' against a surrogate pair, escapes, and again after new strings
 * grow the dictionary; an invalid regular expression still fails as PostgreSQL's does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { newPglite, quireConnection, type SqlConnection } from '../harness/connection.js';

let pg: SqlConnection;
let quire: SqlConnection;
let db: Database;

const TEXTS = ['', 'a', 'A', 'ab', 'AB', 'Ab', 'abc', 'aXc', 'a_c', 'a%c', 'b', 'É', 'é', 'ß', 'SS', 'İ', 'K', '\u212A', '日本', '😀', 'a😀c', 'x y', "o'k", 'ABLE', 'table', 'a\\c'];
const ROWS = 12000;

function lit(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

function loadSql(from: number, to: number, texts: readonly string[]): string {
  const arr = `ARRAY[${texts.map(lit).join(', ')}]::text[]`;
  return `INSERT INTO t SELECT i, CASE WHEN i % 11 = 0 THEN NULL ELSE (${arr})[1 + (i * 7919) % ${texts.length}] END FROM generate_series(${from}, ${to}) i`;
}

async function same(sql: string): Promise<void> {
  const show = (rows: unknown[][]): string[] => rows.map((row) => row.map((v) => (v === null ? 'NULL' : String(v))).join('|'));
  const [a, b] = await Promise.all([quire.query(sql), pg.query(sql)]);
  expect(show(a.rows as unknown[][]), sql).toEqual(show(b.rows as unknown[][]));
}

async function exec(sql: string): Promise<void> {
  await Promise.all([quire.query(sql), pg.query(sql)]);
}

const PATTERNS: readonly [string, string][] = [
  ['~~', 'a_c'],
  ['~~', 'a%c'],
  ['~~', '%a%'],
  ['~~', 'a\\_c'],
  ['~~', 'a\\%c'],
  ['~~', ''],
  ['~~', '%'],
  ['~~', '_'],
  ['~~', '__'],
  ['!~~', 'a%'],
  ['~~*', 'ab%'],
  ['~~*', 'AB'],
  ['~~*', 'é'],
  ['~~*', 'k'],
  ['~~*', 'ss'],
  ['~~*', '%BL%'],
  ['!~~*', 'a%'],
  ['~', '^a.c$'],
  ['~', 'b'],
  ['~*', '^ab'],
  ['!~', '^a'],
  ['!~*', 'É'],
];

beforeAll(async () => {
  pg = await newPglite();
  db = await Database.create();
  quire = quireConnection(db);
  await exec('CREATE TABLE t (id int4, s text)');
  await exec(loadSql(1, ROWS, TEXTS));
}, 120_000);

afterAll(async () => {
  await pg?.close?.();
  await db?.close();
});

function coded(): boolean {
  const batches = db.catalog.getMemoryTable('t').snapshot().filter((b) => b.length >= 512);
  return batches.length > 0 && batches.every((b) => b.columns[1]!.dict != null);
}

function queries(): void {
  it('WHERE: the rows each operator keeps', async () => {
    for (const [op, p] of PATTERNS) {
      await same(`SELECT count(*), sum(id) FROM t WHERE s ${op} ${lit(p)}`);
      await same(`SELECT id, s FROM t WHERE s ${op} ${lit(p)} ORDER BY id LIMIT 30`);
    }
  });
  it('AND, OR, NOT, IS NULL and IS TRUE/UNKNOWN over several matches of the column', async () => {
    const conds = [
      "s LIKE 'a%' OR s ILIKE '%B'",
      "s LIKE 'a%' AND s ~ 'c$'",
      "NOT (s ~~* 'a%' OR s IS NULL)",
      "s IS NULL OR s !~ '^[a-z]'",
      "(s LIKE '%😀%') IS UNKNOWN",
      "(s ILIKE 'k' AND s NOT LIKE 'k') IS NOT TRUE",
      "s IS NOT NULL AND (s LIKE '_' OR s LIKE '__')",
      "lower(s) LIKE 'ab%'",
      "upper(s) ~ '^SS|^AB' OR lower(upper(s)) = 'x'",
      "upper(lower(s)) ILIKE '%ǅ%' OR lower(s) LIKE 'k'",
      "lower(s) !~~* 'é'",
    ];
    for (const c of conds) {
      await same(`SELECT count(*), sum(id) FROM t WHERE ${c}`);
      await same(`SELECT count(*) FILTER (WHERE ${c}), count(*) FILTER (WHERE (${c}) IS NULL) FROM t`);
      await same(`SELECT id, ${c} FROM t ORDER BY id LIMIT 40`);
    }
  });
  it('FILTER and the select list: true, false and NULL per row', async () => {
    for (const [op, p] of PATTERNS) {
      await same(`SELECT count(*) FILTER (WHERE s ${op} ${lit(p)}), count(*) FILTER (WHERE NOT (s ${op} ${lit(p)})) FROM t`);
      await same(`SELECT id, s ${op} ${lit(p)} FROM t ORDER BY id LIMIT 60`);
    }
  });
}

describe('over a coded column', () => {
  it('the column carries codes', () => {
    expect(coded()).toBe(true);
  });
  queries();
});

describe('after new strings grow the dictionary, and rows are updated', () => {
  beforeAll(async () => {
    await exec(loadSql(ROWS + 1, ROWS + 6000, [...TEXTS.slice(3), 'abbc', 'AbC', 'ǅ', 'ﬃ', 'a\u0301c']));
    await exec("UPDATE t SET s = 'ABC' WHERE id % 97 = 0");
  }, 60_000);
  queries();
});

it('an invalid regular expression fails as it does row by row', async () => {
  const ours = await quire.query("SELECT count(*) FROM t WHERE s ~ 'a('").then(
    () => null,
    (e: { code?: string }) => e.code,
  );
  const theirs = await pg.query("SELECT count(*) FROM t WHERE s ~ 'a('").then(
    () => null,
    (e: { code?: string }) => e.code,
  );
  expect(ours).toBe('2201B');
  expect(ours).toBe(theirs);
});
