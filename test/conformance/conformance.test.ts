/**
 * PostgreSQL regression-suite conformance must not regress: per file, Quire's pass count stays at or above
 * the floor in floor.json. Raise the floor when Quire gets better:
 *   npx tsx scripts/conformance.ts   (prints the table; copy the passed column into floor.json)
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runConformanceFileIsolated } from '../harness/conformance.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..', '..');
const quireExists = existsSync(join(root, 'src', 'api', 'database.ts')) && existsSync(join(root, 'src', 'index.ts'));
const floor = JSON.parse(readFileSync(join(here, 'floor.json'), 'utf8')) as { files: Record<string, number> };

describe('PostgreSQL regression tests on Quire', () => {
  for (const [file, min] of Object.entries(floor.files)) {
    it.skipIf(!quireExists)(`${file}: at least ${min} statements pass`, { timeout: 600_000 }, async () => {
      // In a child process, so a statement that never finishes costs a timeout, not the whole suite.
      const r = await runConformanceFileIsolated(file, 'quire', 20_000);
      const failing = r.statements
        .filter((s) => s.status === 'fail' || s.status === 'error')
        .slice(0, 15)
        .map((s) => `  ${file}.sql:${s.line} ${s.sql.replace(/\s+/g, ' ').slice(0, 100)}\n      ${s.detail ?? ''}`);
      expect(r.passed, `${file}: ${r.passed}/${r.total} passed (floor ${min}); first failures:\n${failing.join('\n')}`).toBeGreaterThanOrEqual(min);
    });
  }
});
