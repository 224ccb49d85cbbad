/**
 * `quire serve` starts the PostgreSQL listener beside the REST one: a child process on free ports,
 * reached with node-postgres using the --password given on the command line.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

describe('quire serve', () => {
  it('serves the PostgreSQL protocol on --pg-port with --password', async () => {
    const loader = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
    const child = spawn(process.execPath, ['--import', loader, join(ROOT, 'src/cli/main.ts'), 'serve', '--port', '0', '--pg-port', '0', '--password', 'pw-123', '--demo'], {
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
