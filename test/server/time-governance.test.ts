/**
 * Time governance over real sockets: statement_timeout (SET, startup options, the startup
 * parameter), REST's query timeout, pgwire CancelRequest, the catastrophic regular expression and
 * the filesystem-wide glob, each while a second client keeps getting answers; and after each, the
 * server still answers `select 1`.
 */
import { connect } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { startRestServer, type RunningRestServer } from '../../src/server/rest/app.js';
import { startPgServer, type PgServer } from '../../src/server/pgwire/index.js';
import type { ServerLogger } from '../../src/server/logger.js';

const LONG_CTE = 'with recursive t(n) as (select 1 union all select n + 1 from t where n < 30000000) select count(*) from t';
const EVIL_REGEX = "select 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!' ~ '(a+)+$' as m";
/**
 * Generous bounds: server and clients share this process, and the suite runs files in parallel on
 * small machines. Each long query below runs (or would run, if nothing yielded or listened for the
 * cancel) well past them, so they still tell a responsive server from a stalled one.
 */
const STALL_BOUND_MS = 1000;
const REST_TIMEOUT_MS = 2500;

let db: Database;
let rest: RunningRestServer;
let pgs: PgServer;

beforeAll(async () => {
  db = await Database.create();
  rest = await startRestServer({ db, host: '127.0.0.1', port: 0, queryTimeoutMs: REST_TIMEOUT_MS });
  pgs = await startPgServer(db, { port: 0, log: () => undefined });
});

afterAll(async () => {
  await rest.close();
  await pgs.close();
});

async function sql(query: string): Promise<{ status: number; json: any; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`${rest.url}/_plugins/_sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  const json = await res.json();
  return { status: res.status, json, ms: performance.now() - t0 };
}

async function client(extra: Partial<pg.ClientConfig> = {}): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port: pgs.port, user: 'quire', database: 'quire', ...extra });
  await c.connect();
  return c;
}

async function pgError(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    const x = e as { code: string; message: string };
    return { code: x.code, message: x.message };
  }
  throw new Error('expected an error');
}

/** While `during` runs, probes `select 1` on a second pgwire connection and over REST every 20 ms. */
async function probeWhile(during: Promise<unknown>): Promise<{ pgMax: number; restMax: number; loopMax: number; probes: number }> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const other = await client();
  let done = false;
  void during.finally(() => {
    done = true;
  });
  let pgMax = 0;
  let restMax = 0;
  let probes = 0;
  try {
    while (!done) {
      let t0 = performance.now();
      expect((await other.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
      pgMax = Math.max(pgMax, performance.now() - t0);
      t0 = performance.now();
      const r = await sql('select 1');
      expect(r.status).toBe(200);
      restMax = Math.max(restMax, performance.now() - t0);
      probes++;
      await new Promise((res) => setTimeout(res, 20));
    }
  } finally {
    await other.end();
    h.disable();
  }
  return { pgMax, restMax, loopMax: h.max / 1e6, probes };
}

async function stillAnswers(): Promise<void> {
  expect((await sql('select 1')).status).toBe(200);
  const c = await client();
  expect((await c.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
  await c.end();
}

describe('REST', () => {
  it('cancels a query when its client hangs up', async () => {
    const ended: number[] = [];
    const warn = (o: { durationMs?: number }): void => {
      if (o.durationMs !== undefined) ended.push(o.durationMs);
    };
    const quiet = (): void => undefined;
    const logger: ServerLogger = { warn, error: quiet, info: quiet, debug: quiet };
    const srv = await startRestServer({ db, host: '127.0.0.1', port: 0, queryTimeoutMs: 20_000, logger, logSlowMs: 1 });
    try {
      const ac = new AbortController();
      const long = fetch(`${srv.url}/_plugins/_sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: LONG_CTE }), signal: ac.signal }).catch(() => 'aborted');
      await new Promise((r) => setTimeout(r, 300));
      ac.abort();
      expect(await long).toBe('aborted');
      // The statement ends (and logs its duration) soon after the hang-up, not at the 20 s limit.
      const t0 = performance.now();
      while (ended.length === 0 && performance.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 20));
      expect(ended.length).toBe(1);
      expect(ended[0]!).toBeLessThan(300 + STALL_BOUND_MS);
      await stillAnswers();
    } finally {
      await srv.close();
    }
  });

  it('answers the catastrophic regular expression at once', async () => {
    const r = await sql(EVIL_REGEX);
    expect(r.status).toBe(200);
    expect(r.json.datarows).toEqual([[false]]);
    expect(r.ms).toBeLessThan(2000);
    await stillAnswers();
  });

  it('stops a long recursive CTE at --query-timeout (408) while other clients keep getting answers', async () => {
    const long = sql(LONG_CTE);
    const probe = await probeWhile(long);
    const r = await long;
    expect(r.status).toBe(408);
    expect(r.json.error.type).toBe('QueryTimeoutException');
    // The statement stops within the cancellation bound after the limit.
    expect(r.ms).toBeGreaterThanOrEqual(REST_TIMEOUT_MS);
    expect(r.ms).toBeLessThan(REST_TIMEOUT_MS + STALL_BOUND_MS);
    expect(probe.probes).toBeGreaterThan(0);
    expect(probe.loopMax).toBeLessThan(STALL_BOUND_MS);
    expect(probe.pgMax).toBeLessThan(STALL_BOUND_MS);
    expect(probe.restMax).toBeLessThan(STALL_BOUND_MS);
    await stillAnswers();
  });
});

