import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BenchCase } from '../types.js';

/**
 * Every other .ts file in this folder is a case (default export), so adding a case is adding a file.
 * Sorted by file name for a stable order in tables and results.json.
 */
export async function loadCases(): Promise<BenchCase[]> {
  const dir = fileURLToPath(new URL('.', import.meta.url));
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && f !== 'index.ts' && !f.endsWith('.d.ts'))
    .sort();
  const cases: BenchCase[] = [];
  for (const f of files) {
    const m = (await import(new URL(f, import.meta.url).href)) as { default?: BenchCase };
    if (!m.default?.name || typeof m.default.sql !== 'function') throw new Error(`bench/cases/${f}: default export is not a BenchCase`);
    cases.push(m.default);
  }
  const names = new Set<string>();
  for (const c of cases) {
    if (names.has(c.name)) throw new Error(`duplicate case name ${c.name}`);
    names.add(c.name);
  }
  return cases;
}
