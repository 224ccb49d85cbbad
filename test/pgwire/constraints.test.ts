/**
 * PRIMARY KEY, UNIQUE and FOREIGN KEY constraints in the catalog clients read over the PostgreSQL
 * protocol (pg_constraint, pg_get_constraintdef, information_schema.table_constraints /
 * referential_constraints / key_column_usage), compared with PGlite given the same tables. NOT NULL
 * constraints, which PostgreSQL 18 catalogues too, are left out: Quire keeps them as column flags.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPglite, type SqlConnection } from '../harness/connection.js';
import { startFixture, type Fixture } from './helpers.js';

const DDL = [
  'create table cp (id int primary key, code text unique, x int, y int, unique (x, y))',
  'create table cc (id int, pid int references cp on delete cascade, a int, b int, constraint cc_xy foreign key (b, a) references cp (y, x) match full on update set null on delete set null (a))',
  'create table cself (id int primary key, up int references cself on update cascade)',
];

const QUERIES = [
  "select c.conname, c.contype, r.relname, coalesce(f.relname, '-') as parent, c.conkey::text, c.confkey::text, c.confupdtype, c.confdeltype, c.confmatchtype from pg_constraint c join pg_class r on r.oid = c.conrelid left join pg_class f on f.oid = c.confrelid where r.relname in ('cp', 'cc', 'cself') and c.contype in ('p', 'u', 'f') order by c.conname",
  "select conname, pg_get_constraintdef(oid) from pg_constraint where conrelid in (select oid from pg_class where relname in ('cp', 'cc', 'cself')) and contype in ('p', 'u', 'f') order by conname",
  "select constraint_name, table_name, constraint_type from information_schema.table_constraints where table_name in ('cp', 'cc', 'cself') and constraint_type in ('PRIMARY KEY', 'UNIQUE', 'FOREIGN KEY') order by constraint_name",
  'select constraint_name, unique_constraint_name, match_option, update_rule, delete_rule from information_schema.referential_constraints order by constraint_name',
  "select constraint_name, table_name, column_name, ordinal_position, position_in_unique_constraint from information_schema.key_column_usage where table_name in ('cp', 'cc', 'cself') order by constraint_name, ordinal_position",
];

let fx: Fixture;
let ref: SqlConnection;
let c: pg.Client;

beforeAll(async () => {
  fx = await startFixture({});
  ref = await newPglite();
  for (const s of DDL) {
    await fx.db.query(s);
    await ref.query(s);
  }
  c = new pg.Client({ host: '127.0.0.1', port: fx.server.port, user: 'node', database: 'quire' });
  await c.connect();
}, 60_000);
afterAll(async () => {
  await c.end();
  await fx.server.close();
  await ref.close?.();
});

describe('constraints in the catalog', () => {
  for (const q of QUERIES) {
    it(q.slice(0, 80), async () => {
      const mine = (await c.query({ text: q, rowMode: 'array' })).rows.map((r: unknown[]) => r.map((v) => (v === null ? null : String(v))));
      expect(mine).toEqual((await ref.query(q)).rows);
    });
  }
});
