import alasql from 'alasql';
import type { Dataset } from '../data.js';
import type { EngineAdapter } from '../types.js';
import { packageVersion } from './version.js';

/**
 * AlaSQL with its tables backed by plain JS arrays of row objects (its native storage). Timestamps are
 * Date objects, the JS-native choice; canonicalisation turns them into the common text form.
 */
export async function create(): Promise<EngineAdapter> {
  const db = new alasql.Database();
  return {
    name: 'alasql',
    version: packageVersion('alasql'),
    async load(d: Dataset) {
      db.exec('CREATE TABLE t (id INT, g INT, v FLOAT, k INT, s STRING, ts DATETIME, p INT)');
      db.exec('CREATE TABLE u (g INT PRIMARY KEY, name STRING, w FLOAT)');
      const t: Record<string, unknown>[] = new Array(d.rows);
      for (let i = 0; i < d.rows; i++) {
        t[i] = { id: d.id[i], g: d.g[i], v: d.v[i], k: d.k[i], s: d.sDict[d.sIdx[i]], ts: new Date(d.tsMs[i]), p: d.p[i] };
      }
      const u: Record<string, unknown>[] = new Array(d.uG.length);
      for (let i = 0; i < d.uG.length; i++) u[i] = { g: d.uG[i], name: d.uName[i], w: d.uW[i] };
      // assigning .data is AlaSQL's documented way to attach JS arrays (INSERT would re-validate every row)
      (db.tables as Record<string, { data: unknown[] }>).t.data = t;
      (db.tables as Record<string, { data: unknown[] }>).u.data = u;
    },
    query(sql: string) {
      // AlaSQL returns objects; converting to arrays keeps the shape uniform (a small, per-result-row cost)
      const out = db.exec(sql) as Record<string, unknown>[];
      return out.map((o) => Object.values(o));
    },
    close() {},
  };
}
