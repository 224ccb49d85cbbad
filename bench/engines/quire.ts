import { tsText, type Dataset } from '../data.js';
import { canonicalValue } from '../canonical.js';
import type { EngineAdapter } from '../types.js';
import { readFileSync } from 'node:fs';

/** The public contract of src/index.ts that the benchmark relies on (kept local so bench/ builds on its own). */
interface QuireColumn {
  name: string;
  type?: unknown;
}
interface QuireResult {
  columns: QuireColumn[];
  rows: unknown[][];
  rowCount: number;
}
interface QuireDatabase {
  registerRows?(name: string, rows: Record<string, unknown>[], columnTypes?: Record<string, string>): void;
  registerColumns?(name: string, columns: Record<string, ArrayLike<unknown>>, columnTypes?: Record<string, string>, options?: { copy?: boolean }): void;
  query(sql: string, params?: unknown[]): Promise<QuireResult>;
  close?(): unknown;
}

/**
 * Quire's timestamp values are µs since the epoch (src/common/types.ts). registerRows gets timestamps as
 * 'YYYY-MM-DD HH:MM:SS' text rather than Date: a Date is converted through timestamptz and the session
 * time zone, text is parsed as the wall-clock value it spells, which is what the other engines store.
 */
const US_PER_MS = 1000;

function typeName(t: unknown): string {
  if (typeof t === 'string') return t;
  if (t && typeof t === 'object' && 'name' in t) return String((t as { name: unknown }).name);
  return '';
}

export async function create(): Promise<EngineAdapter> {
  // Computed specifier: peers must run even while src/index.ts does not exist or does not compile yet.
  // QUIRE_MODULE (a path from the repo root, e.g. dist/index.js) benchmarks a build instead of the sources.
  const root = new URL('../../', import.meta.url);
  const spec = new URL(process.env.QUIRE_MODULE ?? 'src/index.js', root).href;
  const mod = (await import(spec)) as { Database: { create(): Promise<QuireDatabase> } };
  const db = await mod.Database.create();
  let lastColumns: QuireColumn[] = [];
  let loadPath = '';
  const pkgVersion = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version: string }).version;
  const adapter: EngineAdapter = {
    name: 'quire',
    // a getter, read after load(): which load path ran matters when reading results
    get version() {
      return `${pkgVersion} (${process.env.QUIRE_MODULE ?? 'src'}${loadPath ? `, ${loadPath}` : ''})`;
    },
    async load(d: Dataset) {
      if (typeof db.registerColumns === 'function') {
        // Columns as they are generated: no row objects, timestamps in Quire's representation (µs).
        loadPath = 'registerColumns';
        const ts = new Float64Array(d.rows);
        for (let i = 0; i < d.rows; i++) ts[i] = d.tsMs[i]! * US_PER_MS;
        db.registerColumns(
          't',
          { id: d.id, g: d.g, v: d.v, k: d.k, s: Array.from(d.sIdx, (x) => d.sDict[x]!), ts, p: d.p },
          { id: 'integer', g: 'integer', v: 'double precision', k: 'integer', s: 'text', ts: 'timestamp', p: 'integer' },
        );
        db.registerColumns('u', { g: d.uG, name: d.uName, w: d.uW }, { g: 'integer', name: 'text', w: 'double precision' });
      } else if (typeof db.registerRows === 'function') {
        loadPath = 'registerRows';
        const t: Record<string, unknown>[] = new Array(d.rows);
        for (let i = 0; i < d.rows; i++) {
          t[i] = { id: d.id[i], g: d.g[i], v: d.v[i], k: d.k[i], s: d.sDict[d.sIdx[i]], ts: tsText(d.tsMs[i]), p: d.p[i] };
        }
        db.registerRows('t', t, { id: 'integer', g: 'integer', v: 'double precision', k: 'integer', s: 'text', ts: 'timestamp', p: 'integer' });
        const u: Record<string, unknown>[] = new Array(d.uG.length);
        for (let i = 0; i < d.uG.length; i++) u[i] = { g: d.uG[i], name: d.uName[i], w: d.uW[i] };
        db.registerRows('u', u, { g: 'integer', name: 'text', w: 'double precision' });
      } else {
        // Fallback while registerRows is missing: literal multi-row INSERTs, so the data stays identical.
        loadPath = 'sql-insert';
        await db.query('CREATE TABLE t (id integer, g integer, v double precision, k integer, s text, ts timestamp, p integer)');
        await db.query('CREATE TABLE u (g integer PRIMARY KEY, name text, w double precision)');
        const batch = 1000;
        for (let start = 0; start < d.rows; start += batch) {
          const vals: string[] = [];
          for (let i = start; i < Math.min(d.rows, start + batch); i++) {
            vals.push(`(${d.id[i]},${d.g[i]},${d.v[i]},${d.k[i]},'${d.sDict[d.sIdx[i]]}','${tsText(d.tsMs[i])}',${d.p[i]})`);
          }
          await db.query(`INSERT INTO t VALUES ${vals.join(',')}`);
        }
        for (let start = 0; start < d.uG.length; start += batch) {
          const vals: string[] = [];
          for (let i = start; i < Math.min(d.uG.length, start + batch); i++) vals.push(`(${d.uG[i]},'${d.uName[i]}',${d.uW[i]})`);
          await db.query(`INSERT INTO u VALUES ${vals.join(',')}`);
        }
      }
    },
    async query(sql: string) {
      const r = await db.query(sql);
      lastColumns = r.columns;
      return r.rows;
    },
    canonicalize(rows: unknown[][]) {
      // timestamps come back as µs numbers; only the column type tells them apart from other numbers
      const isTs = lastColumns.map((c) => /^timestamp/.test(typeName(c.type)));
      return rows.map((r) =>
        r.map((x, j) => (isTs[j] && typeof x === 'number' && Number.isFinite(x) ? tsText(x / US_PER_MS) : canonicalValue(x))),
      );
    },
    async close() {
      await db.close?.();
    },
  };
  return adapter;
}
