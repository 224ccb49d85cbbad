/**
 * --memory-limit / --temp-dir on `quire` and `quire serve`: spawned like the test/cli tests; the flags set
 * memory_limit / temp_directory (SHOW reports them, a window over one large partition spills into the
 * directory and leaves it empty), bad sizes exit 1 with the 22023 message, and the help texts list them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { QUIRE_CLI } from '../harness/compiled.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function start(args: string[]): ChildProcess {
  return spawn(process.execPath, [QUIRE_CLI, ...args], { cwd: tmp.dir, stdio: ['pipe', 'pipe', 'pipe'] });
}

function quire(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = start(args);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin!.end('');
  });
}

describe('quire --memory-limit / --temp-dir', () => {
  it('sets memory_limit and temp_directory; a large window partition spills there and is cleaned up', async () => {
    const spill = join(tmp.dir, 'spill');
    const r = await quire([
      '--memory-limit',
      '256kB',
      `--temp-dir=${spill}`,
      '-A',
      '-t',
      '-c',
      'SHOW memory_limit',
      '-c',
      'SHOW temp_directory',
      '-c',
      'EXPLAIN (FORMAT QUIRE, ANALYZE) SELECT i, row_number() OVER (), sum(i) OVER (ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) FROM generate_series(1, 200000) i',
      '-c',
      'SELECT count(*), sum(s) FROM (SELECT sum(i) OVER (ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s FROM generate_series(1, 200000) i) t',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('256kB');
    expect(lines[1]).toBe(spill);
    expect(r.stdout).toMatch(/Window .*spilled partitions=1 spill files=\d+ spilled bytes=[1-9]\d*/);
    // sum over i of (i + (i - 1)) = n^2.
    expect(lines).toContain(`200000|${200000 * 200000}`);
    expect(tmp.files().filter((f) => f.startsWith(spill + '/'))).toEqual([]);
  }, 60_000);

  it('without the flag nothing spills', async () => {
    const r = await quire(['-A', '-t', '-c', 'EXPLAIN (FORMAT QUIRE, ANALYZE) SELECT i, row_number() OVER () FROM generate_series(1, 200000) i']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/spilled/);
  }, 60_000);

  it('an invalid size exits 1 with the 22023 message; --help lists the flags', async () => {
    const bad = await quire(['--memory-limit=lots', '-c', 'SELECT 1']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/invalid value for parameter "memory_limit": "lots"/);
    expect(bad.stdout).toBe('');
    const help = await quire(['--help']);
    expect(help.stdout).toMatch(/--memory-limit=SIZE/);
    expect(help.stdout).toMatch(/--temp-dir=DIR/);
    const missing = await quire(['--memory-limit']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/requires an argument/);
  }, 60_000);
});

describe('quire serve --memory-limit / --temp-dir', () => {
  it('every REST request and PostgreSQL connection runs under the limit', async () => {
    const spill = join(tmp.dir, 'serve-spill');
    const child = start(['serve', '--port', '0', '--pg-port', '0', '--memory-limit', '300kB', '--temp-dir', spill]);
    try {
      const [url, pgPort] = await new Promise<[string, number]>((resolve, reject) => {
        let err = '';
        child.stderr!.setEncoding('utf8').on('data', (d: string) => {
          err += d;
          const m = /listening on (http:\/\/\S+)/.exec(err);
          const p = /PostgreSQL protocol listening on [^\s:]+:(\d+)/.exec(err);
          if (m && p) resolve([m[1]!, Number(p[1])]);
        });
        child.on('close', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
      });
      const ask = async (query: string): Promise<unknown[][]> => {
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
        const body = (await res.json()) as { datarows: unknown[][] };
        expect(res.status).toBe(200);
        return body.datarows;
      };
      expect(await ask('SHOW memory_limit')).toEqual([['300kB']]);
      expect(await ask('SHOW temp_directory')).toEqual([[spill]]);
      const plan = (await ask('EXPLAIN (FORMAT QUIRE, ANALYZE) SELECT i, count(*) OVER () FROM generate_series(1, 200000) i')).map((r) => String(r[0])).join('\n');
      expect(plan).toMatch(/spilled partitions=1/);
      expect(tmp.files().filter((f) => f.startsWith(spill + '/'))).toEqual([]);
      const client = new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'quire', database: 'quire' });
      await client.connect();
      try {
        expect((await client.query('SHOW memory_limit')).rows).toEqual([{ memory_limit: '300kB' }]);
        // The server's limit is not the client's to change (README "Running a server").
        await expect(client.query("SET memory_limit = '64MB'")).rejects.toMatchObject({ code: '42501' });
        expect((await client.query('SHOW memory_limit')).rows).toEqual([{ memory_limit: '300kB' }]);
      } finally {
        await client.end();
      }
      expect(await ask('SHOW memory_limit')).toEqual([['300kB']]);
    } finally {
      child.kill('SIGTERM');
    }
  }, 60_000);

  it('an invalid size exits 1; --help lists the flags', async () => {
    const bad = await quire(['serve', '--memory-limit', 'lots', '--no-pg', '--port', '0']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/invalid value for parameter "memory_limit": "lots"/);
    const help = await quire(['serve', '--help']);
    expect(help.stdout).toMatch(/--memory-limit SIZE/);
    expect(help.stdout).toMatch(/--temp-dir DIR/);
  }, 60_000);
});
