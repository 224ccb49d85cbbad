/**
 * The OpenSearch-SQL REST endpoint: the seed's calcs example (fetch_size 5 → 17 rows in 4 pages),
 * close, explain, formats, OpenSearch-shaped errors, limits, API keys, malformed HTTP/JSON fuzz and
 * concurrent clients. Servers listen on 127.0.0.1 port 0 and are closed after each group.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { loadDemo } from '../../src/demo/index.js';
import { startRestServer, type RunningRestServer } from '../../src/server/rest/app.js';

let db: Database;
let server: RunningRestServer;

async function post(path: string, body: unknown, opts: { raw?: string; headers?: Record<string, string>; srv?: RunningRestServer } = {}): Promise<{ status: number; json: any; text: string }> {
  const res = await fetch(`${(opts.srv ?? server).url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(opts.headers ?? {}) },
    body: opts.raw ?? JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // csv / raw
  }
  return { status: res.status, json, text };
}

beforeAll(async () => {
  db = await Database.create();
  await loadDemo(db);
  server = await startRestServer({ db, host: '127.0.0.1', port: 0, maxFetchSize: 1000, queryTimeoutMs: 2000, sizeLimit: 0 });
});

afterAll(async () => {
  await server.close();
});

describe('OpenSearch SQL protocol', () => {
  it('returns arrays as JSON arrays typed by their elements, and pages by them', async () => {
    const r = await post('/_plugins/_sql', { query: "select array[1, null, 3] as a, array[1.5]::numeric[] as n, array['x', null] as t, array[date '2024-02-29'] as d" });
    expect(r.status).toBe(200);
    expect(r.json.schema).toEqual([
      { name: 'array[1, null, 3]', alias: 'a', type: 'integer' },
      { name: 'array[1.5]::numeric[]', alias: 'n', type: 'double' },
      { name: "array['x', null]", alias: 't', type: 'keyword' },
      { name: "array[date '2024-02-29']", alias: 'd', type: 'date' },
    ]);
    expect(r.json.datarows).toEqual([[[1, null, 3], [1.5], ['x', null], ['2024-02-29']]]);
    const csv = await post('/_plugins/_sql?format=csv', { query: "select array['x,y', 'z'] as a" });
    expect(csv.text.trim()).toBe('a\n"{""x,y"",z}"');
    const rows: unknown[] = [];
    let page = await post('/_plugins/_sql', { query: 'select array[i % 3, i] as k from generate_series(1, 7) i order by k', fetch_size: 3 });
    for (;;) {
      rows.push(...page.json.datarows.map((x: unknown[]) => x[0]));
      if (!page.json.cursor) break;
      page = await post('/_plugins/_sql', { cursor: page.json.cursor });
    }
    expect(rows).toEqual([[0, 3], [0, 6], [1, 1], [1, 4], [1, 7], [2, 2], [2, 5]]);
  });

  it('pages SELECT * FROM calcs with fetch_size 5: 17 rows in 4 pages, no cursor on the last', async () => {
    const whole = await post('/_plugins/_sql', { query: 'SELECT * from calcs' });
    expect(whole.status).toBe(200);
    expect(whole.json.total).toBe(17);
    expect(whole.json.cursor).toBeUndefined();
    const schema = whole.json.schema as { name: string; type: string }[];
    expect(schema.length).toBe(27);
    expect(schema.slice(0, 3)).toEqual([
      { name: 'bool3', type: 'boolean' },
      { name: 'int0', type: 'integer' },
      { name: 'time1', type: 'timestamp' },
    ]);
    expect(schema.find((c) => c.name === 'str0')!.type).toBe('keyword');
    expect(schema.find((c) => c.name === 'num0')!.type).toBe('double');

    let r = await post('/_plugins/_sql', { query: 'SELECT * from calcs', fetch_size: 5 });
    const sizes: number[] = [];
    const rows: unknown[][] = [];
    for (;;) {
      expect(r.status).toBe(200);
      expect(r.json.schema).toEqual(schema);
      expect(r.json.size).toBe(r.json.datarows.length);
      expect(r.json.total).toBe(r.json.datarows.length);
      expect(r.json.status).toBe(200);
      sizes.push(r.json.size);
      rows.push(...r.json.datarows);
      if (r.json.cursor === undefined) break;
      expect(typeof r.json.cursor).toBe('string');
      r = await post('/_plugins/_sql', { cursor: r.json.cursor });
    }
    expect(sizes).toEqual([5, 5, 5, 2]);
    const canon = (x: unknown[][]): string[] => x.map((row) => JSON.stringify(row)).sort();
    expect(canon(rows)).toEqual(canon(whole.json.datarows));
    // The seed's first row, with OpenSearch's value formats.
    const key00 = rows.find((row) => row[17] === 'key00')!;
    expect(key00.slice(0, 9)).toEqual([true, 1, '1970-01-01 19:36:22', false, 5, -3, 'e', 8, 'CLAMP ON LAMPS']);
  });

  it('fetch_size larger than the result: one page, no cursor', async () => {
    const r = await post('/_plugins/_sql', { query: 'SELECT * FROM calcs', fetch_size: 30 });
    expect(r.json.size).toBe(17);
    expect(r.json.cursor).toBeUndefined();
  });

  it('LIMIT/OFFSET inside the query compose with fetch_size (sql-jdbc#62)', async () => {
    let r = await post('/_plugins/_sql', { query: 'SELECT key FROM calcs ORDER BY key LIMIT 5 OFFSET 5', fetch_size: 2 });
    const keys: string[] = [];
    for (;;) {
      keys.push(...r.json.datarows.map((x: string[]) => x[0]));
      if (!r.json.cursor) break;
      r = await post('/_plugins/_sql', { cursor: r.json.cursor });
    }
    expect(keys).toEqual(['key05', 'key06', 'key07', 'key08', 'key09']);
  });

  it('parameters, GROUP BY and joins page too', async () => {
    const q = { query: 'SELECT str0, count(*) AS n FROM calcs WHERE int3 > ? GROUP BY str0 ORDER BY n DESC', parameters: [{ type: 'integer', value: 2 }], fetch_size: 1 };
    let r = await post('/_plugins/_sql', q);
    const got: unknown[] = [];
    for (;;) {
      expect(r.status).toBe(200);
      got.push(...r.json.datarows);
      if (!r.json.cursor) break;
      r = await post('/_plugins/_sql', { cursor: r.json.cursor });
    }
    const whole = await post('/_plugins/_sql', { query: q.query, parameters: q.parameters });
    expect(got.length).toBe(whole.json.datarows.length);
  });

  it('close returns succeeded, also for finished cursors; tampered ones are a 400', async () => {
    const r = await post('/_plugins/_sql', { query: 'SELECT * FROM calcs', fetch_size: 5 });
    expect(await post('/_plugins/_sql/close', { cursor: r.json.cursor })).toMatchObject({ status: 200, json: { succeeded: true } });
    expect((await post('/_plugins/_sql/close', { cursor: r.json.cursor })).json).toEqual({ succeeded: true });
    const bad = await post('/_plugins/_sql/close', { cursor: r.json.cursor.slice(0, -3) + 'AAA' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.type).toBe('CursorInvalidException');
    const bad2 = await post('/_plugins/_sql', { cursor: 'n:1f8b08000000000000ffed9b5b73aa3a1886ff4e3b75' });
    expect(bad2.status).toBe(400);
    expect(bad2.json).toMatchObject({ status: 400, error: { type: 'CursorInvalidException' } });
  });

  it('explain shows the paged plan', async () => {
    const r = await post('/_plugins/_sql/_explain', { query: 'SELECT * FROM calcs ORDER BY num0', fetch_size: 5 });
    expect(r.status).toBe(200);
    expect(r.json.root.name).toBeTypeOf('string');
    expect(JSON.stringify(r.json.plan)).toMatch(/TopN/);
  });

  it('formats: csv (sanitized), raw, json', async () => {
    const csv = await post('/_plugins/_sql?format=csv', { query: "SELECT key, str2, '=1+1' AS f FROM calcs ORDER BY key LIMIT 2" });
    expect(csv.status).toBe(200);
    expect(csv.text.split('\n')).toEqual(['key,str2,f', "key00,one,'=1+1", "key01,two,'=1+1"]);
    const raw = await post('/_plugins/_sql?format=raw', { query: 'SELECT key, int0 FROM calcs ORDER BY key LIMIT 2' });
    expect(raw.text.split('\n')).toEqual(['key|int0', 'key00|1', 'key01|']);
    const json = await post('/_plugins/_sql?format=json', { query: 'SELECT key, int0 FROM calcs ORDER BY key', fetch_size: 2 });
    expect(json.json.hits.hits.map((h: { _source: unknown }) => h._source)).toEqual([{ key: 'key00', int0: 1 }, { key: 'key01', int0: null }]);
    expect(json.json.cursor).toBeTypeOf('string');
    const csvPaged = await post('/_plugins/_sql?format=csv', { query: 'SELECT 1', fetch_size: 2 });
    expect(csvPaged.status).toBe(400);
    expect((await post('/_plugins/_sql?format=xml', { query: 'SELECT 1' })).status).toBe(400);
  });

  it('OpenSearch-shaped errors, never a 500 for client mistakes', async () => {
    const cases: [unknown, number, string][] = [
      [{ query: 'SELEC 1' }, 400, 'SyntaxCheckException'],
      [{ query: 'SELECT nope FROM calcs' }, 400, 'SemanticCheckException'],
      [{ query: 'SELECT * FROM missing' }, 404, 'IndexNotFoundException'],
      [{ query: 'SELECT 1', fetch_size: -1 }, 400, 'IllegalArgumentException'],
      [{ query: 'SELECT 1', fetch_size: 1.5 }, 400, 'IllegalArgumentException'],
      [{ query: 'SELECT 1', fetch_size: '5' }, 400, 'IllegalArgumentException'],
      [{ query: 'SELECT 1', fetch_size: 1001 }, 400, 'IllegalArgumentException'],
      [{ query: 'SELECT 1', filter: {} }, 400, 'IllegalArgumentException'],
      [{ query: 'SELECT 1', cursor: 'x' }, 400, 'IllegalArgumentException'],
      [{}, 400, 'IllegalArgumentException'],
      [[1, 2], 400, 'IllegalArgumentException'],
      [{ query: 42 }, 400, 'IllegalArgumentException'],
      [{ query: 'DROP TABLE calcs' }, 403, 'SecurityException'],
      [{ query: 'SELECT random() FROM calcs', fetch_size: 2 }, 400, 'PaginationUnsupportedException'],
      [{ query: 'SELECT 1', keep_alive: 'forever' }, 400, 'IllegalArgumentException'],
    ];
    for (const [body, status, type] of cases) {
      const r = await post('/_plugins/_sql', body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.json, JSON.stringify(body)).toMatchObject({ status, error: { type } });
      expect(typeof r.json.error.reason).toBe('string');
    }
    const badJson = await post('/_plugins/_sql', null, { raw: '{"query": ' });
    expect(badJson).toMatchObject({ status: 400, json: { error: { type: 'JsonParseException' } } });
    const notFound = await post('/nope', {});
    expect(notFound.status).toBe(404);
    expect(notFound.json.error.type).toBe('NotFoundException');
    // Still answering after all that.
    expect((await post('/_plugins/_sql', { query: 'SELECT 1 AS x' })).json.datarows).toEqual([[1]]);
  });

  it('refuses bodies that are not JSON with 415 (curl needs -H "Content-Type: application/json")', async () => {
    const res = await fetch(`${server.url}/_plugins/_sql`, { method: 'POST', body: '{"query": "SELECT 2 AS y"}', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe('UnsupportedMediaTypeException');
    expect((await post('/_plugins/_sql', { query: 'SELECT 2 AS y' })).json.datarows).toEqual([[2]]);
  });
});

describe('limits and auth', () => {
  let strict: RunningRestServer;
  beforeAll(async () => {
    strict = await startRestServer({ db, host: '127.0.0.1', port: 0, apiKey: 'sekrit-key', bodyLimit: 2048, queryTimeoutMs: 50 });
  });
  afterAll(async () => {
    await strict.close();
  });

  it('requires the API key', async () => {
    const no = await post('/_plugins/_sql', { query: 'SELECT 1' }, { srv: strict });
    expect(no.status).toBe(401);
    expect(no.json.error.type).toBe('SecurityException');
    const wrong = await post('/_plugins/_sql', { query: 'SELECT 1' }, { srv: strict, headers: { authorization: 'ApiKey nope' } });
    expect(wrong.status).toBe(401);
    const ok = await post('/_plugins/_sql', { query: 'SELECT 1' }, { srv: strict, headers: { authorization: 'ApiKey sekrit-key' } });
    expect(ok.status).toBe(200);
    const ok2 = await post('/_plugins/_sql', { query: 'SELECT 1' }, { srv: strict, headers: { 'x-api-key': 'sekrit-key' } });
    expect(ok2.status).toBe(200);
  });

  it('rejects large bodies with 413 and slow queries with 408', async () => {
    const h = { authorization: 'ApiKey sekrit-key' };
    const big = await post('/_plugins/_sql', { query: `SELECT '${'x'.repeat(5000)}'` }, { srv: strict, headers: h });
    expect(big.status).toBe(413);
    expect(big.json.error.type).toBe('RequestTooLargeException');
    const slow = await post('/_plugins/_sql', { query: 'SELECT count(*) FROM generate_series(1, 3000) a, generate_series(1, 3000) b' }, { srv: strict, headers: h });
    expect(slow.status).toBe(408);
    expect(slow.json.error.type).toBe('QueryTimeoutException');
    const after = await post('/_plugins/_sql', { query: 'SELECT 1' }, { srv: strict, headers: h });
    expect(after.status).toBe(200);
  });
});

describe('robustness', () => {
  it('survives malformed HTTP and JSON (fuzz) and keeps answering', async () => {
    const { port } = server;
    const send = (payload: Buffer): Promise<void> =>
      new Promise((resolve) => {
        const s = connect(port, '127.0.0.1');
        s.on('error', () => resolve());
        s.on('close', () => resolve());
        s.setTimeout(500, () => s.destroy());
        s.on('connect', () => {
          s.write(payload);
          setTimeout(() => s.end(), 20);
        });
        s.on('data', () => undefined);
      });
    let seed = 12345;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const fragments = ['{', '}', '"query"', ':', '"SELECT 1"', ',', '"fetch_size"', '-1', '1e999', 'null', '[', ']', '"cursor"', '"q1.a.b.c"', '\\u0000', '"', 'true'];
    const jobs: Promise<void>[] = [];
    for (let i = 0; i < 120; i++) {
      let payload: Buffer;
      if (i % 3 === 0) {
        payload = Buffer.from(Array.from({ length: 1 + rnd(300) }, () => rnd(256)));
      } else if (i % 3 === 1) {
        const body = Array.from({ length: 1 + rnd(12) }, () => fragments[rnd(fragments.length)]).join('');
        payload = Buffer.from(`POST /_plugins/_sql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      } else {
        const lines = ['POST /_plugins/_sql HTTP/1.1', 'GET / HTTP/9.9', 'Content-Length: -5', 'Transfer-Encoding: chunked', 'zz', '\r\n', 'Content-Length: 99999999'];
        payload = Buffer.from(Array.from({ length: 1 + rnd(5) }, () => lines[rnd(lines.length)]).join('\r\n') + '\r\n\r\n' + 'x'.repeat(rnd(50)));
      }
      jobs.push(send(payload));
      if (jobs.length >= 20) await Promise.all(jobs.splice(0));
    }
    await Promise.all(jobs);
    // JSON-level fuzz through a real client: every answer is a 4xx or a 200, with a JSON body.
    for (let i = 0; i < 60; i++) {
      const body = Array.from({ length: 1 + rnd(10) }, () => fragments[rnd(fragments.length)]).join('');
      const r = await post('/_plugins/_sql', null, { raw: body });
      expect(r.status === 200 || (r.status >= 400 && r.status < 500), body).toBe(true);
      expect(r.json, body).not.toBeNull();
    }
    expect((await post('/_plugins/_sql', { query: 'SELECT 3 AS z' })).json.datarows).toEqual([[3]]);
  });

  it('serves concurrent paging clients correctly', async () => {
    const queries = ['SELECT * FROM calcs ORDER BY num0 DESC', 'SELECT key, int1 FROM calcs ORDER BY int1 NULLS FIRST', 'SELECT str0, count(*) FROM calcs GROUP BY str0', 'SELECT event_id, category FROM events WHERE event_id < 500 ORDER BY category'];
    const wholeRows = await Promise.all(queries.map(async (q) => (await post('/_plugins/_sql', { query: q })).json.datarows as unknown[][]));
    const client = async (i: number): Promise<void> => {
      const q = queries[i % queries.length]!;
      let r = await post('/_plugins/_sql', { query: q, fetch_size: 1 + (i % 7) });
      const rows: unknown[][] = [];
      for (;;) {
        expect(r.status).toBe(200);
        rows.push(...r.json.datarows);
        if (!r.json.cursor) break;
        r = await post('/_plugins/_sql', { cursor: r.json.cursor });
      }
      const canon = (x: unknown[][]): string[] => x.map((row) => JSON.stringify(row)).sort();
      expect(canon(rows)).toEqual(canon(wholeRows[i % queries.length]!));
    };
    await Promise.all(Array.from({ length: 16 }, (_, i) => client(i)));
  });
});
