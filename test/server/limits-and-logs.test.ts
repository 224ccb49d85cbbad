/**
 * The REST listener against hostile input, over real sockets: --max-connections (503, then service
 * again), statements too complex or too big for the process (4xx with their SQLSTATE, never 5xx),
 * and the structured log (pino JSON lines: one per 5xx with its stack, one per slow query) on both
 * ports. After each attack the server still answers `select 1`, also to a keep-alive client that
 * was connected all along.
 */
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import pg from 'pg';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import type { TableSource } from '../../src/logical/plan.js';
import { T } from '../../src/common/types.js';
import { startRestServer, type RestServerOptions, type RunningRestServer } from '../../src/server/rest/app.js';
import { startPgServer, type PgServer } from '../../src/server/pgwire/index.js';
import { httpStatusOf } from '../../src/server/rest/errors.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function rest(opts: Partial<RestServerOptions> = {}, db?: Database): Promise<RunningRestServer> {
  const d = db ?? (await Database.create());
  const s = await startRestServer({ db: d, host: '127.0.0.1', port: 0, queryTimeoutMs: 20_000, ...opts });
  servers.push(s);
  return s;
}

async function post(srv: RunningRestServer, body: unknown, path = '/_plugins/_sql'): Promise<{ status: number; json: any }> {
  const res = await fetch(`${srv.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) };
}

/** POST over a given keep-alive agent (node:http), so one TCP connection is reused across requests. */
function postVia(agent: Agent, srv: RunningRestServer, body: unknown): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${srv.url}/_plugins/_sql`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** A pino logger writing JSON lines into an array, as the CLI's logger writes them to stderr. */
function capture(): { lines: Record<string, any>[]; logger: pino.Logger } {
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l.trim() !== '') lines.push(JSON.parse(l) as Record<string, any>);
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, sink) };
}

async function openSocket(port: number): Promise<Socket> {
  const s = connect(port, '127.0.0.1');
  s.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    s.once('connect', resolve);
    s.once('error', reject);
  });
  return s;
}

/** A table whose scan hits a bug: the only way a request may end in a 500. */
function brokenTable(): TableSource & { scan(): AsyncGenerator<never> } {
  return {
    name: 'broken',
    schema: [{ name: 'x', type: T.int4 }],
    rowCount: () => 1,
    // eslint-disable-next-line require-yield
    async *scan() {
      const o: { f?: () => void } = {};
      o.f!();
    },
  } as unknown as TableSource & { scan(): AsyncGenerator<never> };
}

