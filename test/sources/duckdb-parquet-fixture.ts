/**
 * A Parquet file written by DuckDB for a test file's queries, read by Quire and DuckDB alike.
 *
 * duckdbParquetFixture registers the suite's beforeAll/afterAll: a temporary directory, the file
 * written by `COPY (select) TO file (FORMAT parquet, options)`, a Quire database and a DuckDB
 * connection (threads=1). sameAsDuckDbAndUnpushed checks a query's answer against DuckDB's and
 * against Quire's own with push-into-table-function switched off (the reader's fast paths against
 * the plain scan under a Filter).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, expect } from 'vitest';
import { Database } from '../../src/index.js';

/** bigint → number, so Quire's and DuckDB's integers compare. */
export const normRows = (rows: unknown[][]): unknown[][] => rows.map((r) => r.map((x) => (typeof x === 'bigint' ? Number(x) : x)));

export interface DuckDbParquetFixture {
  /** The temporary directory (removed after the suite), for further files. */
  readonly dir: string;
  readonly file: string;
  readonly db: Database;
  readonly duck: DuckDBConnection;
  quire(sql: string): Promise<unknown[][]>;
  duckdb(sql: string): Promise<unknown[][]>;
  /** Runs f with push-into-table-function switched off. */
  unpushed<R>(f: () => Promise<R>): Promise<R>;
  /** Runs f with the optimizer rule `rule` switched off. */
  withoutRule<R>(rule: string, f: () => Promise<R>): Promise<R>;
  /** Quire's EXPLAIN of sql (`$F` in it is the file), one line of text per plan line. */
  explain(sql: string): Promise<string>;
  /**
   * `$F` in sql is the file. Quire's answer must equal DuckDB's (for `duckSql`, default the same
   * query: e.g. with sums cast to BIGINT, which Quire returns as numeric) and Quire's own without the
   * pushdown; returns Quire's answer.
   */
  sameAsDuckDbAndUnpushed(sql: string, duckSql?: (sql: string) => string): Promise<unknown[][]>;
}

export function duckdbParquetFixture(name: string, select: string, options = ''): DuckDbParquetFixture {
  const state = {} as { dir: string; file: string; db: Database; duck: DuckDBConnection };
  const fixture: DuckDbParquetFixture = {
    get dir() {
      return state.dir;
    },
    get file() {
      return state.file;
    },
    get db() {
      return state.db;
    },
    get duck() {
      return state.duck;
    },
    quire: async (sql) => normRows((await state.db.query(sql)).rows),
    duckdb: async (sql) => normRows((await state.duck.runAndReadAll(sql)).getRows() as unknown[][]),
    unpushed: (f) => fixture.withoutRule('push-into-table-function', f),
    async withoutRule(rule, f) {
      await state.db.query(`SET quire.disabled_rules = '${rule}'`);
      try {
        return await f();
      } finally {
        await state.db.query('RESET quire.disabled_rules');
      }
    },
    explain: async (sql) => (await state.db.query(`EXPLAIN ${sql.replaceAll('$F', state.file)}`)).rows.map((r) => String(r[0])).join('\n'),
    async sameAsDuckDbAndUnpushed(q, duckSql) {
      const sql = q.replaceAll('$F', state.file);
      const got = await fixture.quire(sql);
      const forDuck = duckSql === undefined ? sql : duckSql(sql);
      expect(await fixture.quire(forDuck), 'against DuckDB').toEqual(await fixture.duckdb(forDuck));
      expect(await fixture.unpushed(() => fixture.quire(sql)), 'without the pushdown').toEqual(got);
      return got;
    },
  };
  beforeAll(async () => {
    state.dir = mkdtempSync(join(tmpdir(), `quire-${name}-`));
    state.file = join(state.dir, `${name}.parquet`);
    state.db = await Database.create();
    state.duck = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect();
    await state.duck.run(`COPY (${select}) TO '${state.file}' (FORMAT parquet${options === '' ? '' : `, ${options}`})`);
  });
  afterAll(async () => {
    state.duck?.closeSync();
    await state.db?.close();
    if (state.dir !== undefined) rmSync(state.dir, { recursive: true, force: true });
  });
  return fixture;
}