describe('pgwire', () => {
  it('SET statement_timeout: units, SHOW, enforcement with 57014, and 0 turns it off', async () => {
    const c = await client();
    try {
      await c.query("set statement_timeout = '1s'");
      expect((await c.query('show statement_timeout')).rows).toEqual([{ statement_timeout: '1s' }]);
      await c.query('set statement_timeout = 250');
      expect((await c.query('show statement_timeout')).rows).toEqual([{ statement_timeout: '250ms' }]);
      const bad = await pgError(c.query("set statement_timeout = '5 parsecs'"));
      expect(bad.code).toBe('22023');
      const t0 = performance.now();
      const e = await pgError(c.query(LONG_CTE));
      const ms = performance.now() - t0;
      expect(e).toEqual({ code: '57014', message: 'canceling statement due to statement timeout' });
      expect(ms).toBeLessThan(250 + 1000);
      await c.query('set statement_timeout = 0');
      expect((await c.query('select count(*)::int as n from generate_series(1, 1000)')).rows).toEqual([{ n: 1000 }]);
    } finally {
      await c.end();
    }
    await stillAnswers();
  });

  it('statement_timeout counts per statement: FETCHes from a cursor each get the whole limit', async () => {
    const c = await client({ options: '-c statement_timeout=300' });
    try {
      await c.query('begin');
      await c.query('declare cur cursor for select i from generate_series(1, 100000) i');
      for (let k = 0; k < 3; k++) {
        await new Promise((r) => setTimeout(r, 200));
        expect((await c.query('fetch 3000 from cur')).rows.length).toBe(3000);
      }
      await c.query('commit');
    } finally {
      await c.end();
    }
    await stillAnswers();
  });

  it('takes statement_timeout from the startup packet: options=-c and the parameter itself', async () => {
    for (const extra of [{ options: '-c statement_timeout=300' }, { statement_timeout: 300 }] as Partial<pg.ClientConfig>[]) {
      const c = await client(extra);
      try {
        expect((await c.query('show statement_timeout')).rows).toEqual([{ statement_timeout: '300ms' }]);
        const t0 = performance.now();
        const e = await pgError(c.query(LONG_CTE));
        expect(e.code).toBe('57014');
        expect(e.message).toBe('canceling statement due to statement timeout');
        expect(performance.now() - t0).toBeLessThan(300 + 1000);
      } finally {
        await c.end();
      }
    }
    await stillAnswers();
  });

  it('CancelRequest on a raw socket stops a long recursive CTE within the bound; a second client is served meanwhile', async () => {
    const c = await client();
    try {
      const { processID, secretKey } = c as unknown as { processID: number; secretKey: number };
      const running = pgError(c.query(LONG_CTE));
      const probing = probeWhile(running);
      await new Promise((r) => setTimeout(r, 300));
      const sent = performance.now();
      await new Promise<void>((resolve, reject) => {
        const s = connect(pgs.port, '127.0.0.1', () => {
          const b = Buffer.alloc(16);
          b.writeInt32BE(16, 0);
          b.writeInt32BE(80877102, 4);
          b.writeInt32BE(processID, 8);
          b.writeInt32BE(secretKey, 12);
          s.end(b);
        });
        s.on('close', () => resolve());
        s.on('error', reject);
      });
      const e = await running;
      const after = performance.now() - sent;
      expect(e).toEqual({ code: '57014', message: 'canceling statement due to user request' });
      expect(after).toBeLessThan(STALL_BOUND_MS);
      const p = await probing;
      expect(p.loopMax).toBeLessThan(STALL_BOUND_MS);
      // The cancelled connection itself goes on.
      expect((await c.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await c.end();
    }
    await stillAnswers();
  });

  it('a hostile client: a wrong-key CancelRequest cancels nothing, the catastrophic regex answers false', async () => {
    const c = await client({ options: '-c statement_timeout=2000' });
    try {
      const { processID, secretKey } = c as unknown as { processID: number; secretKey: number };
      const running = c.query('select count(*)::int as n from generate_series(1, 3000000)');
      await new Promise<void>((resolve) => {
        const s = connect(pgs.port, '127.0.0.1', () => {
          const b = Buffer.alloc(16);
          b.writeInt32BE(16, 0);
          b.writeInt32BE(80877102, 4);
          b.writeInt32BE(processID, 8);
          b.writeInt32BE((secretKey + 1) | 0, 12);
          s.end(b);
        });
        s.on('close', () => resolve());
        s.on('error', () => resolve());
      });
      expect((await running).rows).toEqual([{ n: 3000000 }]);
      const t0 = performance.now();
      expect((await c.query(EVIL_REGEX)).rows).toEqual([{ m: false }]);
      expect(performance.now() - t0).toBeLessThan(2000);
    } finally {
      await c.end();
    }
    await stillAnswers();
  });

  it('a filesystem-wide glob walk is asynchronous: stopped by statement_timeout, other clients served', async () => {
    const c = await client({ options: '-c statement_timeout=300' });
    try {
      const walking = pgError(c.query("select * from read_csv('/**/quire-no-such-file-x.csv')"));
      const p = await probeWhile(walking);
      const e = await walking;
      // A small filesystem may be walked completely (no match) or hit the walk bound first.
      expect(['57014', '58P01', '54000']).toContain(e.code);
      expect(p.loopMax).toBeLessThan(STALL_BOUND_MS);
    } finally {
      await c.end();
    }
    await stillAnswers();
  });
});
