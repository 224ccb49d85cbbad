/**
 * File readers reserve what they hold from the statement's memory pool: under a memory_limit too small
 * for a Parquet row group, a CSV read buffer or a JSON value, the read fails with 53200 (not a heap
 * crash); under a workable limit the same reads give DuckDB's answers, and every reservation is given
 * back when the statement ends, finished or failed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { QuireError } from '../../src/common/errors.js';
import { processMemoryReserved } from '../../src/execution/memory-pool.js';

let dir: string;
let db: Database;
let duck: DuckDBConnection;
const norm = (rows: unknown[][]): unknown[][] => rows.map((r) => r.map((x) => (typeof x === 'bigint' ? Number(x) : x)));

async function failure(sql: string): Promise<QuireError> {
  try {
    await db.query(sql);
  } catch (e) {
    if (e instanceof QuireError) return e;
    throw e;
  }
  throw new Error(`no error from ${sql}`);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-reader-memory-'));
  db = await Database.create();
  const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
  duck = await inst.connect();
  // One 200,000-row group: its decoded columns need several MB.
  await duck.run(`COPY (SELECT i::INTEGER AS id, i * 0.5 AS v, 'text number ' || i AS s FROM range(200000) t(i))
                  TO '${join(dir, 'big.parquet')}' (FORMAT parquet, ROW_GROUP_SIZE 200000)`);
  await duck.run(`COPY (SELECT i AS id, 'row ' || i AS s FROM range(50000) t(i)) TO '${join(dir, 'rows.csv')}' (FORMAT csv, HEADER)`);
  await duck.run(`COPY (SELECT i AS id, 'row ' || i AS s FROM range(50000) t(i)) TO '${join(dir, 'rows.ndjson')}' (FORMAT json)`);
  writeFileSync(join(dir, 'huge.ndjson'), `{"id": 1, "s": "short"}\n{"id": 2, "s": "${'x'.repeat(3_000_000)}"}\n`);
});
afterAll(async () => {
  await db.query('RESET memory_limit');
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

describe('readers and memory_limit', () => {
  it('read_parquet: a row group larger than memory_limit is refused with 53200 naming the file', async () => {
    const f = join(dir, 'big.parquet');
    const before = processMemoryReserved();
    await db.query(`SET memory_limit = '2MB'`);
    const e = await failure(`SELECT count(*), CAST(sum(v) AS float8), max(s) FROM read_parquet('${f}')`);
    expect(e.code).toBe('53200');
    expect(e.detail).toContain(f);
    expect(processMemoryReserved()).toBe(before);
    await db.query(`SET memory_limit = '64MB'`);
    const sql = `SELECT count(*), CAST(sum(v) AS float8), max(s) FROM read_parquet('${f}')`;
    expect(norm((await db.query(sql)).rows)).toEqual(norm((await duck.runAndReadAll(sql)).getRows() as unknown[][]));
    expect(processMemoryReserved()).toBe(before);
  });

  it('read_parquet: each row group is given back when the next starts, also when only a filter reads a column', async () => {
    // 40 row groups of 10,000 rows; k is read by the filter only (never stored), v is summed, s counted.
    const f = join(dir, 'groups.parquet');
    await duck.run(`COPY (SELECT i::INTEGER AS id, ((i * 7919) % 1000)::INTEGER AS k, i * 0.5 AS v, 'text ' || (i % 300) AS s
                    FROM range(400000) t(i)) TO '${f}' (FORMAT parquet, ROW_GROUP_SIZE 10000)`);
    const before = processMemoryReserved();
    // A few row groups' worth: all 40 held at once would need far more.
    await db.query(`SET memory_limit = '3MB'`);
    try {
      for (const sql of [
        `SELECT count(*), CAST(sum(v) AS float8), count(s) FROM read_parquet('${f}') WHERE k < 500`,
        `SELECT count(*), CAST(sum(v) AS float8) FROM read_parquet('${f}') WHERE k < 500 AND id >= 1000`,
        `SELECT count(*) FROM read_parquet('${f}') WHERE k = 3`,
      ]) {
        expect(norm((await db.query(sql)).rows), sql).toEqual(norm((await duck.runAndReadAll(sql)).getRows() as unknown[][]));
      }
    } finally {
      await db.query('RESET memory_limit');
    }
    expect(processMemoryReserved()).toBe(before);
  });

  it('read_parquet: a column only counted reserves its NULL flags, not its decoded values', async () => {
    const f = join(dir, 'big.parquet');
    const before = processMemoryReserved();
    await db.query(`SET memory_limit = '4MB'`);
    try {
      expect((await failure(`SELECT max(s) FROM read_parquet('${f}')`)).code).toBe('53200');
      const sql = `SELECT count(s), count(*) FILTER (WHERE s IS NULL) FROM read_parquet('${f}')`;
      expect(norm((await db.query(sql)).rows)).toEqual(norm((await duck.runAndReadAll(sql)).getRows() as unknown[][]));
    } finally {
      await db.query('RESET memory_limit');
    }
    expect(processMemoryReserved()).toBe(before);
  });

  it('read_csv: read buffers beyond memory_limit are refused with 53200', async () => {
    const f = join(dir, 'rows.csv');
    await db.query(`SET memory_limit = '256kB'`);
    const e = await failure(`SELECT count(*) FROM read_csv('${f}')`);
    expect(e.code).toBe('53200');
    expect(e.detail).toContain('read_csv');
    // A smaller buffer fits the same limit.
    const sql = `SELECT count(*), max(s) FROM read_csv('${f}', buffer_size => 16384)`;
    await db.query(`SET memory_limit = '2MB'`);
    const got = norm((await db.query(sql)).rows);
    expect(got).toEqual(norm((await duck.runAndReadAll(`SELECT count(*), max(s) FROM read_csv('${f}')`)).getRows() as unknown[][]));
  });

  it('read_json: read buffers beyond memory_limit are refused with 53200', async () => {
    await db.query(`SET memory_limit = '512kB'`);
    const e = await failure(`SELECT count(*) FROM read_json('${join(dir, 'rows.ndjson')}')`);
    expect(e.code).toBe('53200');
    expect(e.detail).toContain('read_json');
  });

  it('read_json: a value larger than memory_limit is refused with 53200; ordinary records read', async () => {
    await db.query(`SET memory_limit = '2MB'`);
    const e = await failure(`SELECT count(*) FROM read_json('${join(dir, 'huge.ndjson')}')`);
    expect(e.code).toBe('53200');
    expect(e.detail).toContain('huge.ndjson');
    const sql = `SELECT count(*), max(s), CAST(sum(id) AS BIGINT) FROM read_json('${join(dir, 'rows.ndjson')}')`;
    expect(norm((await db.query(sql)).rows)).toEqual(norm((await duck.runAndReadAll(sql)).getRows() as unknown[][]));
  });
});
