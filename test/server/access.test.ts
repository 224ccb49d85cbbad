/**
 * Issue 13's attacks on a served database, over real sockets: privileges (read-only unless granted)
 * on both ports, file access confined to --allow-files directories, credentials on both ports, and
 * REST request hygiene (Origin, Host, content type). Every refusal is followed by a `select 1`.
 */
import { parquetWriteFile } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { serialize } from 'pg-protocol';
import { Database } from '../../src/index.js';
import { serve, type RunningServers } from '../../src/server/index.js';
import { missingCredentials } from '../../src/cli/serve.js';
import { RawClient, names } from '../pgwire/helpers.js';

const KEY = 'access-test-key-0123';
let dir: string;
let allowed: string;
let secret: string;
let db: Database;
let ro: RunningServers; // read-only, files under `allowed`, --api-key on both ports
let rw: RunningServers; // --allow-writes, files under `allowed`
let trust: RunningServers; // the loopback read-only demo: no credentials, no files

async function rest(srv: RunningServers, query: string, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  const res = await fetch(`${srv.rest!.url}/_plugins/_sql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `ApiKey ${KEY}`, ...headers },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, json: await res.json() };
}

function sqlstate(body: any): string | undefined {
  return body?.error?.sqlstate;
}

async function pgClient(srv: RunningServers, password = KEY): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port: srv.pg!.port, user: 'u', database: 'quire', password });
  await c.connect();
  return c;
}

async function pgError(c: pg.Client, sql: string): Promise<{ code: string; message: string }> {
  try {
    await c.query(sql);
  } catch (e) {
    return e as { code: string; message: string };
  }
  throw new Error(`expected ${sql} to fail`);
}

/** An HTTP request with headers fetch will not let us forge (Host). */
function rawPost(srv: RunningServers, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const r = request({ host: '127.0.0.1', port: srv.rest!.port, path: '/_plugins/_sql', method: 'POST', headers: { 'content-length': Buffer.byteLength(body), ...headers } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    r.on('error', reject);
    r.end(body);
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-access-'));
  allowed = join(dir, 'allowed');
  secret = join(dir, 'secret');
  mkdirSync(allowed);
  mkdirSync(secret);
  writeFileSync(join(allowed, 'data.csv'), 'a,b\n1,x\n2,y\n');
  writeFileSync(join(secret, 'shadow.csv'), 'user,hash\nroot,SECRET-HASH\n');
  symlinkSync(join(secret, 'shadow.csv'), join(allowed, 'link.csv'));
  symlinkSync(secret, join(allowed, 'secretdir'));
  db = await Database.create();
  await db.query("create table calcs (k int, s text); insert into calcs values (1, 'one'), (2, 'two')");
  const grants = { allowFiles: [allowed] };
  ro = await serve({ db, rest: { port: 0, apiKey: KEY, ...grants }, pg: { port: 0, password: KEY, ...grants } });
  rw = await serve({ db, rest: { port: 0, apiKey: KEY, allowWrites: true, ...grants }, pg: { port: 0, password: KEY, allowWrites: true, ...grants } });
  trust = await serve({ db, rest: { port: 0 }, pg: { port: 0 } });
});

afterAll(async () => {
  await Promise.all([ro?.close(), rw?.close(), trust?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('file access is a grant', () => {
  it('refuses /etc files through REST with 42501, the same for existing and missing paths', async () => {
    for (const srv of [ro, trust]) {
      const passwd = await rest(srv, "select * from read_csv('/etc/passwd', header=>false, delim=>':')");
      const missing = await rest(srv, "select * from read_csv('/etc/no-such-file-here', header=>false, delim=>':')");
      expect(passwd.status).toBe(403);
      expect(sqlstate(passwd.json)).toBe('42501');
      expect(sqlstate(missing.json)).toBe('42501');
      expect(missing.json.error.details.replace('no-such-file-here', 'passwd')).toBe(passwd.json.error.details);
      for (const f of ['read_json', 'read_parquet', 'read_arrow']) {
        const r = await rest(srv, `select * from ${f}('/etc/passwd')`);
        expect(sqlstate(r.json)).toBe('42501');
      }
      expect((await rest(srv, 'select 1 as x')).json.datarows).toEqual([[1]]);
    }
  });

  it('a Parquet footer cached by a session allowed to read the file grants no other session access to it', async () => {
    const f = join(secret, 'secret.parquet');
    parquetWriteFile({ filename: f, columnData: [{ name: 'hash', data: ['SECRET-HASH'], type: 'STRING' }] });
    symlinkSync(f, join(allowed, 'link.parquet'));
    // The embedding process has no file gate: its read caches the footer.
    expect((await db.query(`select hash from read_parquet('${f}')`)).rows).toEqual([['SECRET-HASH']]);
    for (const p of [f, `${allowed}/link.parquet`, `${allowed}/../secret/secret.parquet`]) {
      for (const q of [`select * from read_parquet('${p}')`, `select count(*) from read_parquet('${p}')`, `explain (format quire) select * from read_parquet('${p}')`]) {
        const r = await rest(ro, q);
        expect(sqlstate(r.json), q).toBe('42501');
        expect(JSON.stringify(r.json)).not.toContain('SECRET-HASH');
        expect(JSON.stringify(r.json)).not.toContain('"hash"');
      }
    }
  });

  it('reads inside the allowed directory, and says "no such file" only there', async () => {
    const ok = await rest(ro, `select a, b from read_csv('${allowed}/data.csv') order by a`);
    expect(ok.json.datarows).toEqual([[1, 'x'], [2, 'y']]);
    const missing = await rest(ro, `select * from read_csv('${allowed}/nope.csv')`);
    expect(sqlstate(missing.json)).toBe('58P01');
    expect(missing.status).toBe(404);
  });

  it('stops .. and symlink escapes, and confines globs', async () => {
    for (const p of [`${allowed}/../secret/shadow.csv`, `${allowed}/link.csv`, `${allowed}/secretdir/shadow.csv`, `${allowed}/secretdir/*.csv`, '/**/shadow.csv', `${allowed}/../*/shadow.csv`]) {
      const r = await rest(ro, `select * from read_csv('${p}')`);
      expect(sqlstate(r.json), p).toBe('42501');
      expect(JSON.stringify(r.json)).not.toContain('SECRET-HASH');
    }
    // The glob matches data.csv and the symlink; only the file inside is read.
    const g = await rest(ro, `select count(*) from read_csv('${allowed}/*.csv')`);
    expect(g.json.datarows).toEqual([[2]]);
    expect((await rest(ro, 'select 1 as x')).json.datarows).toEqual([[1]]);
  });

  it('refuses COPY FROM/TO files outside, and writes inside only with --allow-writes', async () => {
    const c = await pgClient(rw);
    try {
      expect((await pgError(c, `copy (select 'x') to '${secret}/pwned'`)).code).toBe('42501');
      expect((await pgError(c, `copy (select 'x') to '${allowed}/secretdir/pwned'`)).code).toBe('42501');
      expect((await pgError(c, `copy calcs from '${secret}/shadow.csv' (format csv, header)`)).code).toBe('42501');
      expect(existsSync(join(secret, 'pwned'))).toBe(false);
      await c.query(`copy (select k from calcs order by k) to '${allowed}/out.csv'`);
      expect(readFileSync(join(allowed, 'out.csv'), 'utf8')).toBe('1\n2\n');
      const ro1 = await pgClient(ro);
      try {
        expect((await pgError(ro1, `copy (select 'x') to '${allowed}/pwned'`)).code).toBe('25006');
        expect(existsSync(join(allowed, 'pwned'))).toBe(false);
      } finally {
        await ro1.end();
      }
      expect((await c.query('select 1 as x')).rows).toEqual([{ x: 1 }]);
    } finally {
      await c.end();
    }
  });

  it('the library is unconfined by default and can opt into confinement', async () => {
    const open = await Database.create();
    expect((await open.query(`select count(*) as n from read_csv('${secret}/shadow.csv')`)).rows).toEqual([[1]]);
    const confined = await Database.create({ access: { allowFiles: [allowed] } });
    await expect(confined.query(`select * from read_csv('${secret}/shadow.csv')`)).rejects.toMatchObject({ code: '42501' });
    await expect(confined.query(`select * from read_csv('${secret}/missing.csv')`)).rejects.toMatchObject({ code: '42501' });
    expect((await confined.query(`select count(*) as n from read_csv('${allowed}/data.csv')`)).rows).toEqual([[2]]);
    // Confinement also closes the network: no ATTACH.
    await expect(confined.query("attach 'postgres://127.0.0.1:1/x' as r")).rejects.toMatchObject({ code: '42501' });
    // Sessions of a confined database stay confined.
    await expect(confined.connect().query(`select * from read_csv('${secret}/shadow.csv')`)).rejects.toMatchObject({ code: '42501' });
  });

  it('read_json errors never quote the file', async () => {
    const f = join(dir, 'lines.json');
    writeFileSync(f, '"top-secret-line"\n');
    const e = await (await Database.create()).query(`select * from read_json('${f}')`).catch((x: unknown) => x as { message: string; detail?: string });
    expect(JSON.stringify(e)).not.toContain('top-secret');
    writeFileSync(f, 'root:x:0:0:top-secret\n');
    const e2 = await (await Database.create()).query(`select * from read_json('${f}')`).catch((x: unknown) => x as { message: string; detail?: string });
    expect(`${(e2 as Error).message} ${(e2 as { detail?: string }).detail}`).not.toContain('top-secret');
  });
});

