/**
 * Runs once before the test files: builds dist/ when it is older than src/ (see harness/compiled.ts),
 * so tests that start children on the compiled engine need no build step of their own; and makes the
 * data directory PGlite starts from in every test file (common/pglite.ts), once per PGlite version.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { BUILD_STAMP, QUIRE_CLI, ROOT, newestSource } from './harness/compiled.js';
import { PGLITE_DATADIR_ENV } from './common/pglite.js';

export default async function setup(): Promise<void> {
  buildDist();
  process.env[PGLITE_DATADIR_ENV] = await pgliteDataDir();
}

/** The tarball of a fresh PGlite's data directory, made if this version has none yet. */
async function pgliteDataDir(): Promise<string> {
  const version = (JSON.parse(readFileSync(join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8')) as { version: string }).version;
  const dir = join(ROOT, 'node_modules', '.cache', 'quire-tests');
  const file = join(dir, `pglite-${version}-datadir.tar.gz`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  const pg = await PGlite.create();
  const tar = Buffer.from(await (await pg.dumpDataDir('gzip')).arrayBuffer());
  await pg.close();
  // Written aside and renamed: another run starting at the same time reads a whole file or none.
  const part = `${file}.${process.pid}`;
  writeFileSync(part, tar);
  renameSync(part, file);
  return file;
}

function buildDist(): void {
  const built = existsSync(BUILD_STAMP) && existsSync(QUIRE_CLI) ? statSync(BUILD_STAMP).mtimeMs : -1;
  // The time is taken before building: a file saved during the build makes the next run build again.
  const started = Date.now();
  if (built >= newestSource()) return;
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.json')], { cwd: ROOT, encoding: 'utf8' });
  // A type error still emits JavaScript (npm test's type check reports it); a compiler that did not
  // run or was killed stops the tests.
  if (r.error !== undefined || r.signal !== null || !existsSync(QUIRE_CLI)) throw new Error(`building dist/ for the tests failed: ${r.error?.message ?? r.signal ?? ''}\n${r.stdout}${r.stderr}`);
  mkdirSync(dirname(BUILD_STAMP), { recursive: true });
  writeFileSync(BUILD_STAMP, `${new Date(started).toISOString()}\n`);
  utimesSync(BUILD_STAMP, new Date(started), new Date(started));
}
