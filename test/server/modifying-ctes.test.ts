/**
 * Data-modifying WITH queries and EXPLAIN of DML over both servers: a server that grants writes runs
 * them on the PostgreSQL port (simple and extended protocol, PREPARE/EXECUTE) and over REST; a
 * read-only one refuses them with 25006 on every path and still lets EXPLAIN plan DML.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { Database } from '../../src/index.js';
import { serve, type RunningServers } from '../../src/server/index.js';

const KEY = 'modifying-ctes-key-01';
let db: Database;
let ro: RunningServers;
let rw: RunningServers;

async function client(srv: RunningServers): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port: srv.pg!.port, user: 'u', database: 'quire', password: KEY });
  await c.connect();
  return c;
}

async function rest(srv: RunningServers, query: string, extra: Record<string, unknown> = {}): Promise<{ status: number; json: { datarows?: unknown[][]; error?: { sqlstate?: string } } }> {
  const res = await fetch(`${srv.rest!.url}/_plugins/_sql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `ApiKey ${KEY}` },
    body: JSON.stringify({ query, ...extra }),
  });
  return { status: res.status, json: (await res.json()) as { datarows?: unknown[][]; error?: { sqlstate?: string } } };
}

const count = async (): Promise<number> => Number((await db.query('SELECT count(*) FROM m')).rows[0]![0]);

beforeAll(async () => {
  db = await Database.create();
  await db.query('CREATE TABLE m (k int PRIMARY KEY, v int); INSERT INTO m VALUES (1, 10), (2, 20)');
  ro = await serve({ db, rest: { port: 0, apiKey: KEY }, pg: { port: 0, password: KEY } });
  rw = await serve({ db, rest: { port: 0, apiKey: KEY, allowWrites: true }, pg: { port: 0, password: KEY, allowWrites: true } });
});

afterAll(async () => {
  await Promise.all([ro?.close(), rw?.close()]);
});

describe('data-modifying WITH over the servers', () => {
  it('runs once per statement on the PostgreSQL port, simple and extended', async () => {
    const c = await client(rw);
    try {
      const simple = await c.query('WITH x AS (INSERT INTO m VALUES (3, 30) RETURNING *) SELECT k, v, (SELECT count(*)::int FROM m) AS before FROM x');
      expect(simple.rows).toEqual([{ k: 3, v: 30, before: 2 }]);
      const ext = await c.query('WITH x AS (UPDATE m SET v = v + $1 WHERE k < $2 RETURNING k, v) SELECT k, v FROM x ORDER BY k', [1, 3]);
      expect(ext.rows).toEqual([{ k: 1, v: 11 }, { k: 2, v: 21 }]);
      const named = { name: 'del', text: 'WITH x AS (DELETE FROM m WHERE k = $1 RETURNING k) SELECT count(*)::int AS n FROM x' };
      expect((await c.query({ ...named, values: [3] })).rows).toEqual([{ n: 1 }]);
      expect((await c.query({ ...named, values: [3] })).rows).toEqual([{ n: 0 }]);
      await c.query('PREPARE ins AS WITH x AS (INSERT INTO m VALUES ($1, 0) RETURNING k) SELECT k FROM x');
      expect((await c.query('EXECUTE ins(7)')).rows).toEqual([{ k: 7 }]);
      await expect(c.query('EXECUTE ins(7)')).rejects.toMatchObject({ code: '23505' });
      const plan = (await c.query('EXPLAIN (FORMAT QUIRE) UPDATE m SET v = 0 WHERE k IN (SELECT 1)')).rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']);
      expect(plan[0]).toBe('Update on m');
    } finally {
      await c.end();
    }
    expect(await count()).toBe(3);
  });

  it('runs over REST as a statement', async () => {
    const r = await rest(rw, 'WITH x AS (DELETE FROM m WHERE k = 7 RETURNING k, v) SELECT k, v FROM x');
    expect(r.status).toBe(200);
    expect(r.json.datarows).toEqual([[7, 0]]);
    expect(await count()).toBe(2);
  });

  it('is refused with 25006 by a read-only server on every path; plain EXPLAIN of DML is allowed', async () => {
    const c = await client(ro);
    try {
      const cte = 'WITH x AS (DELETE FROM m RETURNING k) SELECT k FROM x';
      for (const s of [cte, `EXPLAIN (FORMAT QUIRE, ANALYZE) ${cte}`, 'EXPLAIN (FORMAT QUIRE, ANALYZE) DELETE FROM m', `PREPARE p AS ${cte}`]) {
        await expect(c.query(s), s).rejects.toMatchObject({ code: '25006' });
      }
      await expect(c.query('WITH x AS (DELETE FROM m WHERE k > $1 RETURNING k) SELECT k FROM x', [0])).rejects.toMatchObject({ code: '25006' });
      const plan = (await c.query('EXPLAIN (FORMAT QUIRE) DELETE FROM m WHERE k > 1')).rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']);
      expect(plan[0]).toBe('Delete on m');
    } finally {
      await c.end();
    }
    const r = await rest(ro, 'WITH x AS (UPDATE m SET v = 0 RETURNING k) SELECT k FROM x');
    expect(r.status).toBe(403);
    expect(r.json.error?.sqlstate).toBe('25006');
    expect(await count()).toBe(2);
    expect((await db.query('SELECT v FROM m ORDER BY k')).rows).toEqual([[11], [21]]);
  });
});