const waitFor = async (pred: () => boolean, ms = 3000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('REST --max-connections', () => {
  it('150 idle sockets against a limit of 100: a new client gets 503, a connected one keeps working, then service resumes', async () => {
    const srv = await rest({ maxConnections: 100 });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    expect((await postVia(agent, srv, { query: 'select 1 as x' })).json.datarows).toEqual([[1]]);
    const idle: Socket[] = [];
    for (let i = 0; i < 150; i++) idle.push(await openSocket(srv.port));
    const refused = await post(srv, { query: 'select 1' });
    expect(refused.status).toBe(503);
    expect(refused.json.error).toMatchObject({ type: 'TooManyConnectionsException', reason: 'There was internal problem at backend' });
    expect(refused.json.error.details).toMatch(/^sorry, too many clients already\. /);
    // The keep-alive connection opened before the flood is one of the 100 and is still served.
    expect((await postVia(agent, srv, { query: 'select 2 as x' })).json.datarows).toEqual([[2]]);
    for (const s of idle) s.destroy();
    await new Promise((r) => setTimeout(r, 200));
    const after = await post(srv, { query: 'select 1 as x' });
    expect(after.status).toBe(200);
    expect(after.json.datarows).toEqual([[1]]);
    agent.destroy();
  }, 30_000);

  it('closes sockets at once when slots and refusals in progress are both used up', async () => {
    const srv = await rest({ maxConnections: 2 });
    const held = [await openSocket(srv.port), await openSocket(srv.port), await openSocket(srv.port), await openSocket(srv.port)];
    const extra = await openSocket(srv.port);
    let got = 0;
    extra.on('data', (d: Buffer) => (got += d.length));
    let closed = false;
    extra.on('close', () => (closed = true));
    await waitFor(() => closed);
    expect(got).toBe(0);
    for (const s of held) s.destroy();
    await new Promise((r) => setTimeout(r, 200));
    expect((await post(srv, { query: 'select 1 as x' })).json.datarows).toEqual([[1]]);
  });
});

describe('REST errors: client input never yields a 5xx', () => {
  const big: [string, string, string][] = [
    ['a 5,000-way UNION', Array.from({ length: 5000 }, (_, i) => `select ${i}`).join(' union '), '54001'],
    ['a 10,000-branch CASE', `select case ${Array.from({ length: 10000 }, (_, i) => `when ${i} = 1 then ${i}`).join(' ')} end`, '54001'],
    ['a 100,000-item IN list', `select 1 in (${Array.from({ length: 100000 }, (_, i) => i).join(',')})`, '54001'],
    ['50,000 terms added up', `select ${Array(50000).fill('1').join('+')}`, '54001'],
    ["repeat('a', 1e9)", "select length(repeat('a', 1000000000))", '54000'],
  ];
  for (const [what, query, code] of big) {
    it(`${what}: 400 with SQLSTATE ${code}, then select 1`, async () => {
      const srv = await rest({ bodyLimit: 8 << 20 });
      const r = await post(srv, { query });
      expect(r.status).toBe(400);
      expect(r.json.error.type).toBe('ResourceLimitException');
      expect(r.json.error.sqlstate).toBe(code);
      expect((await post(srv, { query: 'select 1 as x' })).json.datarows).toEqual([[1]]);
    }, 60_000);
  }

  it('the same through the pager (fetch_size) and a whole-result SELECT that runs out of string length', async () => {
    const srv = await rest();
    const paged = await post(srv, { query: "select repeat('a', 600000000) as s from generate_series(1, 2)", fetch_size: 1 });
    expect(paged.status).toBe(400);
    expect(paged.json.error.sqlstate).toBe('54000');
    const whole = await post(srv, { query: "select repeat('a', 600000000) as s" });
    expect(whole.status).toBe(400);
    expect((await post(srv, { query: 'select 1 as x' })).json.datarows).toEqual([[1]]);
  }, 60_000);

  it('the PostgreSQL port answers the same statements with their SQLSTATE, and both sessions go on', async () => {
    const server: PgServer = await startPgServer(await Database.create(), { port: 0 });
    servers.push(server);
    const a = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'a', database: 'quire' });
    const b = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'b', database: 'quire' });
    await a.connect();
    await b.connect();
    const [union, plus, longString] = await Promise.all([
      a.query(big[0]![1]).catch((e: { code?: string }) => e.code),
      b.query(big[3]![1]).catch((e: { code?: string }) => e.code),
      b.query(big[4]![1]).catch((e: { code?: string }) => e.code),
    ]);
    expect([union, plus, longString]).toEqual(['54001', '54001', '54000']);
    expect((await a.query('select 1 as x')).rows).toEqual([{ x: 1 }]);
    expect((await b.query('select 1 as x')).rows).toEqual([{ x: 1 }]);
    await a.end();
    await b.end();
  }, 60_000);

  it('maps SQLSTATE classes to HTTP statuses as documented', () => {
    expect(httpStatusOf('54001')).toBe(400);
    expect(httpStatusOf('54000')).toBe(400);
    expect(httpStatusOf('53200')).toBe(400);
    expect(httpStatusOf('22012')).toBe(400);
    expect(httpStatusOf('42601')).toBe(400);
    expect(httpStatusOf('42P01')).toBe(404);
    expect(httpStatusOf('58P01')).toBe(404);
    expect(httpStatusOf('57014')).toBe(408);
    expect(httpStatusOf('08001')).toBe(502);
    expect(httpStatusOf('53300')).toBe(503);
    expect(httpStatusOf('53100')).toBe(503);
    expect(httpStatusOf('57P01')).toBe(503);
    expect(httpStatusOf('58030')).toBe(503);
    expect(httpStatusOf('XX000')).toBe(500);
  });
});

