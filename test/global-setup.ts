/**
 * Runs once before the test files: builds dist/ when it is older than src/ (see harness/compiled.ts),
 * so tests that start children on the compiled engine need no build step of their own.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILD_STAMP, QUIRE_CLI, ROOT, newestSource } from './harness/compiled.js';

export default function setup(): void {
  const built = existsSync(BUILD_STAMP) && existsSync(QUIRE_CLI) ? statSync(BUILD_STAMP).mtimeMs : -1;
  // The time is taken before building: a file saved during the build makes the next run build again.
  const started = Date.now();
  if (built >= newestSource()) return;
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.json')], { cwd: ROOT, encoding: 'utf8' });
  // A type error still emits JavaScript (npm test's type check reports it); a compiler that did not
  // run or was killed stops the tests.
  if (r.error !== undefined || r.signal !== null || !existsSync(QUIRE_CLI)) throw new Error(`building dist/ for the tests failed: ${r.error?.message ?? r.signal ?? ''}\n${r.stdout}${r.stderr}`);
  writeFileSync(BUILD_STAMP, `${new Date(started).toISOString()}\n`);
  utimesSync(BUILD_STAMP, new Date(started), new Date(started));
}
