/**
 * The package as another project gets it: `npm pack` holds the built library and the CLI (not the
 * tests), and a project that installs the tarball imports { Database } from 'quire' and runs `quire`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'quire-pack-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm pack', () => {
  it('installs into another project, which imports quire and runs its CLI', () => {
    const out = execFileSync('npm', ['pack', '--pack-destination', dir, '--json'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const info = JSON.parse(out) as { filename: string; files: { path: string }[] }[];
    const files = info[0]!.files.map((f) => f.path);
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    expect(files).toContain('bin/quire.js');
    expect(files.some((f) => f.startsWith('test/') || f.startsWith('src/') || f.startsWith('.ci/'))).toBe(false);
    const app = join(dir, 'app');
    execFileSync('mkdir', ['-p', app]);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', type: 'module', private: true }));
    execFileSync('npm', ['install', join(dir, info[0]!.filename), '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline'], { cwd: app, stdio: 'ignore' });
    writeFileSync(join(app, 'main.js'), "import { Database } from 'quire';\nconst db = await Database.create();\nconsole.log(JSON.stringify((await db.query('select sum(x)::int from generate_series(1, 10) x')).rows));\n");
    expect(execFileSync(process.execPath, ['main.js'], { cwd: app, encoding: 'utf8' }).trim()).toBe('[[55]]');
    expect(execFileSync(join(app, 'node_modules', '.bin', 'quire'), ['-At', '-c', 'select 6 * 7'], { cwd: app, encoding: 'utf8' }).trim()).toBe('42');
    expect(readdirSync(join(app, 'node_modules', 'quire'))).not.toContain('test');
  }, 300_000);
});
