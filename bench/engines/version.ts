import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** Installed version of a dependency, for results.json (engine versions matter when comparing runs). */
export function packageVersion(pkg: string): string {
  try {
    // resolve the main entry, then walk up to the package.json that names this package
    let dir = dirname(require.resolve(pkg));
    for (let i = 0; i < 6; i++) {
      try {
        const j = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
        if (j.name === pkg && j.version) return j.version;
      } catch {
        // no package.json at this level
      }
      dir = dirname(dir);
    }
  } catch {
    // not resolvable
  }
  return 'unknown';
}
