/**
 * Runs generated queries on two engines and compares their text output.
 * Ordered comparison when the query has a total ORDER BY, multiset comparison otherwise; errors match when
 * both engines fail with the same SQLSTATE.
 */
import { asSqlError, type SqlConnection, type SqlResult } from './connection.js';
import { DML_TABLES, dmlSetupSql, generateDml, generateQuery, setupSql, type GeneratedQuery } from './query-gen.js';

export type Outcome = { ok: true; result: SqlResult } | { ok: false; code?: string; message: string };

export async function run(conn: SqlConnection, sql: string): Promise<Outcome> {
  try {
    return { ok: true, result: await conn.query(sql) };
  } catch (e) {
    const err = asSqlError(e);
    return err.code === undefined ? { ok: false, message: err.message } : { ok: false, code: err.code, message: err.message };
  }
}

function rowKey(r: (string | null)[]): string {
  return JSON.stringify(r);
}

/** null when the two outcomes agree, otherwise a short reason. */
export function compareOutcomes(q: GeneratedQuery, a: Outcome, b: Outcome): string | null {
  if (!a.ok || !b.ok) {
    if (!a.ok && !b.ok) return a.code === b.code ? null : `different errors: ${a.code} vs ${b.code}`;
    return 'only one engine failed';
  }
  const ra = a.result.rows;
  const rb = b.result.rows;
  if (a.result.columns.length !== b.result.columns.length) return 'different column counts';
  if (ra.length !== rb.length) return `different row counts: ${ra.length} vs ${rb.length}`;
  const ka = ra.map(rowKey);
  const kb = rb.map(rowKey);
  if (!q.ordered) {
    ka.sort();
    kb.sort();
  }
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return `${q.ordered ? 'row' : 'sorted row'} ${i + 1} differs: ${ka[i]} vs ${kb[i]}`;
  if (!q.ordered && q.orderCols) {
    const pick = (r: (string | null)[]): string => rowKey(q.orderCols!.map((c) => r[c] ?? null));
    for (let i = 0; i < ra.length; i++) if (pick(ra[i]) !== pick(rb[i])) return `ORDER BY columns of row ${i + 1} differ: ${pick(ra[i])} vs ${pick(rb[i])}`;
  }
  return null;
}

export function showOutcome(o: Outcome, maxRows = 30): string {
  if (!o.ok) return `ERROR ${o.code ?? ''}: ${o.message}`;
  const rows = o.result.rows.slice(0, maxRows).map((r) => `    ${r.map((v) => (v === null ? 'NULL' : JSON.stringify(v))).join(' | ')}`);
  const more = o.result.rows.length > maxRows ? `\n    ... ${o.result.rows.length - maxRows} more` : '';
  return `${o.result.rows.length} row(s) [${o.result.columns.join(', ')}]\n${rows.join('\n')}${more}`;
}

export interface Mismatch {
  seed: number;
  index: number;
  sql: string;
  reason: string;
  quire: string;
  postgres: string;
}

/**
 * Runs the data set's statements, going on past failures so that one refused value costs only its own
 * row(s); returns the failures ("statement: error"), which a test reports next to its mismatches.
 */
export async function setup(conn: SqlConnection, seed: number): Promise<string[]> {
  const failed: string[] = [];
  for (const s of setupSql(seed)) {
    const o = await run(conn, s);
    if (!o.ok) failed.push(`${s}: ERROR ${o.code ?? ''} ${o.message}`);
  }
  return failed;
}

export interface DiffRun {
  queries: number;
  mismatches: Mismatch[];
  /** Queries PostgreSQL itself rejected (a generator bug if not zero). */
  postgresErrors: { index: number; sql: string; message: string }[];
}

/** PostgreSQL's outcome for each of the run's queries, computed once and shared by the checks. */
export async function referenceOutcomes(pg: SqlConnection, seed: number, count: number): Promise<{ query: GeneratedQuery; outcome: Outcome }[]> {
  const out: { query: GeneratedQuery; outcome: Outcome }[] = [];
  for (let i = 0; i < count; i++) {
    const query = generateQuery(seed, i);
    out.push({ query, outcome: await run(pg, query.sql) });
  }
  return out;
}

export async function differential(quire: SqlConnection | null, pg: SqlConnection | { query: GeneratedQuery; outcome: Outcome }[], seed: number, count: number): Promise<DiffRun> {
  const ref = Array.isArray(pg) ? pg : await referenceOutcomes(pg, seed, count);
  const out: DiffRun = { queries: 0, mismatches: [], postgresErrors: [] };
  for (let i = 0; i < ref.length; i++) {
    const { query: q, outcome: p } = ref[i];
    out.queries++;
    if (!p.ok && q.mayFail !== true) out.postgresErrors.push({ index: i, sql: q.sql, message: p.message });
    if (quire === null) continue;
    const m = await run(quire, q.sql);
    const reason = compareOutcomes(q, m, p);
    if (reason !== null) out.mismatches.push({ seed, index: i, sql: q.sql, reason, quire: showOutcome(m), postgres: showOutcome(p) });
  }
  return out;
}

export function formatMismatch(m: Mismatch): string {
  return `seed ${m.seed} query #${m.index}: ${m.reason}\n  SQL: ${m.sql}\n  quire:    ${m.quire}\n  postgres: ${m.postgres}`;
}

/**
 * A DML run: the DML tables of `seed` set up afresh on both engines, then `count` generated statements,
 * each compared by its outcome and then by every DML table's rows. A run stops at its first mismatch
 * (the tables differ from then on); PostgreSQL's own errors other than the generator's intended ones
 * (23505, 21000) are reported apart, as generator bugs.
 */
export async function dmlDifferential(quire: SqlConnection, pg: SqlConnection, seed: number, count: number): Promise<{ statements: number; mismatches: Mismatch[]; postgresErrors: string[] }> {
  const out = { statements: 0, mismatches: [] as Mismatch[], postgresErrors: [] as string[] };
  for (const s of dmlSetupSql(seed)) {
    await pg.query(s);
    await quire.query(s);
  }
  for (let i = 0; i < count; i++) {
    const q = generateDml(seed, i);
    out.statements++;
    const p = await run(pg, q.sql);
    const m = await run(quire, q.sql);
    if (!p.ok && p.code !== '23505' && p.code !== '21000') out.postgresErrors.push(`seed ${seed} #${i}: ${q.sql}\n  ${p.message}`);
    let reason = compareOutcomes(q, m, p);
    for (const t of DML_TABLES) {
      if (reason !== null) break;
      const dump = { sql: `SELECT * FROM ${t} ORDER BY id`, ordered: true };
      const r = compareOutcomes(dump, await run(quire, dump.sql), await run(pg, dump.sql));
      if (r !== null) reason = `table ${t} afterwards: ${r}`;
    }
    if (reason !== null) {
      out.mismatches.push({ seed, index: i, sql: q.sql, reason, quire: showOutcome(m), postgres: showOutcome(p) });
      break;
    }
  }
  return out;
}
