/**
 * The compiled engine (dist/, `npm run build`) for tests that start `quire` or a script as a child
 * process. A child on dist/ starts in about 0.7 s; through tsx's loader over src/ it took 1.7 s (and
 * about three times the CPU), and the suite starts a few hundred. It is also what users run:
 * bin/quire.js loads dist/cli/main.js.
 *
 * test/global-setup.ts rebuilds dist/ before the tests whenever a file under src/ is newer than the
 * last build, so a child never runs code older than the test beside it.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');

/** The CLI's compiled entry (what bin/quire.js loads): `node QUIRE_CLI args…`. */
export const QUIRE_CLI = join(ROOT, 'dist', 'cli', 'main.js');

/** Written after each build by the global setup; its time is the build's. Kept out of dist/, which is packed. */
export const BUILD_STAMP = join(ROOT, 'node_modules', '.cache', 'quire-tests', 'dist-built');

/** The latest modification time (ms) of the files the build reads: src/ and tsconfig.json. */
export function newestSource(): number {
  let newest = statSync(join(ROOT, 'tsconfig.json')).mtimeMs;
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  walk(join(ROOT, 'src'));
  return newest;
}
