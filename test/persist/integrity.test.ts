/**
 * A database directory's integrity: one writer per directory (a second one gets 55006 naming the
 * holder, a killed holder's lock is taken over), read-only opens that never write, checksummed table
 * files (a flipped byte is XX001 naming the file and table), and a validated manifest: damage is an
 * error with advice, never an empty database and never a deleted file.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

const root = mkdtempSync(join(tmpdir(), 'quire-integrity-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const TSX = createRequire(import.meta.url).resolve('tsx');
let n = 0;

async function made(): Promise<string> {
  const dir = join(root, `d${++n}`);
  const db = await Database.create({ path: dir });
  await db.query(`CREATE TABLE t AS SELECT i AS id, 'row ' || i AS s FROM generate_series(1, 1000) i`);
  await db.query(`CREATE TABLE u (x int)`);
  await db.query(`INSERT INTO u VALUES (1), (2)`);
  await db.close();
  return dir;
}

function tableFile(dir: string, stem: string): string {
  return join(dir, readdirSync(dir).find((f) => f.startsWith(`${stem}.`) && f.endsWith('.qtb'))!);
}

function snapshot(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .map((f) => `${f}:${statSync(join(dir, f)).isFile() ? readFileSync(join(dir, f)).toString('base64') : 'dir'}`);
}

describe('one writer per directory', () => {
  it('refuses a second writer in the same process, and serves it once the first closes', async () => {
    const dir = await made();
    const a = await Database.create({ path: dir });
    await expect(Database.create({ path: dir })).rejects.toMatchObject({ code: '55006' });
    await a.close();
    const b = await Database.create({ path: dir });
    expect((await b.query('SELECT count(*) FROM u')).rows).toEqual([[2]]);
    await b.close();
  });

  it('names another process holding the lock, and takes over the lock of a killed one', async () => {
    const dir = await made();
    const holder = fileURLToPath(new URL('./lock-holder.ts', import.meta.url));
    const p = spawn(process.execPath, ['--import', TSX, holder, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => p.stdout!.once('data', () => resolve()));
    const err = await Database.create({ path: dir }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: '55006' });
    expect((err as Error).message).toContain(`process ${p.pid}`);
    // A reader is not blocked by the writer.
    const reader = await Database.create({ path: dir, readOnly: true });
    expect((await reader.query('SELECT count(*) FROM t')).rows).toEqual([[1000]]);
    p.kill('SIGKILL');
    await new Promise((r) => p.once('exit', r));
    const next = await Database.create({ path: dir });
    await next.query('INSERT INTO u VALUES (3)');
    expect((await next.query('SELECT count(*) FROM u')).rows).toEqual([[3]]);
    await next.close();
  });
});

describe('read-only opens', () => {
  it('never write or delete anything; writes are refused with 25006', async () => {
    const dir = await made();
    writeFileSync(join(dir, '.t.7.qtb.tmp-1'), 'leftover of someone else');
    const before = snapshot(dir);
    const db = await Database.create({ path: dir, readOnly: true });
    expect((await db.query('SELECT sum(x) FROM u')).rows).toEqual([[3]]);
    await expect(db.query('INSERT INTO u VALUES (9)')).rejects.toMatchObject({ code: '25006' });
    await expect(db.query('CREATE TABLE v (a int)')).rejects.toMatchObject({ code: '25006' });
    // Refused before running: nothing changed in memory either.
    expect((await db.query('SELECT sum(x) FROM u')).rows).toEqual([[3]]);
    await db.close();
    expect(snapshot(dir)).toEqual(before);
    await expect(Database.create({ path: join(root, 'nosuch'), readOnly: true })).rejects.toMatchObject({ code: '58P01' });
  });
});

describe('checksums', () => {
  it('a flipped byte in a column is XX001 naming the file and table', async () => {
    const dir = await made();
    const f = tableFile(dir, 't');
    const buf = readFileSync(f);
    buf[100] = buf[100]! ^ 0x04;
    writeFileSync(f, buf);
    const err = await Database.create({ path: dir }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'XX001' });
    expect((err as Error).message).toMatch(/table file "t\.\d+\.qtb" of table "t" is corrupt: checksum mismatch/);
  });

  it('a truncated file and a damaged footer are XX001 naming the file', async () => {
    for (const damage of [(b: Buffer) => b.subarray(0, b.length - 5), (b: Buffer) => Buffer.concat([b.subarray(0, b.length - 30), Buffer.from('x'), b.subarray(b.length - 29)])]) {
      const dir = await made();
      const f = tableFile(dir, 'u');
      writeFileSync(f, damage(readFileSync(f)));
      const err = await Database.create({ path: dir }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'XX001' });
      expect((err as Error).message).toMatch(/table file "u\.\d+\.qtb" of table "u"/);
    }
  });
});

describe('the manifest', () => {
  it('a deleted manifest is an error and no table file is deleted', async () => {
    const dir = await made();
    unlinkSync(join(dir, 'manifest.json'));
    const before = snapshot(dir);
    const err = await Database.create({ path: dir }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'XX001' });
    expect((err as Error).message).toContain('no manifest.json');
    expect(snapshot(dir)).toEqual(before);
  });

  it('an empty object, another version, another table\'s file and paths outside the directory are refused', async () => {
    const dir = await made();
    const good = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { tables: { name: string; file: string }[] };
    const uFile = good.tables.find((t) => t.name === 'u')!.file;
    const edits: [unknown, RegExp][] = [
      [{}, /unsupported version/],
      [{ ...good, version: 2 }, /unsupported version 2/],
      [{ ...good, tables: good.tables.map((t) => (t.name === 't' ? { ...t, file: uFile } : t)) }, /not one of its table files/],
      [{ ...good, tables: good.tables.map((t) => (t.name === 't' ? { ...t, file: '../t.1.qtb' } : t)) }, /not one of its table files/],
      [{ ...good, tables: good.tables.map((t) => (t.name === 't' ? { ...t, file: 't.999.qtb' } : t)) }, /cannot be read/],
    ];
    for (const [m, msg] of edits) {
      writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m));
      const before = snapshot(dir);
      const err = await Database.create({ path: dir }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'XX001' });
      expect((err as Error).message).toMatch(msg);
      expect(snapshot(dir)).toEqual(before);
    }
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(good));
    const db = await Database.create({ path: dir });
    expect((await db.query('SELECT count(*) FROM t')).rows).toEqual([[1000]]);
    await db.close();
  });
});
