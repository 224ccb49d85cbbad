/**
 * examples/README.md, step by step, as a user runs it: the CLI over the example files, a database
 * directory made from them, `quire serve` over it, a PostgreSQL client, and REST paging with a cursor
 * to the last page. The commands are the README's (run from the repository root).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { QUIRE_CLI } from '../harness/compiled.js';

const ROOT = join(import.meta.dirname, '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'quire-first-hour-'));
const DB = join(tmp, 'mydb');
let server: ChildProcess | null = null;

afterAll(async () => {
  // The server checkpoints the directory as it shuts down: wait for it before removing the files.
  if (server !== null && server.exitCode === null) {
    const exited = new Promise((r) => server!.once('exit', r));
    server.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  }
  rmSync(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

function quire(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [QUIRE_CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

/** The README's shell commands: the lines of each ```sh block that start with `quire `. */
function readmeCommands(): string[] {
  const text = readFileSync(join(ROOT, 'examples/README.md'), 'utf8');
  const out: string[] = [];
  for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    let cur: string | null = null;
    for (const line of block[1]!.split('\n')) {
      if (cur !== null && /^\s{2,}\S/.test(line) && !/#/.test(line.trim()[0] ?? '')) cur += '\n' + line.trim();
      else {
        if (cur !== null) out.push(cur);
        cur = line.startsWith('quire ') ? line.replace(/\s+#.*$/, '') : null;
      }
    }
    if (cur !== null) out.push(cur);
  }
  return out;
}

/** `quire -c "…"` / `quire mydb -c "…"` as argv. */
function argvOf(cmd: string): string[] {
  const m = /^quire (?:(mydb) )?-c "([\s\S]*)"$/.exec(cmd);
  if (m === null) throw new Error(`not a quire -c command: ${cmd}`);
  return [...(m[1] ? [DB] : []), '-c', m[2]!.replace(/\n\s*/g, ' ')];
}

describe('examples/README.md: the first hour', () => {
  const commands = readmeCommands();

  it('queries the example CSV and Parquet files with the CLI, DESCRIBE and SUMMARIZE included', async () => {
    const files = commands.filter((c) => c.startsWith('quire -c'));
    expect(files.length).toBe(4);
    const [byKind, byCountry, described, summarized] = await Promise.all(files.map((c) => quire(argvOf(c))));
    for (const r of [byKind, byCountry, described, summarized]) expect(r.code, r.stderr).toBe(0);
    expect(byKind!.stdout).toMatch(/ kind +\| count \| +sum/);
    expect(byKind!.stdout).toContain('(3 rows)');
    expect(byCountry!.stdout).toMatch(/ US +\| +47\n/);
    expect(described!.stdout).toMatch(/ amount +\| double precision/);
    expect(summarized!.stdout).toContain('(5 rows)');
  }, 120_000);

  it('loads a database directory, serves it, and answers psql-style clients and REST paging to the last page', async () => {
    const load = commands.filter((c) => c.startsWith('quire mydb'));
    expect(load.length).toBe(2);
    for (const c of load) {
      const r = await quire(argvOf(c));
      expect(r.code, r.stderr).toBe(0);
    }
    const restPort = await freePort();
    const pgPort = await freePort();
    // `quire serve mydb`, on free ports.
    server = spawn(process.execPath, [QUIRE_CLI, 'serve', DB, '--port', String(restPort), '--pg-port', String(pgPort)], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    const url = `http://127.0.0.1:${restPort}/_plugins/_sql`;
    const post = async (body: unknown): Promise<{ status: number; json: any }> => {
      const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: r.status, json: await r.json() };
    };
    for (let i = 0; ; i++) {
      try {
        if ((await post({ query: 'select 1' })).status === 200) break;
      } catch {
        // not listening yet
      }
      if (i > 300) throw new Error('server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }

    const c = new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'quire', database: 'quire' });
    await c.connect();
    const top = await c.query('select user_name, count(*) from events group by 1 order by 2 desc');
    expect(top.rows.length).toBe(6);
    await c.end();

    let r = await post({ query: 'select id, user_name, kind from events order by id', fetch_size: 50 });
    const ids: number[] = r.json.datarows.map((row: unknown[]) => row[0]);
    let pages = 1;
    while (r.json.cursor) {
      r = await post({ cursor: r.json.cursor });
      expect(r.status).toBe(200);
      expect(r.json.datarows.length).toBeGreaterThan(0);
      ids.push(...r.json.datarows.map((row: unknown[]) => row[0]));
      pages++;
    }
    expect(pages).toBe(3);
    expect(ids).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    // The server is read-only by default.
    expect((await post({ query: 'drop table events' })).status).toBe(403);
  }, 120_000);
});