describe('server logs (pino JSON lines)', () => {
  it('REST: one error line with the stack per 5xx, a warn line per slow query, nothing for client errors', async () => {
    const { lines, logger } = capture();
    const db = await Database.create();
    db.catalog.addTable(brokenTable());
    const srv = await rest({ logger, logSlowMs: 50 }, db);
    const r = await post(srv, { query: 'select x from broken' });
    expect(r.status).toBe(500);
    expect(r.json.error).toMatchObject({ type: 'InternalServerError', reason: 'There was internal problem at backend', details: 'internal error; the server logged the failure' });
    expect(JSON.stringify(r.json)).not.toMatch(/at .*\.ts|TypeError/); // no stack in the answer
    await post(srv, { query: 'select nope from nowhere' }); // a client error: not logged
    await post(srv, { query: "select count(*) from generate_series(1, 300000) i where md5(i::text) like 'a%'" });
    await waitFor(() => lines.some((l) => l.msg === 'slow query'));
    const errors = lines.filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ port: 'rest', status: 500, sql: 'select x from broken', msg: 'request failed with a server error' });
    expect(errors[0]!.err.stack).toMatch(/TypeError: o\.f is not a function\n\s+at /);
    const slow = lines.filter((l) => l.msg === 'slow query');
    expect(slow).toHaveLength(1);
    expect(slow[0]).toMatchObject({ level: 40, port: 'rest' });
    expect(slow[0]!.sql).toContain('generate_series(1, 300000)');
    expect(slow[0]!.durationMs).toBeGreaterThanOrEqual(50);
    expect((await post(srv, { query: 'select 1 as x' })).json.datarows).toEqual([[1]]);
  }, 30_000);

  it('pgwire: the same lines for an internal error and a slow statement; both sessions go on', async () => {
    const { lines, logger } = capture();
    const db = await Database.create();
    db.catalog.addTable(brokenTable());
    const server: PgServer = await startPgServer(db, { port: 0, logger, logSlowMs: 50 });
    servers.push(server);
    const a = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'a', database: 'quire' });
    const b = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'b', database: 'quire' });
    await a.connect();
    await b.connect();
    await expect(a.query('select x from broken')).rejects.toMatchObject({ code: 'XX000' });
    await expect(a.query('select x from broken where x > $1', [1])).rejects.toMatchObject({ code: 'XX000' });
    await b.query("select count(*) from generate_series(1, 300000) i where md5(i::text) like 'a%'");
    await b.query({ text: "select count(*) from generate_series(1, $1::int) i where md5(i::text) like 'a%'", values: [300000] });
    await waitFor(() => lines.filter((l) => l.msg === 'slow query').length === 2);
    const errors = lines.filter((l) => l.level === 50);
    expect(errors.length).toBe(2);
    expect(errors[0]).toMatchObject({ port: 'pg', sql: 'select x from broken', msg: 'internal error' });
    expect(errors[0]!.err.stack).toMatch(/TypeError: o\.f is not a function\n\s+at /);
    const slow = lines.filter((l) => l.msg === 'slow query');
    expect(slow.map((l) => l.sql)).toEqual([
      "select count(*) from generate_series(1, 300000) i where md5(i::text) like 'a%'",
      "select count(*) from generate_series(1, $1::int) i where md5(i::text) like 'a%'",
    ]);
    expect((await a.query('select 1 as x')).rows).toEqual([{ x: 1 }]);
    expect((await b.query('select 1 as x')).rows).toEqual([{ x: 1 }]);
    await a.end();
    await b.end();
  }, 30_000);
});
