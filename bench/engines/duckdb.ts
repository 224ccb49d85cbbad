import { DuckDBInstance, DuckDBTimestampValue, type DuckDBConnection } from '@duckdb/node-api';
import type { Dataset } from '../data.js';
import type { EngineAdapter } from '../types.js';
import { packageVersion } from './version.js';

/**
 * DuckDB through @duckdb/node-api, in memory, threads=1: every other engine here runs on one core, so
 * DuckDB's parallelism would measure the machine, not the engine.
 */
export async function create(): Promise<EngineAdapter> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const conn: DuckDBConnection = await instance.connect();
  await conn.run('SET threads = 1');
  return {
    name: 'duckdb',
    version: packageVersion('@duckdb/node-api'),
    async load(d: Dataset) {
      // No UNIQUE / PRIMARY KEY on t: an index would let an engine skip the sort that ORDER BY id measures.
      await conn.run('CREATE TABLE t (id INTEGER, g INTEGER, v DOUBLE, k INTEGER, s VARCHAR, ts TIMESTAMP, p INTEGER)');
      await conn.run('CREATE TABLE u (g INTEGER PRIMARY KEY, name VARCHAR, w DOUBLE)');
      // The appender is DuckDB's bulk path; row-at-a-time calls are fine since load time is not measured.
      const at = await conn.createAppender('t');
      for (let i = 0; i < d.rows; i++) {
        at.appendInteger(d.id[i]);
        at.appendInteger(d.g[i]);
        at.appendDouble(d.v[i]);
        at.appendInteger(d.k[i]);
        at.appendVarchar(d.sDict[d.sIdx[i]]);
        at.appendTimestamp(new DuckDBTimestampValue(BigInt(d.tsMs[i]) * 1000n));
        at.appendInteger(d.p[i]);
        at.endRow();
      }
      at.closeSync();
      const au = await conn.createAppender('u');
      for (let i = 0; i < d.uG.length; i++) {
        au.appendInteger(d.uG[i]);
        au.appendVarchar(d.uName[i]);
        au.appendDouble(d.uW[i]);
        au.endRow();
      }
      au.closeSync();
      await conn.run('CHECKPOINT');
    },
    async query(sql: string) {
      const reader = await conn.runAndReadAll(sql);
      // getRowsJS converts to plain JS values (Date, bigint, number), the closest to what the others return
      return reader.getRowsJS() as unknown[][];
    },
    close() {
      conn.closeSync();
      instance.closeSync();
    },
  };
}
