import Database from 'better-sqlite3';
import { tsText, type Dataset } from '../data.js';
import type { EngineAdapter } from '../types.js';
import { packageVersion } from './version.js';

/** better-sqlite3, in memory. Timestamps are stored as 'YYYY-MM-DD HH:MM:SS' text, SQLite's own convention. */
export async function create(): Promise<EngineAdapter> {
  const db = new Database(':memory:');
  // Temp b-trees (GROUP BY / ORDER BY sorters) otherwise go to temp files on disk, even for an in-memory
  // database: that would measure the disk, not the engine.
  db.exec('PRAGMA temp_store = MEMORY');
  return {
    name: 'sqlite',
    version: `${packageVersion('better-sqlite3')} (SQLite ${(db.prepare('select sqlite_version()').pluck().get() as string)})`,
    async load(d: Dataset) {
      db.exec('CREATE TABLE t (id INTEGER, g INTEGER, v REAL, k INTEGER, s TEXT, ts TEXT, p INTEGER)');
      db.exec('CREATE TABLE u (g INTEGER PRIMARY KEY, name TEXT, w REAL)');
      const insT = db.prepare('INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?)');
      const insU = db.prepare('INSERT INTO u VALUES (?, ?, ?)');
      // one transaction: otherwise every INSERT is its own commit
      db.transaction(() => {
        for (let i = 0; i < d.rows; i++) insT.run(d.id[i], d.g[i], d.v[i], d.k[i], d.sDict[d.sIdx[i]], tsText(d.tsMs[i]), d.p[i]);
        for (let i = 0; i < d.uG.length; i++) insU.run(d.uG[i], d.uName[i], d.uW[i]);
      })();
      db.exec('ANALYZE'); // give the planner statistics, as a DBA would
    },
    query(sql: string) {
      // prepare per run: Quire parses and plans on every query(), so SQLite pays the same
      return db.prepare(sql).raw(true).all() as unknown[][];
    },
    close() {
      db.close();
    },
  };
}
