/**
 * DuckDB's sqllogictest files must not regress on Quire: per file, the statements whose outcome is
 * DuckDB's stay at or above duckdb-floor.json (Quire alone; PostgreSQL's side is the report's, see
 * scripts/conformance-duckdb.ts --write-floor). Two child processes run half the files each.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runDuckFilesIsolated } from '../harness/duckdb-conformance.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const floor = JSON.parse(readFileSync(join(here, 'duckdb-floor.json'), 'utf8')) as { files: Record<string, number> };

describe("DuckDB's sqllogictest files on Quire", () => {
  it('every file passes at least its floor', { timeout: 900_000 }, async () => {
    const files = Object.keys(floor.files);
    const halves = [files.filter((_, i) => i % 2 === 0), files.filter((_, i) => i % 2 === 1)];
    const reports = (await Promise.all(halves.map((half) => runDuckFilesIsolated(half, 20_000, false)))).flat();
    const below = reports
      .filter((r) => r.passed < floor.files[r.file]!)
      .map((r) => {
        const failing = r.statements.filter((s) => s.status === 'fail').slice(0, 5);
        return `${r.file}: ${r.passed} passed (floor ${floor.files[r.file]})\n${failing.map((s) => `  :${s.line} ${s.sql.slice(0, 100)}\n      ${s.detail ?? ''}`).join('\n')}`;
      });
    expect(below, below.join('\n')).toEqual([]);
    expect(reports.length).toBe(files.length);
  });
});
