/**
 * Whole-statement differential checks: the same SQL (DDL and queries) through Quire's Database and
 * PGlite, results compared as PostgreSQL text output row by row, errors by SQLSTATE and message. Used
 * where the parser and binder are under test too (operator syntax, SIMILAR TO, aggregates in windows),
 * not just the function implementation the harness calls directly.
 */
import type { PGlite } from '@electric-sql/pglite';
import { Database, QuireError, formatValue } from '../../src/index.js';
import { rawParsers } from '../aggregate/helpers.js';
import { startPg } from '../common/pg-helper.js';
import { Pg } from './harness.js';

export type SqlOutcome = { columns: string[]; rows: (string | null)[][] } | { error: string; message: string };

export class SqlDiff {
  private constructor(
    readonly db: Database,
    readonly pg: PGlite,
    private readonly parsers: Record<number, (v: string) => string>,
  ) {}

  static async start(setup = '', existing?: PGlite): Promise<SqlDiff> {
    const db = await Database.create();
    const pg = existing ?? (await startPg());
    const d = new SqlDiff(db, pg, await rawParsers(pg));
    if (setup !== '') {
      await db.query(setup);
      await pg.exec(setup);
    }
    return d;
  }

  async ours(sql: string): Promise<SqlOutcome> {
    try {
      const r = await this.db.query(sql);
      return { columns: r.columns.map((c) => c.name), rows: r.rows.map((row) => row.map((v, i) => formatValue(v, r.columns[i]!.type, { timezone: 'UTC' }))) };
    } catch (e) {
      if (e instanceof QuireError) return { error: e.code, message: e.message };
      throw e;
    }
  }

  async theirs(sql: string): Promise<SqlOutcome> {
    try {
      const r = await this.pg.query<(string | null)[]>(sql, [], { rowMode: 'array', parsers: this.parsers });
      return { columns: r.fields.map((f) => f.name), rows: r.rows.map((row) => row.map((v) => (v === null ? null : String(v)))) };
    } catch (e) {
      const x = e as { code?: string; message?: string };
      if (x.code === undefined) throw e;
      return { error: x.code, message: x.message ?? '' };
    }
  }

  /** The statements whose outcomes differ, with both outcomes, for one readable assertion. */
  async mismatches(sqls: readonly string[]): Promise<{ sql: string; ours: SqlOutcome; theirs: SqlOutcome }[]> {
    const out: { sql: string; ours: SqlOutcome; theirs: SqlOutcome }[] = [];
    for (const sql of sqls) {
      const a = await this.ours(sql);
      const b = await this.theirs(sql);
      if (JSON.stringify(a) === JSON.stringify(b)) continue;
      if ('rows' in a && 'rows' in b && a.rows.length === b.rows.length) {
        // Only the differing rows, so a one-cell difference in a long result stays readable.
        const bad = a.rows.flatMap((r, i) => (JSON.stringify(r) === JSON.stringify(b.rows[i]) ? [] : [i]));
        const pick = (o: { columns: string[]; rows: (string | null)[][] }): SqlOutcome => ({ columns: o.columns, rows: bad.map((i) => [`#${i}`, ...o.rows[i]!]) });
        out.push({ sql, ours: pick(a), theirs: pick(b) });
      } else out.push({ sql, ours: a, theirs: b });
    }
    return out;
  }

  async close(): Promise<void> {
    await this.pg.close();
    await this.db.close();
  }
}

/**
 * Both kinds of check over one PGlite (starting one costs about a second): function calls through Pg
 * and whole statements through SqlDiff, with `setup` run on both engines. Close with `sql.close()`.
 */
export async function startEngines(setup: string): Promise<{ pg: Pg; sql: SqlDiff }> {
  const sql = await SqlDiff.start(setup);
  return { pg: await Pg.on(sql.pg), sql };
}
