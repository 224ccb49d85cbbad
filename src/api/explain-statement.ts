/** EXPLAIN [ANALYZE | LOGICAL] of a query, a DECLARE, or an INSERT, UPDATE or DELETE. */
import type { Node, SelectStmt } from '@pgsql/types';
import { QuireError } from '../common/errors.js';
import { T } from '../common/types.js';
import { nodeBody, nodeTag, type AnyNode } from '../sql/ast.js';
import type { QueryResult } from './database.js';
import type { UtilityHost } from './utility.js';
import { result } from './statement-support.js';
import { explainLogical } from '../physical/explain-logical.js';
import { explainPlan, explainSummary, type ExplainOptions } from '../physical/explain.js';
import { untilUnlocked } from './dml-statements.js';
import { planDml } from './planned-dml.js';
import { modifyingCtes, withModifyingCtes } from './modifying-ctes.js';
import { LockOwner } from './row-locks.js';
import { lockTargets } from './row-targets.js';

export async function explain(host: UtilityHost, b: AnyNode, params: readonly unknown[]): Promise<QueryResult> {
  let analyze = false;
  let logical = false;
  let verbose = false;
  let timing: boolean | null = null;
  let summary: boolean | null = null;
  let format: 'text' | 'quire' = 'text';
  for (const o of (b.options as Node[] | undefined) ?? []) {
    const d = nodeBody<AnyNode>(o);
    const name = d.defname as string;
    const arg = d.arg ? nodeBody<AnyNode>(d.arg as Node) : undefined;
    const on = arg === undefined || ['true', 'on', '1'].includes(String(arg.sval ?? arg.boolval ?? (arg.ival as AnyNode | undefined)?.ival ?? 'true').toLowerCase()) || arg.boolval === true;
    if (name === 'analyze') analyze = on;
    else if (name === 'logical') logical = on;
    else if (name === 'verbose') verbose = on;
    else if (name === 'timing') timing = on;
    else if (name === 'summary') summary = on;
    else if (name === 'format') {
      const f = String((arg?.sval as string | undefined) ?? 'text').toLowerCase();
      if (f !== 'text' && f !== 'quire') throw new QuireError('0A000', `EXPLAIN format ${f} is not supported`, { hint: 'FORMAT TEXT prints PostgreSQL\'s layout; FORMAT QUIRE one line per physical operator with Quire\'s detail.' });
      format = f;
    } else if (!KNOWN_OPTIONS.has(name)) {
      throw new QuireError('42601', `unrecognized EXPLAIN option "${name}"`, { position: typeof d.location === 'number' ? d.location + 1 : undefined });
    }
  }
  if (timing === true && !analyze) throw new QuireError('22023', 'EXPLAIN option TIMING requires ANALYZE');
  let q = b.query as Node;
  // EXPLAIN DECLARE shows the plan of the cursor's query (it declares nothing).
  if (nodeTag(q) === 'DeclareCursorStmt') q = nodeBody<AnyNode>(q).query as Node;
  const dml = MODIFYING.has(nodeTag(q) ?? '');
  if (nodeTag(q) !== 'SelectStmt' && !dml) throw new QuireError('0A000', 'EXPLAIN supports SELECT, INSERT, UPDATE and DELETE statements');
  if (logical && analyze) throw new QuireError('0A000', 'EXPLAIN options LOGICAL and ANALYZE cannot be used together', { hint: 'The logical plan is not executed; use EXPLAIN ANALYZE for the physical plan with timings.' });
  const opts: ExplainOptions = { analyze, logical, verbose, format, timing: timing ?? true, summary: summary ?? analyze };
  const explainMain = async (): Promise<string[]> => {
    if (dml) return explainModify(host, q, params, opts);
    const sel = nodeBody<SelectStmt>(q);
    const locking = (sel.lockingClause ?? []).length > 0;
    // SELECT … FOR UPDATE/SHARE runs with its locked tables' row positions (row-targets.ts): that plan
    // is the one shown. EXPLAIN ANALYZE runs it without taking locks.
    const targeted = locking ? lockTargets(host.catalog, sel) : null;
    const lines = targeted !== null ? await host.explainLines(targeted.stmt, params, opts, targeted.relations) : await host.explainLines(sel, params, opts);
    // The locks are taken as rows leave the plan: PostgreSQL's LockRows node on top.
    if (!locking || analyze || logical || format !== 'text') return lines;
    // Under a LIMIT, PostgreSQL locks below it (a row SKIP LOCKED passes over does not count).
    let top = 0;
    if ((sel.limitCount !== undefined || sel.limitOffset !== undefined) && lines[0] === 'Limit') {
      top = 1;
      while (top < lines.length && lines[top]!.startsWith('  ') && !lines[top]!.startsWith('  ->')) top++;
    }
    const below = lines.slice(top).map((l, i) => (top > 0 ? `      ${l}` : i === 0 ? `  ->  ${l}` : `      ${l}`));
    return top > 0 ? [...lines.slice(0, top), '  ->  LockRows', ...below] : ['LockRows', ...below];
  };
  const ctes = modifyingCtes(nodeBody<AnyNode>(q));
  const lines = ctes === null ? await explainMain() : await explainWithModifying(host, ctes, params, opts, explainMain);
  return result('EXPLAIN', 'EXPLAIN', { columns: [{ name: 'QUERY PLAN', type: T.text }], rows: lines.map((l) => [l]), rowCount: lines.length });
}

