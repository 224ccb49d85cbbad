/**
 * read_parquet caches parsed footers per path: a file rewritten in place (another size, or the same size
 * with a new modification time, or with its modification time put back) must be read afresh, never
 * through the old footer's offsets or statistics.
 */
import { copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { parquetWriteFile } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { QuireError } from '../../src/common/errors.js';

let dir: string;
let db: Database;
let duck: DuckDBConnection;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-parquet-footer-'));
  db = await Database.create();
  duck = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect();
});
afterAll(() => {
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

const write = (f: string, n: number, text: string): Promise<unknown> =>
  duck.run(`COPY (SELECT i::INTEGER AS id, '${text}' || i AS s FROM range(${n}) t(i)) TO '${f}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
const read = async (f: string): Promise<unknown[][]> => (await db.query(`SELECT count(*), min(s), max(id) FROM read_parquet('${f}') WHERE id >= 100`)).rows;

describe('read_parquet footer cache', () => {
  it('rereads a file rewritten with another size', async () => {
    const f = join(dir, 'a.parquet');
    await write(f, 5000, 'x');
    expect(await read(f)).toEqual([[4900, 'x100', 4999]]);
    expect(await read(f)).toEqual([[4900, 'x100', 4999]]);
    await write(f, 9000, 'yy');
    expect(await read(f)).toEqual([[8900, 'yy100', 8999]]);
  });

  it('a cached file removed, put back, replaced by a directory or by another file renamed over it', async () => {
    // A cached footer is checked by a stat of the path, without opening the file.
    const f = join(dir, 'gone.parquet');
    const other = join(dir, 'other.parquet');
    await write(f, 3000, 'g');
    await write(other, 4000, 'h');
    expect(await read(f)).toEqual([[2900, 'g100', 2999]]);
    const failure = async (): Promise<QuireError> => (await read(f).then(() => null, (e: unknown) => e)) as QuireError;
    rmSync(f);
    let e = await failure();
    expect(e).toBeInstanceOf(QuireError);
    expect([e.code, e.message]).toEqual(['58P01', `could not open file "${f}" for reading: No such file or directory`]);
    mkdirSync(f);
    e = await failure();
    expect(e).toBeInstanceOf(QuireError);
    expect(e.message).toContain(f);
    rmSync(f, { recursive: true });
    await write(f, 3000, 'g');
    expect(await read(f)).toEqual([[2900, 'g100', 2999]]);
    renameSync(other, f);
    expect(await read(f)).toEqual([[3900, 'h100', 3999]]);
  });

  it('rereads a file rewritten with the same size and a new modification time', async () => {
    // Uncompressed, strings of one length: the two files differ only in their bytes, not in size.
    const make = (f: string, prefix: string): void =>
      parquetWriteFile({
        filename: f,
        codec: 'UNCOMPRESSED',
        columnData: [
          { name: 'id', data: Int32Array.from({ length: 3000 }, (_, i) => i), type: 'INT32' },
          { name: 's', data: Array.from({ length: 3000 }, (_, i) => prefix + String(i).padStart(4, '0')), type: 'STRING' },
        ],
      });
    const a = join(dir, 'a.src');
    const b = join(dir, 'b.src');
    make(a, 'a');
    make(b, 'b');
    expect(statSync(a).size).toBe(statSync(b).size);
    const f = join(dir, 'same.parquet');
    copyFileSync(a, f);
    expect(await read(f)).toEqual([[2900, 'a0100', 2999]]);
    expect((await db.query(`SELECT count(*) FROM read_parquet('${f}') WHERE s >= 'b'`)).rows).toEqual([[0]]);
    copyFileSync(b, f);
    // The copy may land within the clock's resolution of the first: the time is moved on to be sure.
    const later = new Date(Date.now() + 5000);
    utimesSync(f, later, later);
    expect(await read(f)).toEqual([[2900, 'b0100', 2999]]);
    // The old footer's statistics (strings up to 'a2999') would prune the row group.
    expect((await db.query(`SELECT count(*) FROM read_parquet('${f}') WHERE s >= 'b'`)).rows).toEqual([[3000]]);
  });

  it('rereads a file rewritten with the same size and its modification time put back', async () => {
    const make = (f: string, prefix: string): void =>
      parquetWriteFile({
        filename: f,
        codec: 'UNCOMPRESSED',
        columnData: [
          { name: 'id', data: Int32Array.from({ length: 3000 }, (_, i) => i), type: 'INT32' },
          { name: 's', data: Array.from({ length: 3000 }, (_, i) => prefix + String(i).padStart(4, '0')), type: 'STRING' },
        ],
      });
    const a = join(dir, 'c.src');
    const b = join(dir, 'd.src');
    make(a, 'c');
    make(b, 'd');
    const f = join(dir, 'restored.parquet');
    copyFileSync(a, f);
    // A whole second, so the time set back after the rewrite is exactly the same.
    const second = Math.floor(Date.now() / 1000) - 60;
    utimesSync(f, second, second);
    const was = statSync(f);
    expect((await db.query(`SELECT count(*) FROM read_parquet('${f}') WHERE s >= 'd'`)).rows).toEqual([[0]]);
    copyFileSync(b, f);
    utimesSync(f, second, second);
    expect(statSync(f).mtimeMs).toBe(was.mtimeMs);
    expect(statSync(f).size).toBe(was.size);
    // Only the change time tells: the old footer's statistics (up to 'c2999') would prune every row.
    expect((await db.query(`SELECT count(*) FROM read_parquet('${f}') WHERE s >= 'd'`)).rows).toEqual([[3000]]);
    expect(await read(f)).toEqual([[2900, 'd0100', 2999]]);
  });
});
