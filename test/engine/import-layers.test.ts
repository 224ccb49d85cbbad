/**
 * Layers import only downward (docs/architecture.md). Every relative import of every file under src/
 * — value, type-only, re-export, dynamic import() and inline import('…') types — is checked against
 * the order below; a layer may import itself and anything beneath it.
 *
 * execution/ (ExecContext, memory pool, interrupts, scheduler, spill files) is run-time support that
 * storage readers and physical operators use, so it sits above the plans that are handed a running
 * statement (logical/statement-context.ts is the part of ExecContext plans may name) and below storage.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

/** Bottom to top. `index.ts` at the root of src/ is the public entry point. */
const LAYERS = ['common', 'functions', 'logical', 'execution', 'storage', 'sql', 'optimizer', 'physical', 'cursor', 'api', 'index.ts', 'server', 'demo', 'cli'];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** The layer of a path relative to src/: its first folder, or the file itself at the root. */
function layerOf(rel: string): string {
  return rel.split(sep)[0]!;
}

const SPECIFIERS = [
  /\b(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]/g,
  /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g,
];

/** Relative imports of `file` that reach a higher layer, as `from -> to` (paths relative to src/). */
function upwardImports(root: string): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(root)) {
    const rel = relative(root, file);
    const from = layerOf(rel);
    const rank = LAYERS.indexOf(from);
    const text = readFileSync(file, 'utf8');
    for (const re of SPECIFIERS) {
      for (const m of text.matchAll(re)) {
        // Imports name the compiled .js file of a .ts source.
        const target = normalize(join(dirname(rel), m[1]!)).replace(/\.js$/, '.ts');
        const to = layerOf(target);
        if (to === from) continue;
        const toRank = LAYERS.indexOf(to);
        if (rank < 0 || toRank < 0 || toRank > rank) found.push(`${rel} -> ${target} (${from} imports ${to})`);
      }
    }
  }
  return [...new Set(found)].sort();
}

describe('import layers', () => {
  it('every folder of src/ has a layer', () => {
    const folders = readdirSync(SRC).filter((n) => statSync(join(SRC, n)).isDirectory() || n.endsWith('.ts'));
    expect(folders.filter((f) => !LAYERS.includes(f))).toEqual([]);
  });

  it('no file imports from a layer above its own', () => {
    expect(upwardImports(SRC)).toEqual([]);
  });

  it('the check sees the import forms it claims to', () => {
    const text = [
      "import type { ExecContext } from '../execution/context.js';",
      "export { x } from '../physical/y.js';",
      "type B = import('../api/database.js').Database;",
      "const m = await import('../server/z.js');",
      "import { ok } from './same-layer.js';",
    ].join('\n');
    const hits = SPECIFIERS.flatMap((re) => [...text.matchAll(re)].map((m) => m[1]));
    expect(hits.sort()).toEqual(['../api/database.js', '../execution/context.js', '../physical/y.js', '../server/z.js', './same-layer.js']);
  });
});
