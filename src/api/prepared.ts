/**
 * SQL-level prepared statements: PREPARE name [(types)] AS statement / EXECUTE name [(args)] /
 * DEALLOCATE [PREPARE] name | ALL, with PostgreSQL's rules: one namespace per session, names never
 * reused until deallocated (42P05), unknown names are 26000, a wrong argument count is 42601, and
 * arguments are converted to the parameter types as an assignment would. Prepared statements are
 * not transactional (ROLLBACK keeps them), as in PostgreSQL.
 *
 * A SELECT is bound at PREPARE, so errors (unknown columns, parameter types that cannot be
 * inferred) surface there, and its parameter types are fixed then. INSERT/UPDATE/DELETE are bound
 * at each EXECUTE by the ordinary statement code, with the declared parameter types.
 */
import type { Node, SelectStmt } from '@pgsql/types';
import { modifyingCtes } from './modifying-ctes.js';
import { castContext, castValue } from '../common/cast.js';
import { QuireError, positionOf } from '../common/errors.js';
import { formatValue } from '../common/format-value.js';
import { T, type DataType, typeDisplayName } from '../common/types.js';
import { maxParamRef, nodeBody, nodeTag, type AnyNode } from '../sql/ast.js';
import type { ParsedStatement } from '../sql/parse.js';
import { resolveTypeName } from '../sql/type-name.js';
import type { QueryResult, ResultColumn } from './database.js';
import { executeUtility, type UtilityHost } from './utility.js';
import { batchRows, getValue } from '../common/column.js';

export interface PreparedStatement {
  readonly name: string;
  readonly stmt: ParsedStatement;
  readonly paramTypes: readonly DataType[];
  /** Result columns of a prepared SELECT (null for DML, whose RETURNING list is bound at EXECUTE). */
  readonly columns: readonly ResultColumn[] | null;
  /** Milliseconds since 1970 (pg_prepared_statements.prepare_time). */
  readonly prepareTime: number;
  /** EXECUTEs so far (pg_prepared_statements.custom_plans: each one is planned with its values). */
  executions: number;
}

/** A session's prepared statements (Session.prepared). */
export class PreparedStatements {
  private byName = new Map<string, PreparedStatement>();
  has(name: string): boolean {
    return this.byName.has(name);
  }
  get(name: string): PreparedStatement {
    const p = this.byName.get(name);
    if (p === undefined) throw new QuireError('26000', `prepared statement "${name}" does not exist`);
    return p;
  }
  add(p: PreparedStatement): void {
    if (this.byName.has(p.name)) throw new QuireError('42P05', `prepared statement "${p.name}" already exists`);
    this.byName.set(p.name, p);
  }
  delete(name: string): void {
    if (!this.byName.delete(name)) throw new QuireError('26000', `prepared statement "${name}" does not exist`);
  }
  clear(): void {
    this.byName.clear();
  }
  list(): PreparedStatement[] {
    return [...this.byName.values()];
  }
}

function done(command: string, tag: string): QueryResult {
  return { command, commandTag: tag, columns: [], rows: [], rowCount: 0, notices: [] };
}

export function prepareStatement(host: UtilityHost, b: AnyNode, s: ParsedStatement): QueryResult {
  const name = b.name as string;
  if (host.session.prepared.has(name)) throw new QuireError('42P05', `prepared statement "${name}" already exists`);
  const declared = ((b.argtypes as Node[] | undefined) ?? []).map((t) => resolveTypeName(nodeBody(t)));
  const query = b.query as Node;
  // The inner statement's offsets stay relative to the whole text, so error positions point into it.
  const inner: ParsedStatement = { ...s, stmt: query };
  let paramTypes: DataType[] = declared;
  let columns: ResultColumn[] | null = null;
  // A SELECT with data-modifying WITH queries runs as a statement on EXECUTE (its columns come then).
  if (nodeTag(query) === 'SelectStmt' && !nodeBody<SelectStmt>(query).intoClause && modifyingCtes(nodeBody<SelectStmt>(query)) === null) {
    const p = host.prepareSelect(nodeBody<SelectStmt>(query), [], declared);
    paramTypes = p.paramTypes.map((t, i) => declared[i] ?? t);
    const untyped = paramTypes.findIndex((t) => t.name === 'unknown');
    if (untyped >= 0) throw new QuireError('42P18', `could not determine data type of parameter $${untyped + 1}`);
    columns = p.columns;
  } else {
    const n = Math.max(declared.length, maxParamRef(query));
    paramTypes = Array.from({ length: n }, (_, i) => declared[i] ?? T.unknown);
  }
  host.session.prepared.add({ name, stmt: inner, paramTypes, columns, prepareTime: Date.now(), executions: 0 });
  return done('PREPARE', 'PREPARE');
}