/** PostgreSQL's other EXPLAIN options: accepted, with nothing to show (Quire has no cost estimates or buffer counts). */
const KNOWN_OPTIONS = new Set(['costs', 'buffers', 'settings', 'wal', 'generic_plan', 'serialize', 'memory']);

const MODIFYING = new Set(['InsertStmt', 'UpdateStmt', 'DeleteStmt']);

/**
 * A statement with data-modifying WITH queries: the main plan, then each such query's plan under
 * `CTE name`, as PostgreSQL prints them. Plain EXPLAIN runs none of them (the main query reads empty
 * results); EXPLAIN ANALYZE runs each once, through its plan, as the statement would.
 */
async function explainWithModifying(host: UtilityHost, ctes: Parameters<typeof withModifyingCtes>[1], params: readonly unknown[], opts: ExplainOptions, main: () => Promise<string[]>): Promise<string[]> {
  const { analyze, logical } = opts;
  const sections: string[] = [];
  const runCte = (stmt: Node, name: string): Promise<QueryResult> =>
    untilUnlocked(host, async () => {
      const planned = planDml(host, stmt, params);
      const columns = planned.plan.schema.map((f) => ({ name: f.name, type: f.type }));
      const section = (plan: string[]): void => {
        sections.push(`  CTE ${name}`, ...plan.map((l, i) => (i === 0 ? `    ->  ${l}` : `        ${l}`)));
      };
      if (logical) {
        section(explainLogical(planned.plan));
        return result('EXPLAIN', 'EXPLAIN', { columns });
      }
      const ctx = host.execContext(planned.paramTypes, params, analyze);
      const op = await host.physical(planned.plan, ctx);
      if (!analyze) {
        section(explainPlan(op, opts));
        return result('EXPLAIN', 'EXPLAIN', { columns });
      }
      for await (const b of op.execute(ctx)) void b;
      const outcome = planned.outcome();
      if (!(outcome instanceof LockOwner)) section(explainPlan(op, opts));
      return outcome;
    });
  const lines = await withModifyingCtes(host, ctes, params, main, runCte);
  // EXPLAIN ANALYZE's summary lines stay last.
  const at = analyze ? lines.findIndex((l) => l.startsWith('Result rows: ') || l.startsWith('Planning Time: ') || l.startsWith('Execution Time: ')) : -1;
  const summary = at < 0 ? [] : lines.splice(at);
  return [...lines, ...sections, ...summary];
}

/**
 * The plan of an INSERT, UPDATE or DELETE, ModifyTable on top. ANALYZE runs the statement, as in
 * PostgreSQL: its changes stay (inside a transaction block, ROLLBACK undoes them).
 */
async function explainModify(host: UtilityHost, q: Node, params: readonly unknown[], opts: ExplainOptions): Promise<string[]> {
  return untilUnlocked(host, async () => {
    const t0 = performance.now();
    const planned = planDml(host, q, params);
    if (opts.logical === true) return explainLogical(planned.plan);
    const ctx = host.execContext(planned.paramTypes, params, opts.analyze);
    const op = await host.physical(planned.plan, ctx);
    if (!opts.analyze) return explainPlan(op, opts);
    const t1 = performance.now();
    let rows = 0;
    for await (const b of op.execute(ctx)) rows += b.length;
    const ms = performance.now() - t1;
    const outcome = planned.outcome();
    if (outcome instanceof LockOwner) return outcome;
    return [...explainPlan(op, opts), ...explainSummary(opts, t1 - t0, ms, rows)];
  });
}
