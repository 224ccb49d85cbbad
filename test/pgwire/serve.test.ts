/**
 * `quire serve` starts the PostgreSQL listener beside the REST one: a child process on free ports,
 * reached with node-postgres using the --password given on the command line.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { QUIRE_CLI } from '../harness/compiled.js';


describe('quire serve', () => {
  it('serves the PostgreSQL protocol on --pg-port with --password', async () => {
    const child = spawn(process.execPath, [QUIRE_CLI, 'serve', '--port', '0', '--pg-port', '0', '--password', 'pw-123', '--demo'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      let stderr = '';
      const port = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no pg listener line: ${stderr}`)), 30_000);
        child.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
          const m = /PostgreSQL protocol listening on 127\.0\.0\.1:(\d+) \(SCRAM-SHA-256 password required\)/.exec(stderr);
          if (m) {
            clearTimeout(timer);
            resolve(Number(m[1]));
          }
        });
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
      });
      const c = new pg.Client({ host: '127.0.0.1', port, user: 'someone', password: 'pw-123', database: 'quire' });
      await c.connect();
      const r = await c.query("select count(*)::int as n from pg_catalog.pg_class where relname = 'calcs'");
      expect(r.rows).toEqual([{ n: 1 }]);
      await c.end();
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    }
  }, 60_000);
});

describe('quire serve: connection limits and logs', () => {

  it('--log-slow-ms, --log-level and --max-connections reach both ports; log lines are JSON on stderr', async () => {
    const child = spawn(
      process.execPath,
      [QUIRE_CLI, 'serve', '--port', '0', '--pg-port', '0', '--log-slow-ms', '1', '--log-level', 'warn', '--max-connections', '3', '--demo'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const [restUrl, pgPort] = await new Promise<[string, number]>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listener lines: ${stderr}`)), 30_000);
        const check = (): void => {
          const r = /REST \(OpenSearch SQL\) listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
          const p = /PostgreSQL protocol listening on 127\.0\.0\.1:(\d+)/.exec(stderr);
          if (r && p) {
            clearTimeout(timer);
            child.stderr.off('data', check);
            resolve([r[1]!, Number(p[1])]);
          }
        };
        child.stderr.on('data', check);
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
      });
      const res = await fetch(`${restUrl}/_plugins/_sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: "select count(*) from calcs where str2 <> 'rest-probe'" }) });
      expect(res.status).toBe(200);
      const c = new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'u', database: 'quire' });
      await c.connect();
      await c.query("select count(*) from calcs where str2 <> 'pg-probe'");
      // --max-connections 3: this client holds one slot; three more idle sockets leave none.
      const { connect } = await import('node:net');
      const idle = await Promise.all([1, 2, 3].map(() => new Promise<import('node:net').Socket>((r) => { const s = connect(pgPort, '127.0.0.1', () => r(s)); })));
      const refused = new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'u', database: 'quire' });
      await expect(refused.connect()).rejects.toMatchObject({ code: '53300' });
      for (const s of idle) s.destroy();
      expect((await c.query('select 1 as x')).rows).toEqual([{ x: 1 }]);
      await c.end();
      const deadline = Date.now() + 5000;
      const lines = (): Record<string, unknown>[] => stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
      while (lines().filter((l) => l.msg === 'slow query').length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const slow = lines().filter((l) => l.msg === 'slow query');
      expect(slow.find((l) => l.port === 'rest' && String(l.sql).includes('rest-probe'))).toMatchObject({ level: 40 });
      expect(slow.find((l) => l.port === 'pg' && String(l.sql).includes('pg-probe'))).toMatchObject({ level: 40 });
      // --log-level warn: the refused client (info) is not logged.
      expect(lines().some((l) => l.msg === 'too many connections: refusing a client')).toBe(false);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    }
  }, 60_000);

  it('refuses an unknown --log-level', async () => {
    const child = spawn(process.execPath, [QUIRE_CLI, 'serve', '--log-level', 'loud'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(1);
    expect(stderr).toContain('--log-level must be one of fatal, error, warn, info, debug, trace, silent');
  }, 30_000);
});

describe('quire serve credentials and grants', () => {
  const run = (args: string[]) => spawn(process.execPath, [QUIRE_CLI, 'serve', '--port', '0', '--pg-port', '0', ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, QUIRE_API_KEY: '', QUIRE_PG_PASSWORD: '' } });

  it('refuses to start with --allow-writes and no credentials, naming the flag to add', async () => {
    const child = run(['--allow-writes']);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code).toBe(1);
    expect(stderr).toMatch(/--allow-writes needs credentials: add --api-key KEY/);
  }, 60_000);

  it('--api-key is the PostgreSQL password too; --allow-writes reaches the pg port', async () => {
    const child = run(['--api-key', 'key-456', '--allow-writes']);
    try {
      let stderr = '';
      const ports = await new Promise<{ rest: number; pg: number }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listener lines: ${stderr}`)), 30_000);
        child.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
          const r = /REST \(OpenSearch SQL\) listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
          const p = /PostgreSQL protocol listening on 127\.0\.0\.1:(\d+) \(SCRAM-SHA-256 password required\)/.exec(stderr);
          if (r && p) {
            clearTimeout(timer);
            resolve({ rest: Number(r[1]), pg: Number(p[1]) });
          }
        });
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
      });
      await expect(new pg.Client({ host: '127.0.0.1', port: ports.pg, user: 'u', password: 'wrong', database: 'quire' }).connect()).rejects.toMatchObject({ code: '28P01' });
      const c = new pg.Client({ host: '127.0.0.1', port: ports.pg, user: 'u', password: 'key-456', database: 'quire' });
      await c.connect();
      await c.query('create table t (a int)');
      await c.query('insert into t values (1)');
      // A client cannot raise the server's memory limit.
      await expect(c.query("set memory_limit = '100GB'")).rejects.toMatchObject({ code: '42501' });
      await c.end();
      const res = await fetch(`http://127.0.0.1:${ports.rest}/_plugins/_sql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'ApiKey key-456' }, body: JSON.stringify({ query: 'select count(*) from t' }) });
      expect(((await res.json()) as { datarows: unknown }).datarows).toEqual([[1]]);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    }
  }, 60_000);
});

describe('quire serve DBPATH', () => {
  it('serves a database directory: what pgwire commits is there after the server stops, and a second server is refused', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'quire-serve-dir-'));
    const start = (extra: string[] = []) =>
      spawn(process.execPath, [QUIRE_CLI, 'serve', join(dir, 'db'), '--port', '0', '--pg-port', '0', '--api-key', 'key-789', '--allow-writes', ...extra], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    const child = start();
    try {
      let stderr = '';
      const pgPort = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listener lines: ${stderr}`)), 30_000);
        child.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
          const p = /PostgreSQL protocol listening on 127\.0\.0\.1:(\d+)/.exec(stderr);
          if (p) {
            clearTimeout(timer);
            resolve(Number(p[1]));
          }
        });
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
      });
      const c = new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'u', password: 'key-789', database: 'quire' });
      await c.connect();
      await c.query('CREATE TABLE kept (x int)');
      await c.query('INSERT INTO kept VALUES (1), (2)');
      await c.end();
      // One writer per directory: a second server on it is refused, naming the first.
      const second = start();
      let err = '';
      second.stderr.on('data', (d: Buffer) => (err += d.toString()));
      expect(await new Promise((r) => second.once('exit', r))).toBe(1);
      expect(err).toMatch(/is locked by process \d+/);
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    const { Database } = await import('../../src/index.js');
    const db = await Database.create({ path: join(dir, 'db') });
    expect((await db.query('SELECT x FROM kept ORDER BY x')).rows).toEqual([[1], [2]]);
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }, 90_000);
});

