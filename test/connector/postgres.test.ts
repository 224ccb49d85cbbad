/**
 * PostgreSQL connector against a real server: .ci/run starts one and exports QUIRE_TEST_PG_DSN
 * (see .ci/start-postgres.sh). Checks that pushdown happened (EXPLAIN shows the remote SQL) and that
 * results equal the same query with pushdown switched off (everything read and evaluated locally).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

const DSN = process.env.QUIRE_TEST_PG_DSN;
if (DSN === undefined) {
  console.warn('test/connector: QUIRE_TEST_PG_DSN is not set, skipping the PostgreSQL connector tests (.ci/start-postgres.sh starts a server and sets it)');
}

describe.skipIf(DSN === undefined)('ATTACH postgres', () => {
  let db: Database;
  let admin: pg.Client;
  const schema = `quire_test_${process.pid}`;

  const explain = async (sql: string): Promise<string> => (await db.query(`EXPLAIN (FORMAT QUIRE) ${sql}`)).rows.map((r) => r[0]).join('\n');
  /** The query's rows with pushdown, after checking they equal the rows without it. */
  async function same(sql: string): Promise<unknown[][]> {
    const pushed = (await db.query(sql)).rows;
    await db.query(`SET quire.disabled_rules = 'push-into-remote-scan'`);
    try {
      expect((await db.query(sql)).rows).toEqual(pushed);
    } finally {
      await db.query(`RESET quire.disabled_rules`);
    }
    return pushed;
  }

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: DSN });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`);
    await admin.query(`CREATE TABLE ${schema}.orders (id int PRIMARY KEY, customer text, amount numeric(10,2), qty int8, ratio float8, day date, at timestamptz, flag bool, doc jsonb)`);
    await admin.query(`INSERT INTO ${schema}.orders
      SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE 'c' || (i % 50) END, (i % 1000) / 10.0, i * 1000000000::int8, i / 3.0,
             date '2024-01-01' + (i % 366), timestamptz '2024-01-01 00:00:00.000001+00' + i * interval '1 second', i % 2 = 0, jsonb_build_object('i', i)
        FROM generate_series(1, 5000) i`);
    await admin.query(`CREATE VIEW ${schema}.bad AS SELECT 1 / (id - id) AS boom FROM ${schema}.orders`);
    await admin.query(`CREATE TABLE ${schema}."Mixed Case" ("Key" int, "we""ird" text)`);
    await admin.query(`INSERT INTO ${schema}."Mixed Case" VALUES (1, 'one'), (2, 'two')`);
    db = await Database.create();
    await db.query(`ATTACH '${DSN}' AS pg (TYPE postgres, FETCH_SIZE 700)`);
  });

  afterAll(async () => {
    await db?.close();
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });

  it('reads remote rows with their types', async () => {
    const r = await db.query(`SELECT * FROM pg.${schema}.orders WHERE id = 3`);
    expect(r.columns.map((c) => c.type.name)).toEqual(['int4', 'text', 'numeric', 'int8', 'float8', 'date', 'timestamptz', 'bool', 'text']);
    expect(r.rows.map((row) => row.map((v, i) => db.formatValue(v as never, r.columns[i]!.type)))).toEqual([
      ['3', 'c3', '0.30', '3000000000', '1', '2024-01-04', '2024-01-01 00:00:03.000001+00', 'f', '{"i": 3}'],
    ]);
  });

  it('streams a whole table through the cursor in FETCH_SIZE batches', async () => {
    expect(await same(`SELECT count(*), sum(id), count(customer) FROM pg.${schema}.orders`)).toEqual([[5000, 12502500, 4286]]);
  });

  it('pushes projection and filters; keeps untranslatable conjuncts local', async () => {
    const q = `SELECT id, amount FROM pg.${schema}.orders WHERE amount >= 90 AND customer = 'c5' AND (id % 3) = 0 ORDER BY id`;
    const p = await explain(q);
    expect(p).toMatch(/remote SQL: SELECT "id", "customer", "amount" FROM "quire_test_\d+"\."orders" WHERE \("amount" >= '90'::numeric\) AND \("customer" = 'c5'::text\)/);
    expect(p).toMatch(/Filter \(\(\(id % 3\) = 0\)\)/);
    const rows = await same(q);
    expect(rows.length).toBeGreaterThan(0);
    const r2 = await same(`SELECT count(*) FROM pg.${schema}.orders WHERE day BETWEEN '2024-02-01' AND '2024-02-29' AND flag AND customer IS NOT NULL AND customer IN ('c2', 'c4', 'c6')`);
    expect(r2[0]![0]).toBeGreaterThan(0);
    expect(await explain(`SELECT count(*) FROM pg.${schema}.orders WHERE at > '2024-01-01 01:00:00+00'`)).toMatch(/remote SQL: SELECT "at" FROM .* WHERE \("at" > '2024-01-01 01:00:00\+00'::timestamp with time zone\)|remote SQL: SELECT NULL FROM .* WHERE/);
  });

  it('pushes ORDER BY + LIMIT/OFFSET (Top-N) with code point order for text', async () => {
    const q = `SELECT id, customer FROM pg.${schema}.orders ORDER BY customer DESC NULLS LAST, id LIMIT 5 OFFSET 3`;
    const p = await explain(q);
    expect(p).toMatch(/ORDER BY "customer" COLLATE "C" DESC NULLS LAST, "id" ASC NULLS LAST LIMIT 5 OFFSET 3/);
    expect(p).not.toMatch(/TopN/);
    const rows = await same(q);
    expect(rows).toEqual([159, 209, 309, 359, 409].map((id) => [id, 'c9']));
  });

  it('pushes LIMIT/OFFSET without ORDER BY, and not past a local filter', async () => {
    const p = await explain(`SELECT id FROM pg.${schema}.orders WHERE id > 10 LIMIT 3`);
    expect(p).toMatch(/WHERE \("id" > 10\) LIMIT 3/);
    expect((await db.query(`SELECT id FROM pg.${schema}.orders WHERE id > 10 LIMIT 3`)).rows).toHaveLength(3);
    const local = await explain(`SELECT id FROM pg.${schema}.orders WHERE id % 2 = 0 ORDER BY id LIMIT 3`);
    expect(local).not.toMatch(/LIMIT 3\)/);
    expect(await same(`SELECT id FROM pg.${schema}.orders WHERE id % 2 = 0 ORDER BY id LIMIT 3`)).toEqual([[2], [4], [6]]);
  });

  it('resolves pg.table in schema public, quoted names, and tables created after ATTACH', async () => {
    expect((await db.query(`SELECT "Key", "we""ird" FROM pg.${schema}."Mixed Case" ORDER BY 1`)).rows).toEqual([
      [1, 'one'],
      [2, 'two'],
    ]);
    await admin.query(`CREATE TABLE public.quire_late_${process.pid} (x int); INSERT INTO public.quire_late_${process.pid} VALUES (42)`);
    try {
      expect((await db.query(`SELECT x FROM pg.quire_late_${process.pid}`)).rows).toEqual([[42]]);
    } finally {
      await admin.query(`DROP TABLE public.quire_late_${process.pid}`);
    }
    await expect(db.query(`SELECT * FROM pg.no_such_table`)).rejects.toMatchObject({ code: '42P01' });
  });

  it('joins remote and local tables', async () => {
    await db.query(`CREATE TABLE vip (customer text)`);
    await db.query(`INSERT INTO vip VALUES ('c1'), ('c2')`);
    expect(await same(`SELECT v.customer, count(*) FROM vip v JOIN pg.${schema}.orders o ON o.customer = v.customer GROUP BY 1 ORDER BY 1`)).toEqual([
      ['c1', 86],
      ['c2', 86],
    ]);
  });

  it('keeps every microsecond of timestamps far from 1970, read and pushed down', async () => {
    await admin.query(`CREATE TABLE ${schema}.far (id int, ts timestamp, tz timestamptz)`);
    await admin.query(`INSERT INTO ${schema}.far VALUES (1, '2300-01-01 00:00:00.000001', '2300-01-01 00:00:00.000001+00'),
      (2, '2300-01-01 00:00:00', '2300-01-01 00:00:00+00'), (3, '1500-06-30 23:59:59.999999', '4714-11-24 00:00:00.000001+00 BC'),
      (4, '294276-12-31 23:59:59.999999', '294276-12-31 23:59:59.999999+00')`);
    const sql = `SELECT id, ts, tz FROM pg.${schema}.far WHERE ts > '2300-01-01 00:00:00' OR tz < '0001-01-01 00:00:00+00' ORDER BY ts DESC LIMIT 3`;
    expect(await explain(sql)).toContain('2300-01-01 00:00:00');
    const rows = await same(sql);
    const r = await db.query(sql);
    expect(rows.map((row) => row.map((v, i) => db.formatValue(v as never, r.columns[i]!.type)))).toEqual([
      ['4', '294276-12-31 23:59:59.999999', '294276-12-31 23:59:59.999999+00'],
      ['1', '2300-01-01 00:00:00.000001', '2300-01-01 00:00:00.000001+00'],
      ['3', '1500-06-30 23:59:59.999999', '4714-11-24 00:00:00.000001+00 BC'],
    ]);
  });

  it('reads remote arrays as arrays; filters on them run locally', async () => {
    await admin.query(`CREATE TABLE ${schema}.arrs (id int, i int[], t text[], n numeric(5,2)[], tz timestamptz[], u uuid[])`);
    await admin.query(`INSERT INTO ${schema}.arrs VALUES (1, '{1,NULL,3}', '{"a b",NULL,""}', '{1.5}', '{"2024-01-01 10:00:00.000001+00"}', NULL),
      (2, '{}', NULL, NULL, NULL, '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}')`);
    const sql = `SELECT id, i, t, n, tz, u, i[3] AS third FROM pg.${schema}.arrs WHERE 3 = ANY(i) OR cardinality(i) = 0 ORDER BY id`;
    const r = await db.query(sql);
    expect(r.columns.map((c) => c.type.name)).toEqual(['int4', '_int4', '_text', '_numeric', '_timestamptz', 'text', 'int4']);
    expect(await same(sql)).toEqual(r.rows);
    expect(r.rows.map((row) => row.map((v, i) => db.formatValue(v as never, r.columns[i]!.type)))).toEqual([
      ['1', '{1,NULL,3}', '{"a b",NULL,""}', '{1.50}', '{"2024-01-01 10:00:00.000001+00"}', null, '3'],
      ['2', '{}', null, null, null, '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}', null],
    ]);
  });

  it('surfaces remote errors with their SQLSTATE', async () => {
    await expect(db.query(`SELECT * FROM pg.${schema}.bad`)).rejects.toMatchObject({ code: '22012', message: 'division by zero' });
    // The connection is usable afterwards (the failed transaction was rolled back).
    expect((await db.query(`SELECT count(*) FROM pg.${schema}."Mixed Case"`)).rows).toEqual([[2]]);
    const wrong = DSN!.replace(/:[^:@/]+@/, ':wrong-password@');
    await expect(db.query(`ATTACH '${wrong}' AS nope`)).rejects.toMatchObject({ code: '28P01' });
    await expect(db.query(`ATTACH 'postgres://quire@127.0.0.1:1/postgres' AS nope`)).rejects.toMatchObject({ code: '08001' });
    await expect(db.query(`ATTACH '${DSN}' AS pg`)).rejects.toMatchObject({ code: '42710' });
  });

  it('ATTACH inside a multi-statement string, and its syntax errors', async () => {
    const other = await Database.create();
    const rs = await other.execute(`SELECT 1; ATTACH '${DSN}' AS r2; SELECT count(*) FROM r2.${schema}."Mixed Case"; DETACH r2`);
    expect(rs.map((r) => r.commandTag)).toEqual(['SELECT 1', 'ATTACH', 'SELECT 1', 'DETACH']);
    expect(rs[2]!.rows).toEqual([[2]]);
    await expect(other.query(`ATTACH '${DSN}' pg`)).rejects.toMatchObject({ code: '42601' });
    await expect(other.query(`ATTACH '${DSN}' AS x (TYPE mysql)`)).rejects.toMatchObject({ code: '0A000' });
    await expect(other.query(`ATTACH 'mysql://h/db' AS x`)).rejects.toMatchObject({ code: '0A000' });
    await expect(other.query(`DETACH nothing`)).rejects.toMatchObject({ code: '42704' });
    // A string or comment that merely mentions attach is ordinary SQL.
    expect((await other.query(`SELECT 'attach' AS attach -- detach`)).rows).toEqual([['attach']]);
    await other.close();
  });

  it('DETACH removes the tables; the JavaScript API attaches too', async () => {
    const other = await Database.create();
    await other.attach('remote', DSN!);
    expect((await other.query(`SELECT count(*) FROM remote.${schema}.orders`)).rows).toEqual([[5000]]);
    await other.query(`DETACH remote`);
    await expect(other.query(`SELECT count(*) FROM remote.${schema}.orders`)).rejects.toMatchObject({ code: '42P01' });
    await other.query(`DETACH IF EXISTS remote`);
    await other.close();
  });
});
