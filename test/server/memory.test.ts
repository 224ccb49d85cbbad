/**
 * Memory bounds over real sockets: `quire serve --memory-limit 64MB` in a child process with a 256MB V8
 * heap (a request that escapes the bounds kills it, and every later assertion fails). REST without
 * fetch_size stops at --max-result-size with a 400; a pgwire client's count(DISTINCT …) over 4M rows
 * gets 53200 while a second session keeps answering; hostile clients that hang up mid-query leave
 * the server answering `select 1`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUIRE_CLI } from '../harness/compiled.js';

const HUGE = 'select repeat(i::text, 10000) from generate_series(1, 1000000) i';
const DISTINCT_4M = 'select count(distinct repeat(i::text, 2000)) from generate_series(1, 4000000) i';

let child: ChildProcess;
let url = '';
let pgPort = 0;

async function post(query: string, extra: Record<string, unknown> = {}, format = ''): Promise<{ status: number; body: Record<string, unknown>; ms: number }> {
  const t0 = performance.now();
  const r = await fetch(`${url}/_plugins/_sql${format ? `?format=${format}` : ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, ...extra }),
  });
  const text = await r.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { status: r.status, body, ms: performance.now() - t0 };
}

async function expectAlive(): Promise<void> {
  const r = await post('select 1 as one');
  expect(r.status).toBe(200);
  expect(r.body.datarows).toEqual([[1]]);
  const c = new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'u', database: 'quire' });
  await c.connect();
  try {
    expect((await c.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  child = spawn(process.execPath, ['--max-old-space-size=256', QUIRE_CLI, 'serve', '--port', '0', '--pg-port', '0', '--memory-limit', '64MB', '--size-limit', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listener lines: ${stderr}`)), 30_000);
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const rest = /REST \(OpenSearch SQL\) listening on (http:\/\/[^/\s]+)/.exec(stderr);
      const pgm = /PostgreSQL protocol listening on 127\.0\.0\.1:(\d+)/.exec(stderr);
      if (rest && pgm) {
        clearTimeout(timer);
        url = rest[1]!;
        pgPort = Number(pgm[1]);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
}, 60_000);

afterAll(async () => {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
});

describe('quire serve --memory-limit 64MB (heap 256MB)', () => {
  it('REST without fetch_size stops a huge result at the response cap with 400, in every format', async () => {
    for (const format of ['', 'json', 'csv', 'raw']) {
      const r = await post(HUGE, {}, format);
      expect(r.status).toBe(400);
      const err = r.body.error as { reason: string; details: string };
      expect(err.reason).toBe('Invalid Query');
      expect(err.details).toMatch(/^result too large: more than 64MB without paging/);
      expect(err.details).toContain('fetch_size');
      expect(r.ms).toBeLessThan(15_000);
    }
    await expectAlive();
  }, 120_000);

  it('REST pages wide rows with fetch_size, and answers results below the cap whole', async () => {
    const paged = await post('select repeat(i::text, 10000) from generate_series(1, 2000) i', { fetch_size: 5 });
    expect(paged.status).toBe(200);
    const lengths = (paged.body.datarows as string[][]).map((r) => r[0]!.length);
    expect(lengths).toHaveLength(5);
    for (const n of lengths) expect(n % 10000).toBe(0);
    expect(typeof paged.body.cursor).toBe('string');
    const whole = await post("select repeat('x', 1000) as s from generate_series(1, 5000) i");
    expect(whole.status).toBe(200);
    expect((whole.body.datarows as unknown[]).length).toBe(5000);
    await expectAlive();
  }, 60_000);

  it('REST count(DISTINCT …) over 4M rows answers 400 with 53200 naming the operator and the limit', async () => {
    const r = await post(DISTINCT_4M);
    // Over the memory budget is the request's doing: a 4xx (ResourceLimitException), never a 5xx.
    expect(r.status).toBe(400);
    const err = r.body.error as { reason: string; details: string; sqlstate: string };
    expect(err.reason).toBe('Invalid Query');
    expect(err.details).toMatch(/^out of memory\. /);
    expect(err.sqlstate).toBe('53200');
    expect(err.details).toContain('in HashAggregate');
    expect(err.details).toContain('memory_limit is 64MB');
    await expectAlive();
  }, 60_000);

  it('two REST sessions: select 1 answers while the other runs out of its bound', async () => {
    const big = post(HUGE);
    const small = await post('select 1 as one');
    expect(small.status).toBe(200);
    expect((await big).status).toBe(400);
    await expectAlive();
  }, 60_000);

  it('a hostile REST client that sends the huge query and hangs up does not hurt the server', async () => {
    const body = JSON.stringify({ query: HUGE });
    const { hostname, port } = new URL(url);
    for (let i = 0; i < 3; i++) {
      await new Promise<void>((resolve, reject) => {
        const s = connect(Number(port), hostname, () => {
          s.write(`POST /_plugins/_sql HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
          setTimeout(() => {
            s.destroy();
            resolve();
          }, 50);
        });
        s.on('error', reject);
      });
    }
    await expectAlive();
  }, 60_000);

  it('pgwire: count(DISTINCT …) gets 53200 while a second session keeps working', async () => {
    const a = new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'a', database: 'quire' });
    const b = new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'b', database: 'quire' });
    await a.connect();
    await b.connect();
    try {
      const failing = a.query(DISTINCT_4M).then(
        () => null,
        (e: { code?: string; message?: string; detail?: string }) => e,
      );
      const answers: number[] = [];
      for (let i = 0; i < 3; i++) answers.push((await b.query('select $1::int as n', [i])).rows[0].n as number);
      expect(answers).toEqual([0, 1, 2]);
      const e = await failing;
      expect(e?.code).toBe('53200');
      expect(e?.message).toBe('out of memory');
      expect(e?.detail).toContain('memory_limit is 64MB');
      // The failed session itself goes on.
      expect((await a.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
      // Streaming operators are not bounded by the limit: over 200MB of text flows through count(*).
      const r = await b.query('select count(*)::int as n, max(length(s))::int as m from (select repeat(i::text, 1000) s from generate_series(1, 50000) i) t');
      expect(r.rows).toEqual([{ n: 50000, m: 5000 }]);
    } finally {
      await a.end();
      await b.end();
    }
    await expectAlive();
  }, 60_000);

  it('pgwire: a raw client that sends the query and hangs up leaves the server answering', async () => {
    const startup = (): Buffer => {
      const params = Buffer.from('user\0raw\0database\0quire\0\0');
      const m = Buffer.alloc(8 + params.length);
      m.writeInt32BE(8 + params.length, 0);
      m.writeInt32BE(196608, 4);
      params.copy(m, 8);
      return m;
    };
    const query = (sql: string): Buffer => {
      const text = Buffer.from(sql + '\0');
      const m = Buffer.alloc(5 + text.length);
      m.write('Q', 0);
      m.writeInt32BE(4 + text.length, 1);
      text.copy(m, 5);
      return m;
    };
    await new Promise<void>((resolve, reject) => {
      const s = connect(pgPort, '127.0.0.1', () => {
        s.write(Buffer.concat([startup(), query(DISTINCT_4M)]));
        setTimeout(() => {
          s.destroy();
          resolve();
        }, 100);
      });
      s.on('error', reject);
    });
    await expectAlive();
  }, 60_000);
});
