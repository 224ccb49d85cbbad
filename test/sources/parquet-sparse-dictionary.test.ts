/**
 * A text column read at a few rows picked by a row filter decodes only the dictionary entries those rows
 * use (its dictionary has too many entries per row for codes). Answers must equal DuckDB's reading the
 * same file and Quire's own without the pushdown: NULLs, multibyte and long values, entries shared by
 * several picked rows, several row groups.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

const N = 60_000;
let dir: string;
let file: string;
let db: Database;
let duck: DuckDBConnection;
const norm = (rows: unknown[][]): unknown[][] => rows.map((r) => r.map((x) => (typeof x === 'bigint' ? Number(x) : x)));
const quire = async (sql: string): Promise<unknown[][]> => norm((await db.query(sql)).rows);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quire-parquet-sparse-dict-'));
  file = join(dir, 'dict.parquet');
  db = await Database.create();
  const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
  duck = await inst.connect();
  // 1,200 distinct t per row group of 10,000 rows (a dictionary, as DuckDB writes it, without codes): ASCII, multibyte, and long (over 16 bytes) values.
  await duck.run(`COPY (SELECT i::INTEGER AS id, ((i * 7919) % 1000)::INTEGER AS k,
                   CASE WHEN i % 11 = 0 THEN NULL
                        WHEN i % 3 = 0 THEN 'ñame ' || ((i * 7) % 400)
                        WHEN i % 3 = 1 THEN 'plain' || ((i * 7) % 400)
                        ELSE 'a rather longer value number ' || ((i * 7) % 400) END AS t
                 FROM range(${N}) t(i)) TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 10000)`);
});
afterAll(() => {
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

const QUERIES = [
  `SELECT id, t FROM read_parquet('$F') WHERE k = 17 ORDER BY id`,
  `SELECT id, t FROM read_parquet('$F') WHERE k < 4 AND id > 15000 ORDER BY id`,
  `SELECT min(t), max(t), count(t), count(DISTINCT t) FROM read_parquet('$F') WHERE k BETWEEN 100 AND 120`,
  `SELECT t, count(*) FROM read_parquet('$F') WHERE k >= 990 GROUP BY t ORDER BY t LIMIT 50`,
];

describe('read_parquet decodes the dictionary entries picked rows use', () => {
  for (const q of QUERIES) {
    it(q.replace(`'$F'`, '…'), async () => {
      const sql = q.replaceAll('$F', file);
      const got = await quire(sql);
      expect(got.length).toBeGreaterThan(0);
      expect(got).toEqual(norm((await duck.runAndReadAll(sql)).getRows() as unknown[][]));
      await db.query(`SET quire.disabled_rules = 'push-into-table-function'`);
      try {
        expect(await quire(sql)).toEqual(got);
      } finally {
        await db.query('RESET quire.disabled_rules');
      }
    });
  }
});