export async function executePrepared(host: UtilityHost, b: AnyNode, outerParams: readonly unknown[]): Promise<QueryResult> {
  const p = host.session.prepared.get(b.name as string);
  const args = (b.params as Node[] | undefined) ?? [];
  if (args.length !== p.paramTypes.length) {
    throw new QuireError('42601', `wrong number of parameters for prepared statement "${p.name}"`, {
      detail: `Expected ${p.paramTypes.length} parameters but got ${args.length}.`,
    });
  }
  // A string literal or NULL is of unknown type, and an outer parameter (EXECUTE q($1) over the
  // extended protocol or the library) takes its type from where it is used: each is read as the
  // prepared parameter's type, as PostgreSQL infers it from that context.
  const params: unknown[] = args.map(() => null);
  const exprs: { a: Node; i: number }[] = [];
  args.forEach((a, i) => {
    const tag = nodeTag(a);
    const c = tag === 'A_Const' ? nodeBody<{ sval?: { sval: string }; isnull?: boolean }>(a) : null;
    const ref = tag === 'ParamRef' ? nodeBody<{ number: number }>(a).number : 0;
    if (c?.sval !== undefined) params[i] = c.sval.sval;
    else if (c?.isnull === true) params[i] = null;
    else if (ref > 0 && ref <= outerParams.length) params[i] = outerParams[ref - 1];
    else exprs.push({ a, i });
  });
  if (exprs.length > 0) {
    // Other arguments are expressions (typed constants, casts, function calls), evaluated once,
    // converted as an assignment would, then passed on in text form, which reads back to the same value.
    const sel = { targetList: exprs.map(({ a }) => ({ ResTarget: { val: a } })), op: 'SETOP_NONE' } as unknown as SelectStmt;
    const prepared = host.prepareSelect(sel, outerParams);
    const ctx = host.execContext(prepared.paramTypes, outerParams, false);
    const batches = await host.collectBatches(await host.physical(prepared.plan, ctx), ctx);
    const batch = batches[0]!;
    const tz = { timezone: host.session.timezone };
    prepared.columns.forEach((c, k) => {
      const i = exprs[k]!.i;
      const want = p.paramTypes[i]!;
      const col = batch.columns[k]!;
      const v = getValue(col, 0);
      const from = c.type;
      if (want.name !== 'unknown' && from.name !== want.name && castContext(from.name, want.name) !== 'implicit' && castContext(from.name, want.name) !== 'assignment') {
        throw new QuireError('42804', `parameter $${i + 1} of type ${typeDisplayName(from)} cannot be coerced to the expected type ${typeDisplayName(want)}`, {
          hint: 'You will need to rewrite or cast the expression.',
          position: positionOf(nodeBody<{ location?: number }>(args[i]!).location),
        });
      }
      const target = want.name === 'unknown' ? from : want;
      params[i] = v === null ? null : formatValue(castValue(v, from, target, tz, false), target, tz);
    });
  }
  return run(host, p, params);
}

async function run(host: UtilityHost, p: PreparedStatement, params: readonly unknown[]): Promise<QueryResult> {
  p.executions++;
  if (p.columns === null) return executeUtility(host, p.stmt, params);
  const prepared = host.prepareSelect(nodeBody<SelectStmt>(p.stmt.stmt), params, [...p.paramTypes]);
  const ctx = host.execContext(prepared.paramTypes, params, false);
  const rows = await host.collect(await host.physical(prepared.plan, ctx), ctx);
  return { command: 'SELECT', commandTag: `SELECT ${rows.length}`, columns: prepared.columns, rows, rowCount: rows.length, notices: [] };
}

export function deallocate(host: UtilityHost, b: AnyNode): QueryResult {
  if (b.isall === true || b.name === undefined) {
    host.session.prepared.clear();
    return done('DEALLOCATE', 'DEALLOCATE ALL');
  }
  host.session.prepared.delete(b.name as string);
  return done('DEALLOCATE', 'DEALLOCATE');
}

/** Result columns of EXECUTE name, known without running it (for a protocol-level Describe). */
export function executeColumns(host: Pick<UtilityHost, 'session'>, b: AnyNode): ResultColumn[] | null {
  const name = b.name as string;
  return host.session.prepared.has(name) ? [...(host.session.prepared.get(name).columns ?? [])] : null;
}