describe('one privilege model on both ports', () => {
  it('refuses every kind of write over pgwire on a read-only server, with 25006', async () => {
    const c = await pgClient(ro);
    try {
      const writes = [
        'drop table calcs',
        'create table x (a int)',
        "insert into calcs values (3, 'three')",
        'update calcs set k = 0',
        'delete from calcs',
        'truncate calcs',
        'create view v as select 1',
        'select * into y from calcs',
        "with w as (insert into calcs values (9, 'n') returning k) select * from w",
        "explain (format quire, analyze) insert into calcs values (9, 'n')",
        "prepare p as insert into calcs values (9, 'n')",
        `copy calcs from '${allowed}/data.csv'`,
        'create index i on calcs (k)',
        'create unique index ui on calcs (k)',
        'drop index if exists calcs_pkey',
        "create function f() returns int language sql as 'select 1'",
        "create aggregate a(int) (sfunc = int4pl, stype = int4)",
        'drop function if exists f',
        'drop aggregate if exists a(int)',
        "declare c cursor with hold for with w as (insert into calcs values (9, 'n') returning k) select * from w",
        "begin; select 1; drop table calcs",
      ];
      for (const w of writes) {
        const e = await pgError(c, w);
        expect(e.code, w).toBe('25006');
        expect(e.message, w).toMatch(/^cannot execute .+ in a read-only transaction$/);
      }
      // Extended protocol (parameters) goes through the same check.
      await expect(c.query('insert into calcs values ($1, $2)', [5, 'five'])).rejects.toMatchObject({ code: '25006' });
      await expect(c.query({ name: 'ins', text: 'insert into calcs values ($1, $2)', values: [5, 'five'] })).rejects.toMatchObject({ code: '25006' });
      await expect(c.query({ name: 'cte', text: 'with w as (delete from calcs returning k) select k from w where k > $1', values: [0] })).rejects.toMatchObject({ code: '25006' });
      // Reads still work: cursors, prepared SELECTs, SHOW, SET of a client setting.
      await c.query('begin');
      await c.query('declare cur cursor for select k from calcs order by k');
      expect((await c.query('fetch 1 from cur')).rows).toEqual([{ k: 1 }]);
      await c.query('commit');
      await c.query('prepare q as select count(*)::int as n from calcs');
      expect((await c.query('execute q')).rows).toEqual([{ n: 2 }]);
      await c.query("set timezone = 'Europe/Paris'");
      // Settings that size the server are not the client's.
      for (const s of ["set memory_limit = '100GB'", "set temp_directory = '/'", 'reset memory_limit']) expect((await pgError(c, s)).code, s).toBe('42501');
      expect((await c.query('select 1 as x')).rows).toEqual([{ x: 1 }]);
    } finally {
      await c.end();
    }
    expect((await db.query('select count(*) from calcs')).rows).toEqual([[2]]);
  });

  it('refuses a multi-statement string whole: select 1; drop table calcs (raw socket)', async () => {
    const c = await RawClient.ready(trust.pg!.port);
    try {
      const ms = await c.roundTrip(serialize.query('select 1; drop table calcs'));
      expect(names(ms)).toEqual(['error', 'readyForQuery']);
      expect((ms[0] as { code?: string }).code).toBe('25006');
      expect((ms[0] as { message?: string }).message).toBe('cannot execute DROP TABLE in a read-only transaction');
      // COPY FROM STDIN is refused before the client sends data.
      const cp = await c.roundTrip(serialize.query('copy calcs from stdin'));
      expect(names(cp)).toEqual(['error', 'readyForQuery']);
      const one = await c.roundTrip(serialize.query('select 1'));
      expect(names(one)).toContain('dataRow');
    } finally {
      c.end();
    }
    expect(db.catalog.tables.has('calcs')).toBe(true);
  });

  it('REST applies the same policy, including multi-statement strings', async () => {
    for (const q of ['drop table calcs', `copy (select 1) to '${allowed}/r.csv'`]) {
      const r = await rest(ro, q);
      expect(r.status, q).toBe(403);
      expect(sqlstate(r.json), q).toBe('25006');
    }
    // A request runs one statement: a second one is refused before the first runs.
    const two = await rest(ro, 'select 1; drop table calcs');
    expect(two.status).toBe(400);
    expect(sqlstate(two.json)).toBe('42601');
    // Paging and _explain plan through the same check.
    const paged = await fetch(`${ro.rest!.url}/_plugins/_sql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `ApiKey ${KEY}` }, body: JSON.stringify({ query: "select * from read_csv('/etc/passwd', header=>false, delim=>':')", fetch_size: 1 }) });
    expect(sqlstate(await paged.json())).toBe('42501');
    const explained = await fetch(`${ro.rest!.url}/_plugins/_sql/_explain`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `ApiKey ${KEY}` }, body: JSON.stringify({ query: 'with w as (delete from calcs returning k) select k from w' }) });
    expect(sqlstate(await explained.json())).toBe('25006');
    expect(db.catalog.tables.has('calcs')).toBe(true);
    expect((await rest(ro, 'select count(*) from calcs')).json.datarows).toEqual([[2]]);
  });

  it('two concurrent sessions: one refused writes, the other keeps being served', async () => {
    const [a, b] = await Promise.all([pgClient(ro), pgClient(ro)]);
    try {
      const attacker = (async () => {
        const codes: string[] = [];
        for (let i = 0; i < 20; i++) codes.push((await pgError(a, i % 2 ? 'drop table calcs' : `copy (select 1) to '${allowed}/p${i}'`)).code);
        return codes;
      })();
      const reader = (async () => {
        const out: number[] = [];
        for (let i = 0; i < 20; i++) out.push((await b.query('select count(*)::int as n from calcs')).rows[0].n as number);
        return out;
      })();
      const restReader = Promise.all(Array.from({ length: 5 }, () => rest(ro, 'select count(*) from calcs')));
      const [codes, counts, restAnswers] = await Promise.all([attacker, reader, restReader]);
      expect(new Set(codes)).toEqual(new Set(['25006']));
      expect(counts.every((n) => n === 2)).toBe(true);
      expect(restAnswers.every((r) => r.json.datarows[0][0] === 2)).toBe(true);
      expect((await a.query('select 1 as x')).rows).toEqual([{ x: 1 }]);
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });

  it('a REST request\'s SET does not outlive it', async () => {
    expect((await rest(ro, "set timezone = 'Asia/Tokyo'")).status).toBe(200);
    expect((await rest(ro, 'show timezone')).json.datarows).toEqual([['UTC']]);
    expect(sqlstate((await rest(ro, "set memory_limit = '100GB'")).json)).toBe('42501');
  });

  it('--allow-writes grants writes on both ports', async () => {
    const c = await pgClient(rw);
    try {
      await c.query('create table w1 (a int)');
      await c.query('insert into w1 values (1)');
    } finally {
      await c.end();
    }
    expect((await rest(rw, 'insert into w1 values (2)')).status).toBe(200);
    expect((await rest(rw, 'select count(*) from w1')).json.datarows).toEqual([[2]]);
  });
});

describe('authentication', () => {
  it('--api-key protects the PostgreSQL port', async () => {
    await expect(pgClient(ro, 'wrong')).rejects.toMatchObject({ code: '28P01' });
    const c = await pgClient(ro);
    expect((await c.query('select 1 as x')).rows).toEqual([{ x: 1 }]);
    await c.end();
  });

  it('REST takes the key as ApiKey, Bearer, x-api-key or Basic password, and nothing else', async () => {
    const q = 'select 1 as x';
    expect((await rest(ro, q, { authorization: '' })).status).toBe(401);
    expect((await rest(ro, q, { authorization: 'ApiKey nope' })).status).toBe(401);
    expect((await rest(ro, q, { authorization: `Bearer ${KEY}` })).status).toBe(200);
    expect((await rest(ro, q, { authorization: `Basic ${Buffer.from(`me:${KEY}`).toString('base64')}` })).status).toBe(200);
    expect((await rest(ro, q, { authorization: `Basic ${Buffer.from('me:nope').toString('base64')}` })).status).toBe(401);
  });

  it('a server that writes, opens files or leaves loopback needs credentials', () => {
    const base = { host: '127.0.0.1', allowWrites: false, allowFiles: [] as string[], apiKey: undefined };
    expect(missingCredentials(base)).toBeNull();
    expect(missingCredentials({ ...base, allowWrites: true })).toMatch(/--allow-writes needs credentials: add --api-key/);
    expect(missingCredentials({ ...base, allowFiles: ['/data'] })).toMatch(/--allow-files/);
    expect(missingCredentials({ ...base, host: '0.0.0.0' })).toMatch(/--host 0\.0\.0\.0/);
    expect(missingCredentials({ ...base, host: '0.0.0.0', allowWrites: true, apiKey: 'k' })).toBeNull();
  });
});

describe('REST request hygiene', () => {
  it('refuses a cross-origin text/plain POST (403) and a non-JSON body (415)', async () => {
    const body = JSON.stringify({ query: `copy (select 'x') to '${allowed}/csrf'` });
    const cross = await rawPost(rw, { 'content-type': 'text/plain', origin: 'https://evil.example', authorization: `ApiKey ${KEY}` }, body);
    expect(cross.status).toBe(403);
    const plain = await rawPost(rw, { 'content-type': 'text/plain', authorization: `ApiKey ${KEY}` }, body);
    expect(plain.status).toBe(415);
    expect(existsSync(join(allowed, 'csrf'))).toBe(false);
    expect((await rest(rw, 'select 1 as x')).json.datarows).toEqual([[1]]);
  });

  it('refuses a DNS-rebinding Host header with 403, accepts addresses and loopback names', async () => {
    const body = JSON.stringify({ query: 'select 1 as x' });
    const json = { 'content-type': 'application/json' };
    expect((await rawPost(trust, { ...json, host: 'attacker.example:9200' }, body)).status).toBe(403);
    expect((await rawPost(trust, { ...json, host: 'localhost.attacker.example' }, body)).status).toBe(403);
    for (const h of ['127.0.0.1:9200', 'localhost', '[::1]:9200', '10.1.2.3']) expect((await rawPost(trust, { ...json, host: h }, body)).status, h).toBe(200);
  });

  it('answers listed origins with CORS headers and a preflight', async () => {
    const srv = await serve({ db, rest: { port: 0, corsOrigins: ['https://app.example'], allowedHosts: ['quire.internal'] } });
    try {
      const body = JSON.stringify({ query: 'select 1 as x' });
      const ok = await rawPost(srv, { 'content-type': 'application/json', origin: 'https://app.example', host: 'quire.internal' }, body);
      expect(ok.status).toBe(200);
      const pre = await fetch(`${srv.rest!.url}/_plugins/_sql`, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('https://app.example');
      expect((await rawPost(srv, { 'content-type': 'application/json', origin: 'https://other.example' }, body)).status).toBe(403);
    } finally {
      await srv.close();
    }
  });
});
