import { PGlite } from '@electric-sql/pglite';
import { csvChunks, type Dataset } from '../data.js';
import type { EngineAdapter } from '../types.js';
import { packageVersion } from './version.js';

const NUMERIC_OID = 1700;

/**
 * A numeric as PostgreSQL prints it. PGlite returns numerics as strings, which the result check
 * compared as text against the other engines' numbers and called wrong; as an object that prints its
 * digits it is compared as the other engines' decimals are (canonical.ts).
 */
class DecimalText {
  constructor(private readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/**
 * PGlite: PostgreSQL compiled to WASM, single connection, single process (no parallel workers), with
 * PostgreSQL's default settings (work_mem 4MB etc.), i.e. what a user gets out of the box.
 */
export async function create(): Promise<EngineAdapter> {
  const pg = await PGlite.create();
  return {
    name: 'pglite',
    version: packageVersion('@electric-sql/pglite'),
    async load(d: Dataset) {
      await pg.exec(`
        CREATE TABLE t (id integer, g integer, v double precision, k integer, s text, ts timestamp, p integer);
        CREATE TABLE u (g integer PRIMARY KEY, name text, w double precision);`);
      // COPY from an in-memory blob is PGlite's bulk-load path; String(double) round-trips exactly.
      const copy = async (table: 't' | 'u'): Promise<void> => {
        const blob = new Blob([...csvChunks(d, table)], { type: 'text/csv' });
        await pg.query(`COPY ${table} FROM '/dev/blob' WITH (FORMAT csv)`, [], { blob });
      };
      await copy('t');
      await copy('u');
      // statistics and visibility map, as after any bulk load; one statement per call because a multi-statement
      // exec is one implicit transaction, and VACUUM refuses to run inside one
      await pg.exec('VACUUM ANALYZE t');
      await pg.exec('VACUUM ANALYZE u');
    },
    async query(sql: string) {
      const r = await pg.query<unknown[]>(sql, [], { rowMode: 'array', parsers: { [NUMERIC_OID]: (text: string) => new DecimalText(text) } });
      return r.rows;
    },
    async close() {
      await pg.close();
    },
  };
}
