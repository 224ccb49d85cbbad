/**
 * Every test/slt/**\/*.slt file runs twice: on PGlite (real PostgreSQL 17, which keeps the expected results
 * honest) and on Quire. Each file is one test per engine, run on a fresh database.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { newConnection, newPglite, resetPglite, type EngineName, type SqlConnection } from '../harness/connection.js';
import { formatFailure, runSltFile } from '../harness/slt.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..', '..');

function sltFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sltFiles(p));
    else if (name.endsWith('.slt')) out.push(p);
  }
  return out;
}

// Until the engine's entry point exists the Quire half is skipped, not failed: the harness is written ahead
// of the engine. Once src/api/database.ts exists every failure is real.
const quireExists = existsSync(join(root, 'src', 'api', 'database.ts')) && existsSync(join(root, 'src', 'index.ts'));

const files = sltFiles(here);

// One PGlite for all files, reset between them: a new instance per file costs more than the file itself.
let shared: Promise<SqlConnection> | undefined;
async function postgres(): Promise<SqlConnection> {
  shared ??= newPglite();
  const c = await shared;
  await resetPglite(c);
  return c;
}
afterAll(async () => {
  if (shared !== undefined) await (await shared).close?.();
});

describe.each(files.map((f) => [relative(root, f), f]))('%s', (name, path) => {
  const engines: EngineName[] = ['postgres', 'quire'];
  for (const engine of engines) {
    it.skipIf(engine === 'quire' && !quireExists)(engine, async () => {
      const conn = engine === 'postgres' ? await postgres() : await newConnection(engine);
      try {
        const s = await runSltFile(path, engine, conn);
        const report = s.failures.map(formatFailure).join('\n\n');
        expect(s.failures.length, `${name} on ${engine}: ${s.failures.length} failure(s)\n\n${report}`).toBe(0);
        expect(s.ran).toBeGreaterThan(0);
      } finally {
        if (engine === 'quire') await conn.close?.();
      }
    });
  }
});
