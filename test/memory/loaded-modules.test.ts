/**
 * What importing Quire loads: packages and modules that a query over in-memory tables never needs
 * (file formats, PostgreSQL's client, the server, the database-directory store, RE2) load at the point
 * of need, not at import, so they cost a process that does not use them no resident memory. Checked in
 * a fresh process, which records every module it resolves.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const TSX = createRequire(import.meta.url).resolve('tsx');
const CHILD = fileURLToPath(new URL('./loaded-modules-child.ts', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'quire-loaded-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const NOT_AT_IMPORT: Record<string, RegExp> = {
  'apache-arrow': /node_modules\/apache-arrow\//,
  hyparquet: /node_modules\/hyparquet\//,
  'hyparquet-writer': /node_modules\/hyparquet-writer\//,
  pg: /node_modules\/pg\//,
  fastify: /node_modules\/fastify\//,
  pino: /node_modules\/pino\//,
  'proper-lockfile': /node_modules\/proper-lockfile\//,
  re2js: /node_modules\/re2js\//,
  'the server': /\/src\/server\//,
  'the directory store': /\/src\/storage\/persist\/(store|wal|log-record)\.ts$/,
};

it('a query over in-memory tables loads no file format, client, server, directory store or RE2; each loads at its first use', () => {
  const r = spawnSync(process.execPath, ['--import', TSX, CHILD, join(root, 'db')], { encoding: 'utf8', timeout: 120_000 });
  expect(r.status, r.stderr).toBe(0);
  const steps = JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<'query' | 'regex' | 'directory', string[]>;
  // the recording works: Quire's own modules and libpg-query are there
  expect(steps.query.some((u) => u.endsWith('/src/api/database.ts'))).toBe(true);
  expect(steps.query.some((u) => u.includes('node_modules/libpg-query/'))).toBe(true);
  for (const [what, re] of Object.entries(NOT_AT_IMPORT)) expect(steps.query.filter((u) => re.test(u)), what).toEqual([]);
  expect(steps.regex.some((u) => NOT_AT_IMPORT.re2js!.test(u))).toBe(true);
  expect(steps.directory.some((u) => NOT_AT_IMPORT['the directory store']!.test(u))).toBe(true);
  expect(steps.directory.some((u) => NOT_AT_IMPORT['proper-lockfile']!.test(u))).toBe(true);
});
