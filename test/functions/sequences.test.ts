/**
 * Sequences against PostgreSQL (PGlite): every statement of each script runs on both engines in order
 * (sequences are state, so order matters) and its rows or error (SQLSTATE and message) must match.
 * Covers CREATE/ALTER/DROP SEQUENCE options, nextval/currval/setval/lastval and their errors, cycling and
 * bounds, serial/bigserial/smallserial and identity columns, OVERRIDING, volatile nextval under ORDER BY
 * and LIMIT/OFFSET, and values not given back by ROLLBACK.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeText, pgliteAndQuire, type SqlConnection } from '../harness/connection.js';

let pg: SqlConnection;
let q: SqlConnection;

beforeAll(async () => {
  ({ pg, q } = await pgliteAndQuire([
    'CREATE TABLE src (id int, g int)',
    'INSERT INTO src SELECT i, i % 5 FROM generate_series(1, 200) i',
  ]));
}, 60_000);

afterAll(async () => {
  await pg?.close?.();
  await q?.close?.();
});

async function script(stmts: readonly string[]): Promise<void> {
  const diffs: string[] = [];
  for (const sql of stmts) {
    const want = await outcomeText(pg, sql);
    const got = await outcomeText(q, sql);
    if (want !== got) diffs.push(`${sql}\n  postgres: ${want}\n  quire:    ${got}`);
  }
  expect(diffs).toEqual([]);
}

describe('sequences', () => {
  it('CREATE SEQUENCE options, nextval, currval, setval, lastval', async () => {
    await script([
      'CREATE SEQUENCE s1',
      "SELECT currval('s1')",
      'SELECT lastval()',
      "SELECT nextval('s1'), nextval('s1')",
      "SELECT currval('s1'), lastval()",
      "SELECT setval('s1', 41)",
      "SELECT nextval('s1'), currval('s1')",
      "SELECT setval('s1', 7, false), currval('s1')",
      "SELECT nextval('s1')",
      "SELECT setval('s1', 0)",
      "SELECT setval('s1', 5, true), currval('s1'), lastval()",
      'CREATE SEQUENCE s1',
      'CREATE SEQUENCE IF NOT EXISTS s1',
      'CREATE SEQUENCE s2 INCREMENT BY 3 START WITH 10',
      "SELECT nextval('s2'), nextval('s2'), nextval('s2')",
      'CREATE SEQUENCE s3 INCREMENT -2 MINVALUE -5 MAXVALUE 4 START 2 CYCLE',
      "SELECT nextval('s3') FROM generate_series(1, 9)",
      'CREATE SEQUENCE s4 MAXVALUE 3',
      "SELECT nextval('s4'), nextval('s4'), nextval('s4')",
      "SELECT nextval('s4')",
      "SELECT currval('s4')",
      'CREATE SEQUENCE s5 INCREMENT -1 MINVALUE -2',
      "SELECT nextval('s5'), nextval('s5')",
      "SELECT nextval('s5')",
      'CREATE SEQUENCE s6 AS smallint CACHE 20',
      "SELECT setval('s6', 32767), nextval('s6')",
      'CREATE SEQUENCE bad INCREMENT 0',
      'CREATE SEQUENCE bad MINVALUE 10 MAXVALUE 5',
      'CREATE SEQUENCE bad START 0',
      'CREATE SEQUENCE bad AS smallint MAXVALUE 100000',
      'CREATE SEQUENCE bad AS text',
      'CREATE SEQUENCE bad CACHE 0',
      "SELECT nextval('nosuch')",
      "SELECT nextval('src')",
      "SELECT nextval('S1'), nextval('public.s1'), nextval('\"s1\"')",
      "SELECT nextval(NULL::text)",
      'ALTER SEQUENCE s2 RESTART WITH 100',
      "SELECT nextval('s2')",
      'ALTER SEQUENCE s2 RESTART',
      "SELECT nextval('s2')",
      'ALTER SEQUENCE s2 INCREMENT BY 10',
      "SELECT nextval('s2')",
      'ALTER SEQUENCE s2 RESTART WITH 0',
      'ALTER SEQUENCE nosuch RESTART',
      'ALTER SEQUENCE IF EXISTS nosuch RESTART',
      'DROP SEQUENCE s4, s5',
      "SELECT nextval('s4')",
      'DROP SEQUENCE s4',
      'DROP SEQUENCE IF EXISTS s4',
      'CREATE TEMP SEQUENCE ts START 50',
      "SELECT nextval('ts'), currval('ts')",
    ]);
  });

  it('values are not given back by ROLLBACK', async () => {
    await script([
      'CREATE SEQUENCE rb',
      'BEGIN',
      "SELECT nextval('rb'), nextval('rb')",
      'ROLLBACK',
      "SELECT nextval('rb'), currval('rb')",
    ]);
  });

  it('nextval once per returned row under ORDER BY, LIMIT and OFFSET', async () => {
    await script([
      'CREATE SEQUENCE lim',
      "SELECT id, nextval('lim') FROM src ORDER BY id LIMIT 5",
      "SELECT currval('lim')",
      "SELECT id, nextval('lim') FROM src ORDER BY g, id DESC LIMIT 4",
      "SELECT currval('lim')",
      "SELECT id, nextval('lim') FROM src ORDER BY id LIMIT 3 OFFSET 10",
      "SELECT currval('lim')",
      "SELECT id, nextval('lim') FROM src WHERE g = 2 ORDER BY id LIMIT 3",
      "SELECT currval('lim')",
      "SELECT count(*), min(n), max(n) FROM (SELECT nextval('lim') AS n FROM src) x",
      "SELECT nextval('lim') AS n FROM src ORDER BY n DESC LIMIT 2",
      "SELECT currval('lim')",
    ]);
  });

  it('serial and identity columns', async () => {
    await script([
      'CREATE TABLE ser (id serial PRIMARY KEY, b bigserial, s smallserial, v text)',
      "INSERT INTO ser (v) VALUES ('a'), ('b')",
      "INSERT INTO ser (v) SELECT 'x' || id FROM src WHERE id <= 3",
      "INSERT INTO ser VALUES (DEFAULT, DEFAULT, DEFAULT, 'd')",
      'SELECT * FROM ser ORDER BY id',
      "SELECT currval('ser_id_seq'), currval('ser_b_seq'), lastval()",
      "SELECT setval('ser_id_seq', 100)",
      "INSERT INTO ser (v) VALUES ('after setval')",
      'SELECT id, v FROM ser WHERE id > 50',
      "SELECT nextval('ser_s_seq')",
      'DROP SEQUENCE ser_id_seq',
      'CREATE TABLE ida (id int GENERATED ALWAYS AS IDENTITY, v int)',
      'INSERT INTO ida (v) VALUES (1), (2)',
      'INSERT INTO ida VALUES (10, 3)',
      'INSERT INTO ida (id, v) SELECT id, g FROM src WHERE id = 1',
      'INSERT INTO ida VALUES (DEFAULT, 4)',
      'INSERT INTO ida OVERRIDING SYSTEM VALUE VALUES (10, 5)',
      'SELECT * FROM ida ORDER BY v',
      'CREATE TABLE idb (id bigint GENERATED BY DEFAULT AS IDENTITY (START WITH 100 INCREMENT BY 10), v int)',
      'INSERT INTO idb (v) VALUES (1), (2)',
      'INSERT INTO idb VALUES (7, 3)',
      'INSERT INTO idb OVERRIDING USER VALUE VALUES (7, 4)',
      'SELECT * FROM idb ORDER BY v',
      "SELECT currval('idb_id_seq')",
      'CREATE TABLE idc (id text GENERATED ALWAYS AS IDENTITY)',
      'CREATE TABLE sm (id smallint GENERATED BY DEFAULT AS IDENTITY (MAXVALUE 2), v int)',
      'INSERT INTO sm (v) VALUES (1), (2)',
      'INSERT INTO sm (v) VALUES (3)',
      'SELECT * FROM sm ORDER BY v',
      'DROP TABLE ser',
      "SELECT nextval('ser_id_seq')",
    ]);
  });
});
