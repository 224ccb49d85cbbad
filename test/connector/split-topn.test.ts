/**
 * Local/Global Top-N over a PostgreSQL table (SET quire.connector_partitions): the scan splits into
 * ctid page ranges, each sending its own ORDER BY … LIMIT offset+count, read concurrently in one
 * exported snapshot, merged by FinalTopN. Results must equal the unsplit scan, PostgreSQL's own answer
 * and the query with pushdown off; no connection may stay open afterwards, even after an error.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

const DSN = process.env.QUIRE_TEST_PG_DSN;

describe.skipIf(DSN === undefined)('split Top-N over ATTACHed PostgreSQL', () => {
  let db: Database;
  let admin: pg.Client;
  const schema = `quire_split_${process.pid}`;
  const T = `pg.${schema}.items`;

  const explain = async (sql: string): Promise<string> => (await db.query(`EXPLAIN (FORMAT QUIRE) ${sql}`)).rows.map((r) => r[0]).join('\n');
  const remoteSessions = async (): Promise<number> =>
    // Only sessions on this file's tables: other test files use the same server at the same time (some
    // hold transaction blocks open on purpose).
    Number((await admin.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle' AND query LIKE '%${schema}.%'`)).rows[0].n);

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: DSN });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`);
    // Duplicates and NULLs in the sort keys; ~20k rows over a few hundred pages.
    await admin.query(`CREATE TABLE ${schema}.items (id int, g int, v float8, name text)`);
    await admin.query(`INSERT INTO ${schema}.items
      SELECT i, i % 97, CASE WHEN i % 13 = 0 THEN NULL ELSE ((i * 7919) % 1009) / 10.0 END, 'n' || (i % 311) FROM generate_series(1, 20000) i`);
    await admin.query(`ANALYZE ${schema}.items`);
    db = await Database.create();
    await db.query(`ATTACH '${DSN}' AS pg (TYPE postgres, FETCH_SIZE 500)`);
  });

  afterAll(async () => {
    await db?.close();
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });

  const queries = [
    `SELECT id, g, v FROM ${T} ORDER BY v DESC NULLS LAST, id LIMIT 25`,
    `SELECT id, g, v FROM ${T} ORDER BY v NULLS FIRST, id LIMIT 10 OFFSET 990`,
    `SELECT id, name FROM ${T} WHERE g < 40 ORDER BY name, id DESC LIMIT 15 OFFSET 7`,
    `SELECT id, g FROM ${T} ORDER BY g, id LIMIT 3000`,
  ];

  it('equals the unsplit scan, PostgreSQL and no pushdown', async () => {
    for (const sql of queries) {
      const want = (await admin.query({ text: sql.replace(`pg.${schema}.items`, `${schema}.items`).replace(/ORDER BY name/, 'ORDER BY name COLLATE "C"'), rowMode: 'array' })).rows;
      const unsplit = (await db.query(sql)).rows;
      await db.query(`SET quire.connector_partitions = 4`);
      try {
        const plan = await explain(sql);
        expect(plan).toMatch(/^FinalTopN .*partitions: 4\)/);
        expect(plan.match(/PartialTopN/g)).toHaveLength(4);
        expect(plan.match(/PartitionScan .*remote SQL: SELECT .* LIMIT \d+\)/g)).toHaveLength(4);
        const split = (await db.query(sql)).rows;
        expect(split).toEqual(unsplit);
        await db.query(`SET quire.disabled_rules = 'push-into-remote-scan'`);
        expect((await db.query(sql)).rows).toEqual(split);
        await db.query(`RESET quire.disabled_rules`);
      } finally {
        await db.query(`RESET quire.connector_partitions`);
      }
      expect(unsplit.map((r) => r.map((x) => (x === null ? null : Number.isFinite(Number(x)) && typeof x !== 'string' ? Number(x) : x)))).toEqual(
        want.map((r: unknown[]) => r.map((x) => (x === null ? null : typeof x === 'string' && /^-?\d+(\.\d+)?$/.test(x) && !sql.includes('name') ? Number(x) : x))),
      );
    }
    expect(await remoteSessions()).toBe(0);
  });

  it('WITH TIES and small tables stay unsplit; each partition pushes its own local limit', async () => {
    await db.query(`SET quire.connector_partitions = 3`);
    try {
      const ties = await explain(`SELECT id FROM ${T} ORDER BY g FETCH FIRST 5 ROWS WITH TIES`);
      expect(ties).not.toMatch(/PartitionScan|per partition/);
      const plan = await explain(`SELECT id, v FROM ${T} ORDER BY v LIMIT 10 OFFSET 5`);
      expect(plan).toMatch(/ORDER BY "v" ASC NULLS LAST LIMIT 15/);
      expect(plan).toMatch(/ctid < '\(\d+,0\)'::tid/);
    } finally {
      await db.query(`RESET quire.connector_partitions`);
    }
  });

  it('a partition sees the same snapshot as the others under concurrent updates', async () => {
    await db.query(`SET quire.connector_partitions = 4`);
    try {
      // Every UPDATE moves rows to new pages (a new ctid range); a scan that mixed snapshots would
      // see a moved row twice or not at all, changing the count of the top 3000.
      const writer = (async () => {
        for (let k = 0; k < 5; k++) await admin.query(`UPDATE ${schema}.items SET name = name WHERE id % 5 = ${k}`);
      })();
      for (let k = 0; k < 5; k++) {
        const r = await db.query(`SELECT id FROM ${T} ORDER BY id LIMIT 20000`);
        expect(r.rows.length).toBe(20000);
        expect(new Set(r.rows.map((x) => x[0])).size).toBe(20000);
      }
      await writer;
    } finally {
      await db.query(`RESET quire.connector_partitions`);
    }
  });

  it('a remote error in one partition surfaces with its SQLSTATE and leaves no session open', async () => {
    await db.query(`SET quire.connector_partitions = 4`);
    try {
      await expect(db.query(`SELECT id FROM ${T} WHERE 1 / (g - g) = 1 ORDER BY id LIMIT 5`)).rejects.toMatchObject({ code: '22012' });
    } finally {
      await db.query(`RESET quire.connector_partitions`);
    }
    await new Promise((r) => setTimeout(r, 200));
    expect(await remoteSessions()).toBe(0);
  });
});
