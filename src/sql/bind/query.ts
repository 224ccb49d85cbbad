/**
 * Query binding: SELECT (with FROM, WHERE, GROUP BY, HAVING, windows, DISTINCT [ON], ORDER BY,
 * LIMIT/OFFSET/FETCH [WITH TIES]), VALUES, set operations and CTEs, into a logical plan.
 *
 * Plan shape of one SELECT level:
 *   from → filter(where) → aggregate → filter(having) → window → project(targets + hidden sort keys)
 *        → distinct | sort → distinct-on → sort → limit → project(visible targets)
 */
import { windowEvalOrder } from './window-eval-order.js';
import { checkRecursiveClauses, checkRecursiveTerm } from '../recursion-check.js';
import type { Node, SelectStmt } from '@pgsql/types';
import { QuireError, positionOf } from '../../common/errors.js';
import { T, type DataType, type Field, type Schema, typeDisplayName } from '../../common/types.js';
import type { EvalContext } from '../../functions/eval-context.js';
import { type Expr, type SortKey, exprEquals, isConstantExpr, someExpr, colRef, constant } from '../../logical/expr.js';
import type { JoinType, LogicalPlan, TableSource, WindowCall } from '../../logical/plan.js';
import { mapPlanExprs } from '../../logical/map-plan-exprs.js';
import type { Catalog } from '../../storage/catalog.js';
import { forEachNode, nodeBody, nodeTag, strings, type AnyNode } from '../ast.js';
import { AGG_BASE, WIN_BASE, bindExpr, bindSortBy, coerceBool, leftmostLocOf, locOf, type AggCollector, type ExprCtx, type ExprEnv, type WindowCollector } from './expr.js';
import { coerce, hasNoEquality, unifyTypes } from '../coerce.js';
import { ROW_PRESENT, Scope, type ScopeEntry } from '../scope.js';
import { bindTableFunction } from './table-function.js';
import { isAggregateName } from '../../functions/aggregate/registry.js';
import { nodeInfo } from '../../logical/plan-nodes.js';
import { conformOutput, firstRow, queryBody, routineColumns, type RoutineFrame } from './routine.js';
import { checkLockingBound, checkLockingShape } from '../locking-clause.js';
import { MaterializedCte } from '../../logical/materialized-cte.js';
import { resolveRoutineCall, withRoutineFrame } from './function-call.js';
import { bindComparison } from './comparison.js';
import { expandGroupClause, dependentColumns, checkDirectArgsGrouped, rewriteForAggregate } from './grouping.js';
import { nestGroupedSrf, rewriteTargetListSrf } from './set-returning.js';
import { shiftEntry, entriesFor, checkNameConflicts, findUnique, expandOuterStar, expandStar } from './from-names.js';

export const pos = positionOf;

interface CteEntry {
  name: string;
  columnNames: string[] | null;
  query: Node;
  plan: LogicalPlan | null;
  /** While binding a recursive CTE's recursive term, references become worktable scans. */
  worktable: { id: number; schema: Field[] } | null;
  recursive: boolean;
  binding: boolean;
  /** Evaluated once and shared by its references (see logical/materialized-cte.ts). */
  materialize: boolean;
  refs: number;
  mode: string | undefined;
}

export interface BoundQuery {
  plan: LogicalPlan;
  scope: Scope;
}

/**
 * How many FROM items in `node` name the WITH query `name`, not counting queries whose own WITH
 * defines that name again (their references mean the inner one).
 */
function countCteReferences(node: unknown, name: string): number {
  if (node === null || typeof node !== 'object') return 0;
  if (Array.isArray(node)) {
    let n = 0;
    for (const x of node) n += countCteReferences(x, name);
    return n;
  }
  const o = node as AnyNode;
  if ('RangeVar' in o) {
    const rv = o.RangeVar as AnyNode;
    return rv.relname === name && rv.schemaname === undefined ? 1 : 0;
  }
  const select = 'SelectStmt' in o ? (o.SelectStmt as AnyNode) : o;
  const ctes = (select.withClause as AnyNode | undefined)?.ctes as AnyNode[] | undefined;
  if (ctes?.some((c) => (c.CommonTableExpr as AnyNode | undefined)?.ctename === name)) return 0;
  let n = 0;
  for (const k in o) n += countCteReferences(o[k], name);
  return n;
}

/** Whether a plan calls a volatile function anywhere (subqueries included). */
function planIsVolatile(p: LogicalPlan): boolean {
  let found = false;
  mapPlanExprs(p, 1, (e) => {
    if (!found && someExpr(e, (x) => x.kind === 'call' && x.overload.volatile === true)) found = true;
    return e;
  });
  return found;
}

/** `p` with its columns cast to `schema`'s types (a materialized CTE's unknown literals become text). */
function castPlan(p: LogicalPlan, schema: Schema, env: QueryBinder, loc: number | undefined): LogicalPlan {
  const exprs = p.schema.map((f, i) => coerce(colRef(i, f.type, f.name), schema[i]!.type, 'implicit', env, pos(loc)));
  return { op: 'project', input: p, exprs, schema };
}

export class QueryBinder implements ExprEnv {
  readonly paramTypes: DataType[];
  private cteFrames: Map<string, CteEntry>[] = [];
  private nextId = 1;
  /** Parameters of the SQL function bodies being bound (src/sql/bind/routine.ts). */
  readonly routineFrames: RoutineFrame[] = [];

  /**
   * Relations the statement being bound names that are not in the catalog (UPDATE and DELETE bind
   * their target as one, see api/dml-target.ts); looked up first, by an unquotable name.
   */
  extraRelations: ReadonlyMap<string, TableSource> | null = null;
  /** Relations the session provides (pg_cursors) for names the catalog does not have. */
  sessionRelations: ReadonlyMap<string, TableSource> | null = null;
  /**
   * The RETURNING rows of the statement's data-modifying WITH queries, by their query node: they ran
   * before the statement was bound (api/modifying-ctes.ts), once each, and are read from here.
   */
  modifyingResults: ReadonlyMap<object, TableSource> | null = null;
  /** Per SELECT level being bound: the names its FROM items may be read by as whole rows (see markRowPresence). */
  private wholeRowNames: ReadonlySet<string>[] = [];
  /** Nesting of bindQuery: 1 is the statement's own query, where data-modifying WITH queries may be. */
  private depth = 0;

  constructor(
    readonly catalog: Catalog,
    readonly evalCtx: EvalContext,
    paramTypes: DataType[] = [],
  ) {
    this.paramTypes = paramTypes;
  }

  get routines(): Catalog {
    return this.catalog;
  }

  bindSubquery(stmt: Node, scope: Scope): { plan: LogicalPlan; correlated: boolean } {
    const q = this.bindQuery(nodeBody<SelectStmt>(stmt), scope);
    return { plan: q.plan, correlated: q.scope.usesOuter };
  }

  /** `setOpBranch`: untyped output columns stay unknown so the set operation can resolve them. */
  bindQuery(s: SelectStmt, outer: Scope | null, setOpBranch = false): BoundQuery {
    const pushed = s.withClause !== undefined;
    this.depth++;
    try {
      if (pushed) this.pushCtes(s.withClause!.ctes ?? [], s.withClause!.recursive === true, s);
      try {
        if (s.op !== undefined && s.op !== 'SETOP_NONE') return this.bindSetOp(s, outer);
        if (s.valuesLists !== undefined) return this.bindValues(s, outer);
        return this.bindSelect(s, outer, setOpBranch);
      } finally {
        if (pushed) this.cteFrames.pop();
      }
    } finally {
      this.depth--;
    }
  }

  // ---- CTEs ----

  private pushCtes(ctes: Node[], recursive: boolean, owner: SelectStmt): void {
    const frame = new Map<string, CteEntry>();
    // References outside the WITH list (the query it belongs to) and inside the other WITH queries.
    const rest: unknown[] = [{ ...owner, withClause: undefined }];
    for (const c of ctes) {
      const b = nodeBody<AnyNode>(c);
      const name = b.ctename as string;
      const refs = countCteReferences([...rest, ...ctes.filter((x) => x !== c).map((x) => nodeBody<AnyNode>(x).ctequery)], name);
      const self = recursive && this.cteReferences(b.ctequery, name);
      // As PostgreSQL: a WITH query read more than once is evaluated once, unless NOT MATERIALIZED;
      // MATERIALIZED asks for it even when read once. A recursive query has its own evaluation.
      const mode = b.ctematerialized as string | undefined;
      const materialize = !self && !isModifying(b.ctequery as Node) && (mode === 'CTEMaterializeAlways' || (mode !== 'CTEMaterializeNever' && refs > 1));
      if (this.depth > 1 && isModifying(b.ctequery as Node)) {
        throw new QuireError('0A000', 'WITH clause containing a data-modifying statement must be at the top level', { position: pos(b.location as number) });
      }
      if (frame.has(name)) throw new QuireError('42712', `WITH query name "${name}" specified more than once`, { position: pos(b.location as number) });
      // Ignoring them would return other rows (and CYCLE's loop would never end): refused instead.
      for (const [key, what] of [['search_clause', 'SEARCH'], ['cycle_clause', 'CYCLE']] as const) {
        const clause = b[key] as AnyNode | undefined;
        if (clause !== undefined) {
          throw new QuireError('0A000', `the ${what} clause of WITH RECURSIVE is not supported`, { position: pos((clause.location as number | undefined) ?? (b.location as number)) });
        }
      }
      frame.set(name, {
        name,
        columnNames: b.aliascolnames ? strings(b.aliascolnames as Node[]) : null,
        query: b.ctequery as Node,
        plan: null,
        worktable: null,
        recursive,
        binding: false,
        materialize,
        refs,
        mode,
      });
    }
    this.cteFrames.push(frame);
  }

  private findCte(name: string): CteEntry | undefined {
    for (let i = this.cteFrames.length - 1; i >= 0; i--) {
      const e = this.cteFrames[i]!.get(name);
      // A non-recursive WITH query does not see itself: the name means an outer CTE or a table.
      if (e && !(e.binding && !e.recursive)) return e;
    }
    return undefined;
  }

  private cteReferences(node: unknown, name: string): boolean {
    if (node === null || typeof node !== 'object') return false;
    if (Array.isArray(node)) return node.some((n) => this.cteReferences(n, name));
    const o = node as AnyNode;
    if ('RangeVar' in o) {
      const rv = o.RangeVar as AnyNode;
      if (rv.relname === name && rv.schemaname === undefined) return true;
    }
    // A query with its own WITH of the same name refers to that one, not to this CTE.
    // (larg/rarg of a set operation are SelectStmt bodies without the wrapping node.)
    const select = 'SelectStmt' in o ? (o.SelectStmt as AnyNode) : o;
    if (select.withClause !== undefined) {
      const ctes = (select.withClause as AnyNode).ctes as AnyNode[] | undefined;
      if (ctes?.some((c) => (c.CommonTableExpr as AnyNode | undefined)?.ctename === name)) return false;
    }
    for (const k in o) if (this.cteReferences(o[k], name)) return true;
    return false;
  }

  private cteDataStatementCheck(q: Node, loc: number | undefined): SelectStmt {
    if (nodeTag(q) !== 'SelectStmt') throw new QuireError('0A000', `WITH queries of ${String(nodeTag(q)).replace(/Stmt$/, '')} statements are not supported`, { position: pos(loc) });
    return nodeBody<SelectStmt>(q);
  }

  /** A data-modifying WITH query: a scan of the RETURNING rows it produced when it ran. */
  private bindModifyingCte(e: CteEntry, loc: number | undefined): LogicalPlan {
    const q = nodeBody<AnyNode>(e.query);
    if (q.returningList === undefined && (q.returningClause as AnyNode | undefined)?.exprs === undefined) {
      throw new QuireError('0A000', `WITH query "${e.name}" does not have a RETURNING clause`, { position: pos(loc) });
    }
    const rows = this.modifyingResults?.get(e.query);
    if (rows === undefined) throw new QuireError('0A000', 'data-modifying statements in WITH are not supported here', { position: pos(loc) });
    const scan: LogicalPlan = { op: 'scan', source: rows, alias: e.name, schema: rows.schema.map((f) => ({ name: f.name, type: f.type, table: e.name })) };
    return this.renameColumns(scan, e.columnNames, e.name, loc);
  }

  private bindCte(e: CteEntry, loc: number | undefined): LogicalPlan {
    if (e.worktable !== null) return { op: 'worktable', id: e.worktable.id, name: e.name, schema: e.worktable.schema };
    if (e.plan !== null) return e.plan;
    if (isModifying(e.query)) return (e.plan = this.bindModifyingCte(e, loc));
    if (e.binding) throw new QuireError('42P19', `recursive reference to query "${e.name}" must not appear within its non-recursive term`, { position: pos(loc) });
    e.binding = true;
    try {
      const sel = this.cteDataStatementCheck(e.query, loc);
      if (e.recursive && this.cteReferences(sel, e.name)) {
        e.plan = this.bindRecursiveCte(e, sel, loc);
      } else {
        e.plan = this.renameColumns(this.bindQuery(sel, null).plan, e.columnNames, e.name, loc);
        // NOT MATERIALIZED does not inline a query with volatile functions (PostgreSQL's rule too):
        // its references would see different values.
        if (e.materialize || (e.refs > 1 && e.mode === 'CTEMaterializeNever' && planIsVolatile(e.plan))) {
          const schema = e.plan.schema.map((f) => ({ name: f.name, type: f.type.name === 'unknown' ? T.text : f.type }));
          const body = schema.every((f, i) => f.type === e.plan!.schema[i]!.type) ? e.plan : castPlan(e.plan, schema, this, loc);
          const source = new MaterializedCte(e.name, schema, body);
          e.plan = { op: 'scan', source, alias: e.name, schema: schema.map((f) => ({ ...f, table: e.name })) };
        }
      }
      return e.plan;
    } finally {
      e.binding = false;
    }
  }

  private bindRecursiveCte(e: CteEntry, sel: SelectStmt, loc: number | undefined): LogicalPlan {
    if (sel.op !== 'SETOP_UNION') {
      throw new QuireError('42P19', `recursive query "${e.name}" does not have the form non-recursive-term UNION [ALL] recursive-term`, { position: pos(loc) });
    }
    checkRecursiveClauses(sel, pos);
    checkRecursiveTerm(e.name, sel.rarg!, pos);
    const anchor = this.renameColumns(this.bindQuery(sel.larg!, null).plan, e.columnNames, e.name, loc);
    const schema = anchor.schema.map((f) => ({ name: f.name, type: f.type.name === 'unknown' ? T.text : f.type }));
    const id = this.nextId++;
    e.worktable = { id, schema };
    let recursive: LogicalPlan;
    try {
      recursive = this.bindQuery(sel.rarg!, null).plan;
    } finally {
      e.worktable = null;
    }
    if (recursive.schema.length !== schema.length) {
      throw new QuireError('42601', 'each UNION query must have the same number of columns', { position: pos(loc) });
    }
    const castTo = (p: LogicalPlan): LogicalPlan => {
      if (p.schema.every((f, i) => f.type.name === schema[i]!.type.name)) return p;
      const exprs = p.schema.map((f, i) => {
        try {
          return coerce(colRef(i, f.type, f.name), schema[i]!.type, 'implicit', this, pos(loc));
        } catch {
          throw new QuireError(
            '42804',
            `recursive query "${e.name}" column ${i + 1} has type ${typeDisplayName(schema[i]!.type)} in non-recursive term but type ${typeDisplayName(f.type)} overall`,
            { position: pos(loc), hint: 'Cast the output of the non-recursive term to the correct type.' },
          );
        }
      });
      return { op: 'project', input: p, exprs, schema };
    };
    return { op: 'recursive-cte', name: e.name, anchor: castTo(anchor), recursive: castTo(recursive), all: sel.all === true, id, schema };
  }

  private renameColumns(p: LogicalPlan, names: string[] | null, what: string, loc: number | undefined): LogicalPlan {
    if (names === null) return p;
    if (names.length > p.schema.length) {
      throw new QuireError('42P10', `table "${what}" has ${p.schema.length} columns available but ${names.length} columns specified`, { position: pos(loc) });
    }
    const schema = p.schema.map((f, i) => ({ ...f, name: names[i] ?? f.name }));
    return { op: 'project', input: p, exprs: p.schema.map((f, i) => colRef(i, f.type, f.name)), schema };
  }

  // ---- FROM ----

  private bindFromList(items: Node[], scope: Scope): LogicalPlan | null {
    let plan: LogicalPlan | null = null;
    for (const item of items) {
      const r = this.bindFromItem(item, scope.parent, plan === null ? null : scope);
      // An item bound against the outer scope directly (not through this one) that reads an outer
      // column makes this query correlated too: it must run again for each outer row.
      if (r.usesOuter === true) scope.usesOuter = true;
      if (plan === null) {
        plan = r.plan;
        scope.entries.push(...r.entries);
      } else {
        checkNameConflicts(scope.entries, r.entries);
        const offset = plan.schema.length;
        plan = { op: 'join', type: 'cross', left: plan, right: r.plan, condition: null, lateral: r.lateral === true, schema: [...plan.schema, ...r.plan.schema] };
        scope.entries.push(...r.entries.map((e) => shiftEntry(e, offset)));
      }
    }
    return plan;
  }

  /** `lateralScope` is the scope of FROM items to the left (visible to LATERAL items). */
  /**
   * `usesOuter` in the result: the item reads a column of a query outside the one whose FROM list holds
   * it, through a scope that skips that query's own (so the caller must mark it correlated itself).
   */
  private bindFromItem(
    item: Node,
    outer: Scope | null,
    lateralScope: Scope | null,
  ): { plan: LogicalPlan; entries: ScopeEntry[]; lateral?: boolean; usesOuter?: boolean } {
    const tag = nodeTag(item);
    const b = nodeBody<AnyNode>(item);
    switch (tag) {
      case 'RangeVar':
        return this.bindRangeVar(b);
      case 'RangeSubselect': {
        const alias = b.alias as AnyNode | undefined;
        // A LATERAL item is bound one level below the items to its left and runs once per left row.
        const lateral = b.lateral === true && lateralScope !== null;
        const sub = this.bindQuery(nodeBody<SelectStmt>(b.subquery as Node), lateral ? lateralScope : outer);
        const name = (alias?.aliasname as string | undefined) ?? null;
        const plan = this.renameColumns(sub.plan, alias?.colnames ? strings(alias.colnames as Node[]) : null, name ?? 'subquery', locOf(item));
        // A LATERAL item's scope chain passes through lateralScope, which the reference marks itself.
        return { plan, entries: entriesFor(plan.schema, name), lateral, usesOuter: !lateral && sub.scope.usesOuter };
      }
      case 'JoinExpr':
        return this.bindJoin(b, outer);
      case 'RangeFunction': {
        const routine = this.bindRoutineInFrom(b, item, outer, lateralScope);
        if (routine !== null) return routine;
        const alias = b.alias as AnyNode | undefined;
        // Functions in FROM may read columns of the items to their left (implicitly LATERAL).
        const fscope = new Scope(lateralScope ?? outer);
        const cx: ExprCtx = { scope: fscope, clause: 'functions in FROM', aggs: null, windows: null, env: this };
        const r = bindTableFunction(b, cx, this.evalCtx);
        const lateral = lateralScope !== null && r.plan.op === 'table-function' && r.plan.args.some((a) => someExpr(a, (x) => x.kind === 'outer'));

        let plan = r.plan;
        const qual = (alias?.aliasname as string | undefined) ?? r.defaultAlias;
        if (alias?.colnames) plan = this.renameColumns(plan, strings(alias.colnames as Node[]), qual, locOf(item));
        else if (alias?.aliasname && r.singleColumn) {
          // A scalar-returning function's column takes the alias name, as in PostgreSQL.
          plan = this.renameColumns(plan, [alias.aliasname as string], qual, locOf(item));
        }
        // The scan itself carries the names and the alias (EXPLAIN's "Function Scan on f alias", "alias.col").
        if (plan.op === 'project' && plan.input === r.plan && r.plan.op === 'table-function') plan = { ...r.plan, schema: plan.schema.map((f) => ({ ...f, table: qual })) };
        else if (plan.op === 'table-function') plan = { ...plan, schema: plan.schema.map((f) => ({ ...f, table: qual })) };
        return { plan, entries: entriesFor(plan.schema, qual), lateral, usesOuter: lateralScope === null && fscope.usesOuter };
      }
      default:
        throw new QuireError('0A000', `FROM item ${tag} is not supported`, { position: pos(locOf(item)) });
    }
  }

  /** A SQL function in FROM: its body as a derived table over the call's arguments; null for other functions. */
  private bindRoutineInFrom(
    b: AnyNode,
    item: Node,
    outer: Scope | null,
    lateralScope: Scope | null,
  ): { plan: LogicalPlan; entries: ScopeEntry[]; lateral?: boolean; usesOuter?: boolean } | null {
    const fns = b.functions as Node[];
    const call = (nodeBody<AnyNode>(fns[0]!).items as Node[])[0]!;
    if (nodeTag(call) !== 'FuncCall') return null;
    const fc = nodeBody<AnyNode>(call);
    const parts = strings(fc.funcname as Node[]);
    const name = parts[parts.length - 1]!;
    const defs = this.catalog.functions.get(name);
    if (defs === undefined) return null;
    const loc = fc.location as number | undefined;
    if (fns.length > 1 || b.ordinality === true) throw new QuireError('0A000', `ROWS FROM and WITH ORDINALITY over SQL function ${name}() are not supported`, { position: pos(loc) });
    const parent = lateralScope ?? outer;
    // Arguments may read columns of the items to the left (implicitly LATERAL), as built-in table functions do.
    const fscope = new Scope(parent);
    const cx: ExprCtx = { scope: fscope, clause: 'functions in FROM', aggs: null, windows: null, env: this };
    const r = resolveRoutineCall(name, defs, fc, cx);
    if (r.fn.returns === 'void') throw new QuireError('42804', `function "${name}" in FROM has unsupported return type void`, { position: pos(loc) });
    const body = queryBody(r.fn, loc);
    const sub = withRoutineFrame(cx, { fn: r.fn, args: r.args, anchor: parent, offset: 1 }, loc, () => this.bindQuery(body, parent));
    let plan = conformOutput(r.fn, sub.plan, routineColumns(r.fn, r.type), this, loc);
    if (!r.fn.returnsSet) plan = firstRow(plan);
    if (r.fn.strict && r.args.some((a) => a.kind === 'const' && a.value === null)) plan = { op: 'filter', input: plan, predicate: constant(false, T.bool), schema: plan.schema };
    const alias = b.alias as AnyNode | undefined;
    const qual = (alias?.aliasname as string | undefined) ?? name;
    if (alias?.colnames) plan = this.renameColumns(plan, strings(alias.colnames as Node[]), qual, locOf(item));
    else if (alias?.aliasname && r.fn.columns === null) plan = this.renameColumns(plan, [alias.aliasname as string], qual, locOf(item));
    const lateral = lateralScope !== null && sub.scope.usesOuter;
    return { plan, entries: entriesFor(plan.schema, qual), lateral, usesOuter: lateralScope === null && sub.scope.usesOuter };
  }

  private bindRangeVar(b: AnyNode): { plan: LogicalPlan; entries: ScopeEntry[] } {
    const name = b.relname as string;
    const alias = b.alias as AnyNode | undefined;
    const loc = b.location as number | undefined;
    const qual = (alias?.aliasname as string | undefined) ?? name;
    const colnames = alias?.colnames ? strings(alias.colnames as Node[]) : null;
    let plan: LogicalPlan;
    const cte = b.schemaname === undefined ? this.findCte(name) : undefined;
    // ATTACHed databases: pg.t / pg.schema.t name a remote table (see storage/connectors).
    const remote = b.schemaname !== undefined ? this.catalog.lookupAttached(b.catalogname as string | undefined, b.schemaname as string, name) : undefined;
    const extra = b.schemaname === undefined ? this.extraRelations?.get(name) : undefined;
    if (extra !== undefined) {
      plan = { op: 'scan', source: extra, alias: qual, schema: extra.schema.map((f) => ({ name: f.name, type: f.type, table: qual })) };
    } else if (cte) {
      plan = this.bindCte(cte, loc);
    } else if (remote !== undefined) {
      plan = { op: 'scan', source: remote, alias: qual, schema: remote.schema.map((f) => ({ name: f.name, type: f.type, table: qual })) };
    } else if (this.catalog.views.has(name) && (b.schemaname === undefined || b.schemaname === 'public')) {
      const v = this.catalog.views.get(name)!;
      const saved = this.cteFrames;
      this.cteFrames = [];
      try {
        plan = this.renameColumns(this.bindQuery(nodeBody<SelectStmt>(v.query), null).plan, v.columnNames, name, loc);
      } finally {
        this.cteFrames = saved;
      }
    } else {
      // Tables live in public (TEMP ones in pg_temp); pg_catalog holds only the system relations, and a
      // relation in any other schema does not exist (PostgreSQL says so, not that the schema is missing).
      const schema = b.schemaname as string | undefined;
      const userSchema = schema === undefined || schema === 'public' || schema === 'pg_temp';
      // pg_catalog.x: a system relation the catalog serves (a server connection's pg_class, ...) but
      // never a user table of that name.
      const system = schema === 'pg_catalog' && !this.catalog.tables.has(name) ? this.catalog.getTable(name) : undefined;
      const t: TableSource | undefined =
        (userSchema ? this.catalog.getTableIn(schema, name) : system) ?? (schema === undefined || schema === 'pg_catalog' ? this.sessionRelations?.get(name) : undefined);
      if (t === undefined) throw new QuireError('42P01', `relation "${b.schemaname ? b.schemaname + '.' : ''}${name}" does not exist`, { position: pos(loc) });
      plan = { op: 'scan', source: t, alias: qual, schema: t.schema.map((f) => ({ name: f.name, type: f.type, table: t.name })) };
      // Without ONLY, a table's scan also reads the tables that inherit from it.
      if (b.inh === true) plan = this.withInheritors(plan, t, qual);
    }
    plan = this.renameColumns(plan, colnames, qual, loc);
    return { plan, entries: entriesFor(plan.schema, qual) };
  }

  /**
   * The parent's rows and every descendant's (each table once, however many paths reach it), the
   * descendants' columns picked by name into the parent's order: UNION ALL of their scans.
   */
  private withInheritors(plan: LogicalPlan, t: TableSource, qual: string): LogicalPlan {
    const kids = (x: TableSource): readonly string[] => (x as { inheritance?: { children: string[] } }).inheritance?.children ?? [];
    if (kids(t).length === 0) return plan;
    const seen = new Set<TableSource>([t]);
    const queue = [...kids(t)];
    let out = plan;
    while (queue.length > 0) {
      const c = this.catalog.getTableIn(undefined, queue.shift()!);
      if (c === undefined || seen.has(c)) continue;
      seen.add(c);
      queue.push(...kids(c));
      const scan: LogicalPlan = { op: 'scan', source: c, alias: qual, schema: c.schema.map((f) => ({ name: f.name, type: f.type, table: c.name })) };
      const exprs: Expr[] = plan.schema.map((f) => {
        const i = c.schema.findIndex((x) => x.name === f.name);
        return { kind: 'column', index: i, type: c.schema[i]!.type, name: f.name };
      });
      const project: LogicalPlan = { op: 'project', input: scan, exprs, schema: plan.schema };
      out = { op: 'setop', kind: 'union', all: true, left: out, right: project, schema: plan.schema };
    }
    return out;
  }

  private bindJoin(b: AnyNode, outer: Scope | null): { plan: LogicalPlan; entries: ScopeEntry[]; usesOuter: boolean } {
    const jt = b.jointype as string;
    const type: JoinType = jt === 'JOIN_LEFT' ? 'left' : jt === 'JOIN_RIGHT' ? 'right' : jt === 'JOIN_FULL' ? 'full' : 'inner';
    let left = this.bindFromItem(b.larg as Node, outer, null);
    if (type === 'right' || type === 'full') left = this.markRowPresence(left);
    const leftScope = new Scope(outer);
    leftScope.entries = left.entries;
    let right = this.bindFromItem(b.rarg as Node, outer, leftScope);
    if (type === 'left' || type === 'full') right = this.markRowPresence(right);
    checkNameConflicts(left.entries, right.entries);
    const offset = left.plan.schema.length;
    const rightEntries = right.entries.map((e) => shiftEntry(e, offset));
    const schema = [...left.plan.schema, ...right.plan.schema];
    const scope = new Scope(outer);
    let entries: ScopeEntry[] = [...left.entries, ...rightEntries];
    scope.entries = entries;
    const loc = locOf(b.quals as Node | undefined) ?? (b.location as number | undefined);
    let condition: Expr | null = null;
    let usingNames: string[] | null = null;
    if (b.isNatural) {
      const rnames = new Set(rightEntries.filter((e) => !e.hiddenUnqualified).map((e) => e.name));
      usingNames = left.entries.filter((e) => !e.hiddenUnqualified && rnames.has(e.name)).map((e) => e.name);
      usingNames = [...new Set(usingNames)];
    } else if (b.usingClause) {
      usingNames = strings(b.usingClause as Node[]);
    }
    if (usingNames !== null) {
      const cx: ExprCtx = { scope, clause: 'JOIN/USING', aggs: null, windows: null, env: this };
      const merged: ScopeEntry[] = [];
      const conds: Expr[] = [];
      for (const n of usingNames) {
        const le = findUnique(left.entries, n, 'left', loc);
        const re = findUnique(rightEntries, n, 'right', loc);
        const c = bindComparison('=', le.expr, re.expr, cx, loc) as Expr & { kind: 'compare' };
        conds.push(c);
        let expr: Expr;
        if (type === 'full') {
          expr = { kind: 'coalesce', args: [c.left, c.right], type: c.left.type };
        } else expr = type === 'right' ? c.right : c.left; // in the columns' common type, as PostgreSQL
        merged.push({ qualifier: null, name: n, expr, hiddenFromStar: false, hiddenUnqualified: false });
        le.hiddenUnqualified = true;
        re.hiddenUnqualified = true;
        le.hiddenFromStar = true;
        re.hiddenFromStar = true;
      }
      condition = conds.length === 0 ? null : conds.length === 1 ? conds[0]! : { kind: 'and', args: conds, type: T.bool };
      // Copies stay reachable through their qualifier (a.x), and a.* still lists them.
      entries = [...merged, ...left.entries, ...rightEntries];
      scope.entries = entries;
    } else if (b.quals) {
      const cx: ExprCtx = { scope, clause: 'JOIN conditions', aggs: null, windows: null, env: this };
      condition = coerceBool(bindExpr(b.quals as Node, cx), cx, 'argument of JOIN/ON', locOf(b.quals as Node));
    }
    // The join's own scopes sit directly on `outer`: any outer reference through them, or from its
    // items, belongs to the query whose FROM list holds the join.
    const usesOuter = left.usesOuter === true || right.usesOuter === true || leftScope.usesOuter || scope.usesOuter;
    const plan: LogicalPlan = {
      op: 'join',
      type: condition === null && type === 'inner' && !b.quals && usingNames === null ? 'cross' : type,
      left: left.plan,
      right: right.plan,
      condition,
      lateral: right.lateral === true,
      schema,
    };
    const alias = b.alias as AnyNode | undefined;
    if (alias?.aliasname) {
      // JOIN ... AS j: columns are reachable as j.x (only the visible ones).
      const visible = entries.filter((e) => !e.hiddenFromStar);
      const aliased = visible.map((e) => ({ ...e, qualifier: alias.aliasname as string }));
      return { plan, entries: [...entries.map((e) => ({ ...e, qualifier: null, hiddenUnqualified: true })), ...aliased], usesOuter };
    }
    return { plan, entries, usesOuter };
  }

  /**
   * A FROM item on the NULL side of an outer join whose whole row the query may read gets a hidden
   * column, TRUE in every row it gives (see ROW_PRESENT): the join null-extends it with the others, so
   * the whole row can be NULL where the item had no row. An item already marked by an inner outer join
   * keeps that mark, which this join null-extends too.
   */
  private markRowPresence<R extends { plan: LogicalPlan; entries: ScopeEntry[] }>(side: R): R {
    const names = this.wholeRowNames.at(-1);
    if (names === undefined || names.size === 0) return side;
    const marked = new Set(side.entries.filter((e) => e.name === ROW_PRESENT).map((e) => e.qualifier));
    const wanted = [...new Set(side.entries.map((e) => e.qualifier))].filter((q): q is string => q !== null && names.has(q) && !marked.has(q));
    if (wanted.length === 0) return side;
    const input = side.plan;
    const index = input.schema.length;
    const plan: LogicalPlan = {
      op: 'project',
      input,
      exprs: [...input.schema.map((f, i) => colRef(i, f.type, f.name)), constant(true, T.bool)],
      schema: [...input.schema, { name: ROW_PRESENT, type: T.bool }],
    };
    const marks = wanted.map((q): ScopeEntry => ({ qualifier: q, name: ROW_PRESENT, expr: colRef(index, T.bool, ROW_PRESENT), hiddenFromStar: true, hiddenUnqualified: true }));
    return { ...side, plan, entries: [...side.entries, ...marks] };
  }

  // ---- SELECT ----

  private bindSelect(s: SelectStmt, outer: Scope | null, keepUnknown = false): BoundQuery {
    if (s.intoClause) throw new QuireError('0A000', 'SELECT INTO is handled as CREATE TABLE AS', {});
    checkLockingShape(s);
    const original = s;
    const isUserSrf = (name: string): boolean => this.catalog.functions.get(name)?.some((f) => f.returnsSet) === true;
    const nested = nestGroupedSrf(s, isUserSrf, (name) => isAggregateName(name) || this.catalog.aggregates.has(name));
    if (nested !== null) return this.bindSelect(nested, outer, keepUnknown);
    s = rewriteTargetListSrf(s, isUserSrf);
    const scope = new Scope(outer);
    this.wholeRowNames.push(bareNamesIfOuterJoin(s));
    let plan: LogicalPlan;
    try {
      plan = this.bindFromList(s.fromClause ?? [], scope) ?? { op: 'empty', schema: [], oneRow: true };
    } finally {
      this.wholeRowNames.pop();
    }

    if (s.whereClause) {
      const cx: ExprCtx = { scope, clause: 'WHERE', aggs: null, windows: null, env: this };
      const pred = coerceBool(bindExpr(s.whereClause, cx), cx, 'argument of WHERE', locOf(s.whereClause));
      plan = { op: 'filter', input: plan, predicate: pred, schema: plan.schema };
    }

    const aggs: AggCollector = { calls: [] };
    const named = new Map<string, AnyNode>();
    for (const w of s.windowClause ?? []) {
      const wb = nodeBody<AnyNode>(w);
      if (named.has(wb.name as string)) throw new QuireError('42P20', `window "${wb.name as string}" is already defined`, { position: pos(wb.location as number) });
      // A window can copy only one defined before it in the list, as PostgreSQL reads the clause.
      const ref = wb.refname as string | undefined;
      if (ref !== undefined && !named.has(ref)) throw new QuireError('42704', `window "${ref}" does not exist`, { position: pos(wb.location as number) });
      named.set(wb.name as string, wb);
    }
    const wins: WindowCollector = { calls: [], named };
    const selCx: ExprCtx = { scope, clause: 'SELECT', aggs, windows: wins, env: this };

    // Target list.
    const targets: { expr: Expr; name: string }[] = [];
    for (const t of s.targetList ?? []) {
      const rt = nodeBody<AnyNode>(t);
      const val = rt.val as Node;
      if (nodeTag(val) === 'ColumnRef') {
        const fields = nodeBody<AnyNode>(val).fields as Node[];
        if (nodeTag(fields[fields.length - 1]!) === 'A_Star') {
          const q = fields.length > 1 ? strings(fields.slice(0, -1)).pop()! : null;
          // t.* of an enclosing query's t reads its columns as outer references.
          const expanded =
            q !== null && !scope.hasQualifier(q)
              ? expandOuterStar(val, scope)!.map((e) => ({ expr: e, name: (e as { name: string }).name }))
              : expandStar(scope, q, pos(rt.location as number));
          targets.push(...expanded);
          continue;
        }
      }
      const expr = bindExpr(val, selCx);
      targets.push({ expr: expr.type.name === 'unknown' && !keepUnknown ? coerce(expr, T.text, 'implicit', this) : expr, name: (rt.name as string | undefined) ?? figureColname(val) });
    }

    // GROUP BY: output-column names and ordinals are allowed, as in PostgreSQL. `groupBy` holds every
    // distinct key; `groupingSets` lists the keys (indexes into groupBy) of each grouping set. A plain
    // GROUP BY is the one set of all keys; GROUP BY () and a query without GROUP BY the one empty set.
    const groupCx: ExprCtx = { scope, clause: 'GROUP BY', aggs: null, windows: null, env: this };
    const groupBy: Expr[] = [];
    const keyOf = (g: Node): number => {
      const e0 = this.resolveTargetRef(g, targets, groupCx, 'GROUP BY', true) ?? bindExpr(g, groupCx);
      if (someExpr(e0, (x) => x.kind === 'column' && x.index >= WIN_BASE)) {
        throw new QuireError('42P20', 'window functions are not allowed in GROUP BY', { position: pos(locOf(g)) });
      }
      if (someExpr(e0, (x) => x.kind === 'column' && x.index >= AGG_BASE)) {
        throw new QuireError('42803', 'aggregate functions are not allowed in GROUP BY', { position: pos(locOf(g)) });
      }
      const e = e0.type.name === 'unknown' ? coerce(e0, T.text, 'implicit', this) : e0;
      if (hasNoEquality(e.type)) throw noEquality(e.type, locOf(g));
      const i = groupBy.findIndex((x) => exprEquals(x, e));
      if (i >= 0) return i;
      groupBy.push(e);
      return groupBy.length - 1;
    };
    const grouped = (s.groupClause ?? []).length > 0;
    const groupingSets = expandGroupClause(s.groupClause ?? [], keyOf, s.groupDistinct === true);

    let having: Expr | null = null;
    if (s.havingClause) {
      const hcx: ExprCtx = { scope, clause: 'HAVING', aggs, windows: null, env: this };
      having = coerceBool(bindExpr(s.havingClause, hcx), hcx, 'argument of HAVING', locOf(s.havingClause));
    }

    // ORDER BY keys (bound before aggregation rewrite so they may use aggregates).
    const distinct = s.distinctClause !== undefined;
    const distinctOnNodes = (s.distinctClause ?? []).filter((n) => nodeTag(n) !== undefined);
    const orderCx: ExprCtx = { scope, clause: 'ORDER BY', aggs, windows: wins, env: this };
    const sortKeys: SortKey[] = (s.sortClause ?? []).map((sb) =>
      bindSortBy(sb, orderCx, (n) => this.resolveTargetRef(n, targets, orderCx, 'ORDER BY', false)),
    );
    const distinctOn: Expr[] = distinctOnNodes.map((n) => this.resolveTargetRef(n, targets, orderCx, 'DISTINCT ON', false) ?? bindExpr(n, orderCx));

    // GROUPING(a, b): every argument must be a grouping key. Its value for one grouping set has bit
    // (n-1-j) set when argument j is not in the set (is rolled up).
    const groupingCalls = aggs.grouping ?? [];
    const groupingKeys = groupingCalls.map((c) =>
      c.args.map((a, j) => {
        const i = groupBy.findIndex((g) => exprEquals(g, a));
        if (i < 0) throw new QuireError('42803', 'arguments to GROUPING must be grouping expressions of the associated query level', { position: pos(c.locations[j]) });
        return i;
      }),
    );
    const groupingValue = (gi: number, set: readonly number[]): number => groupingKeys[gi]!.reduce((acc, key) => (acc << 1) | (set.includes(key) ? 0 : 1), 0);

    // A table whose whole primary key is grouped determines the rest of its row (PostgreSQL's functional
    // dependency): its other columns may be read ungrouped. They join the grouping keys, which groups
    // exactly as before (equal keys, equal columns) and gives the aggregate their values.
    if (grouped && groupingSets.length === 1) {
      const used = [...targets.map((t) => t.expr), ...(having !== null ? [having] : []), ...sortKeys.map((k) => k.expr), ...distinctOn];
      for (const index of dependentColumns(plan, groupBy, used)) {
        const f = plan.schema[index]!;
        groupBy.push(colRef(index, f.type, f.name));
        groupingSets[0]!.push(groupBy.length - 1);
      }
    }

    const hasAgg = grouped || aggs.calls.length > 0 || having !== null;
    if (aggs.calls.length > 0 && readsWorktable(plan)) {
      // PostgreSQL refuses this before it compares the terms' column types.
      throw new QuireError('42P19', "aggregate functions are not allowed in a recursive query's recursive term", {
        position: pos(firstAggregateLocation(s, (name) => isAggregateName(name) || this.catalog.aggregates.has(name))),
      });
    }
    checkLockingBound(original, { aggregates: aggs.calls.length > 0, windows: wins.calls.length > 0, setReturning: s !== original });
    let rewrite = (e: Expr): Expr => e;
    if (hasAgg) {
      const k = groupBy.length;
      const naggs = aggs.calls.length;
      const keyFields: Field[] = groupBy.map((g, i) => ({ name: g.kind === 'column' ? g.name : `group${i + 1}`, type: g.type }));
      const aggFields: Field[] = aggs.calls.map((a) => ({ name: a.name, type: a.type }));
      const input = plan;
      checkDirectArgsGrouped(aggs.calls, groupBy, k, naggs);
      // One aggregate per grouping set. An empty set without aggregates is exactly one row whatever the
      // input holds, so the input is not read at all (as in PostgreSQL, where WHERE errors on skipped
      // rows never fire): HAVING without GROUP BY or aggregates, GROUP BY ().
      const branch = (set: readonly number[]): LogicalPlan =>
        set.length === 0 && naggs === 0
          ? { op: 'empty', schema: [], oneRow: true }
          : { op: 'aggregate', input, groupBy: set.map((i) => groupBy[i]!), aggs: aggs.calls, schema: [...set.map((i) => keyFields[i]!), ...aggFields] };
      let grouping: (gi: number) => Expr;
      if (groupingSets.length === 1) {
        // One set: it holds every key, in order, so its aggregate has the output layout as it is.
        const only = groupingSets[0]!;
        plan = branch(only);
        grouping = (gi) => constant(groupingValue(gi, only), T.int4);
      } else {
        // Several sets (ROLLUP, CUBE, GROUPING SETS): the UNION ALL of one aggregate per set, each padded
        // to every key (NULL where the key is rolled up) and followed by its GROUPING values.
        const schema: Field[] = [...keyFields, ...aggFields, ...groupingCalls.map(() => ({ name: 'grouping', type: T.int4 }))];
        const branches = groupingSets.map((set): LogicalPlan => {
          const exprs: Expr[] = [
            ...groupBy.map((g, i) => {
              const p = set.indexOf(i);
              return p >= 0 ? colRef(p, g.type, keyFields[i]!.name) : constant(null, g.type);
            }),
            ...aggs.calls.map((a, ai) => colRef(set.length + ai, a.type, a.name)),
            ...groupingCalls.map((_, gi) => constant(groupingValue(gi, set), T.int4)),
          ];
          return { op: 'project', input: branch(set), exprs, schema };
        });
        plan = unionAll(branches, schema);
        grouping = (gi) => colRef(k + naggs + gi, T.int4, 'grouping');
      }
      rewrite = (e: Expr): Expr => rewriteForAggregate(e, groupBy, k, naggs, grouping);
      if (having !== null) plan = { op: 'filter', input: plan, predicate: rewrite(having), schema: plan.schema };
    }

    if (wins.calls.length > 0) {
      const base = plan.schema.length;
      const earlier = [...sortKeys.map((k) => k.expr), ...groupBy, ...(distinctOn.length > 0 ? distinctOn : distinct ? targets.map((t) => t.expr) : [])];
      const evalOrder = windowEvalOrder(
        wins.calls.map((c) => c.spec),
        earlier,
      );
      const calls: WindowCall[] = wins.calls.map((c, ci) => ({
        ...c,
        args: c.args.map(rewrite),
        filter: c.filter ? rewrite(c.filter) : null,
        spec: {
          partitionBy: c.spec.partitionBy.map(rewrite),
          orderBy: c.spec.orderBy.map((k) => ({ ...k, expr: rewrite(k.expr) })),
          frame: c.spec.frame,
          evalOrder: evalOrder[ci]!,
        },
      }));
      plan = { op: 'window', input: plan, calls, schema: [...plan.schema, ...calls.map((c) => ({ name: c.name, type: c.type }))] };
      const prev = rewrite;
      rewrite = (e: Expr): Expr => rewriteWindowRefs(prev(e), base);
    }

    const outTargets = targets.map((t) => ({ expr: rewrite(t.expr), name: t.name }));
    const keys = sortKeys.map((k) => ({ ...k, expr: rewrite(k.expr) }));
    const onKeys = distinctOn.map(rewrite);

    // Projection: visible targets, then hidden sort keys not already projected.
    const projExprs = outTargets.map((t) => t.expr);
    const projNames = outTargets.map((t) => t.name);
    const keyIndex = (e: Expr, forDistinct: boolean, loc?: number): number => {
      const i = projExprs.findIndex((x) => exprEquals(x, e));
      if (i >= 0) return i;
      if (forDistinct) {
        throw new QuireError('42P10', 'for SELECT DISTINCT, ORDER BY expressions must appear in select list', { position: pos(loc) });
      }
      projExprs.push(e);
      projNames.push('?sort?');
      return projExprs.length - 1;
    };
    const sortCols = keys.map((k, i) => ({ col: keyIndex(k.expr, distinct && distinctOn.length === 0, locOf(nodeBody<AnyNode>((s.sortClause ?? [])[i]!).node as Node)), desc: k.desc, nullsFirst: k.nullsFirst }));
    const onCols = onKeys.map((e) => keyIndex(e, false));
    const visible = outTargets.length;
    const projSchema = projExprs.map((e, i) => ({ name: projNames[i]!, type: e.type }));
    plan = { op: 'project', input: plan, exprs: projExprs, schema: projSchema };
    const refKeys = (cols: typeof sortCols): SortKey[] => cols.map((c) => ({ expr: colRef(c.col, projSchema[c.col]!.type, projSchema[c.col]!.name), desc: c.desc, nullsFirst: c.nullsFirst }));

    if (distinct && distinctOn.length === 0) {
      const unequal = projSchema.slice(0, visible).find((f) => hasNoEquality(f.type));
      if (unequal !== undefined) throw noEquality(unequal.type, undefined);
      plan = { op: 'distinct', input: plan, schema: plan.schema };
      if (sortCols.length) plan = { op: 'sort', input: plan, keys: refKeys(sortCols), schema: plan.schema };
    } else if (distinctOn.length > 0) {
      // DISTINCT ON keeps the first row per key in ORDER BY order, so ORDER BY must lead with the keys.
      for (let i = 0; i < Math.min(onCols.length, sortCols.length); i++) {
        if (!onCols.includes(sortCols[i]!.col)) {
          throw new QuireError('42P10', 'SELECT DISTINCT ON expressions must match initial ORDER BY expressions', {
            position: pos(locOf(nodeBody<AnyNode>(s.sortClause![i]!).node as Node)),
          });
        }
      }
      const lead = sortCols.slice(0, onCols.length).map((c) => c.col);
      const order = [...sortCols];
      for (const c of onCols) if (!lead.includes(c) && !order.some((o) => o.col === c)) order.push({ col: c, desc: false, nullsFirst: false });
      plan = { op: 'sort', input: plan, keys: refKeys(order), schema: plan.schema };
      plan = { op: 'distinct-on', input: plan, keys: onCols.map((c) => colRef(c, projSchema[c]!.type, projSchema[c]!.name)), schema: plan.schema };
    } else if (sortCols.length) {
      plan = { op: 'sort', input: plan, keys: refKeys(sortCols), schema: plan.schema };
    }

    plan = this.applyLimit(s, plan, refKeys(sortCols), scope);
    if (projExprs.length > visible) {
      plan = { op: 'project', input: plan, exprs: projSchema.slice(0, visible).map((f, i) => colRef(i, f.type, f.name)), schema: projSchema.slice(0, visible) };
    }
    return { plan, scope };
  }

  /** ORDER BY / GROUP BY items that name an output column or give its ordinal. */
  private resolveTargetRef(n: Node, targets: { expr: Expr; name: string }[], cx: ExprCtx, clause: string, preferInput: boolean): Expr | undefined {
    const tag = nodeTag(n);
    const b = nodeBody<AnyNode>(n);
    if (tag === 'A_Const' && b.ival !== undefined) {
      const k = (b.ival as { ival?: number }).ival ?? 0;
      if (k < 1 || k > targets.length) {
        throw new QuireError('42P10', `${clause} position ${k} is not in select list`, { position: pos(b.location as number) });
      }
      return targets[k - 1]!.expr;
    }
    // Every other constant (a string, 1.0, NULL, true) is refused: only an integer names a column.
    if (tag === 'A_Const') {
      throw new QuireError('42601', `non-integer constant in ${clause}`, { position: pos(b.location as number) });
    }
    if (tag === 'ColumnRef') {
      const fields = b.fields as Node[];
      if (fields.length !== 1 || nodeTag(fields[0]!) !== 'String') return undefined;
      const name = strings(fields)[0]!;
      // GROUP BY prefers input columns over output names; ORDER BY the reverse (SQL92 rules).
      if (preferInput && cx.scope.findLocal(null, name, 0) !== undefined) return undefined;
      const matches = targets.filter((t) => t.name === name);
      if (matches.length === 0) return undefined;
      if (matches.length > 1 && !matches.every((m) => exprEquals(m.expr, matches[0]!.expr))) {
        throw new QuireError('42702', `${clause} "${name}" is ambiguous`, { position: pos(b.location as number) });
      }
      return matches[0]!.expr;
    }
    return undefined;
  }

  private applyLimit(s: SelectStmt, plan: LogicalPlan, sortKeys: SortKey[], scope: Scope | null): LogicalPlan {
    const withTies = s.limitOption === 'LIMIT_OPTION_WITH_TIES';
    if (!s.limitCount && !s.limitOffset) return plan;
    const cx: ExprCtx = { scope: scope ?? new Scope(null), clause: 'LIMIT', aggs: null, windows: null, env: this };
    const bindCount = (n: Node, what: 'LIMIT' | 'OFFSET'): Expr | null => {
      const e0 = bindExpr(n, { ...cx, clause: what });
      if (someExpr(e0, (x) => x.kind === 'column')) {
        throw new QuireError('42P10', `argument of ${what} must not contain variables`, { position: pos(locOf(n)) });
      }
      // PostgreSQL's transformLimitClause coerces to bigint in assignment context: LIMIT 2.5 is LIMIT 3.
      const e = coerce(e0, T.int8, 'assignment', this, pos(locOf(n)), `argument of ${what}`);
      if (e.kind === 'const') {
        if (e.value === null) return null;
        const v = Number(e.value);
        if (v < 0) {
          throw what === 'LIMIT'
            ? new QuireError('2201W', 'LIMIT must not be negative', { position: pos(locOf(n)) })
            : new QuireError('2201X', 'OFFSET must not be negative', { position: pos(locOf(n)) });
        }
      }
      return e;
    };
    const count = s.limitCount ? bindCount(s.limitCount, 'LIMIT') : null;
    const offset = s.limitOffset ? bindCount(s.limitOffset, 'OFFSET') : null;
    if (withTies) {
      if (sortKeys.length === 0) throw new QuireError('42601', 'WITH TIES cannot be specified without ORDER BY clause', { position: pos(locOf(s.limitCount)) });
      // Only a NULL literal is refused (PostgreSQL's transformLimitClause); any other NULL count, such as
      // NULL::int or a parameter, means no limit.
      if (s.limitCount && nodeTag(s.limitCount) === 'A_Const' && nodeBody<AnyNode>(s.limitCount).isnull === true) {
        throw new QuireError('2201W', 'row count cannot be null in FETCH FIRST ... WITH TIES clause', { position: pos(locOf(s.limitCount)) });
      }
    }
    if (count === null && (offset === null || (offset.kind === 'const' && Number(offset.value) === 0))) return plan;
    return { op: 'limit', input: plan, offset, count, ties: withTies ? sortKeys : null, schema: plan.schema };
  }

  // ---- VALUES ----

  private bindValues(s: SelectStmt, outer: Scope | null): BoundQuery {
    const scope = new Scope(outer);
    const cx: ExprCtx = { scope, clause: 'VALUES', aggs: null, windows: null, env: this };
    const rows = (s.valuesLists ?? []).map((l) => (nodeBody<AnyNode>(l).items as Node[]).flatMap((n) => expandOuterStar(n, scope) ?? [bindExpr(n, cx)]));
    const width = rows[0]?.length ?? 0;
    for (const r of rows) {
      if (r.length !== width) throw new QuireError('42601', 'VALUES lists must all be the same length', { position: pos(locOf((s.valuesLists ?? [])[0])) });
    }
    const types: DataType[] = [];
    for (let c = 0; c < width; c++) types.push(unifyTypes(rows.map((r) => r[c]!.type), 'VALUES', 0));
    const coerced = rows.map((r) => r.map((e, c) => coerce(e, types[c]!, 'implicit', this)));
    let plan: LogicalPlan = { op: 'values', rows: coerced, schema: types.map((t, i) => ({ name: `column${i + 1}`, type: t })) };
    plan = this.orderAndLimitOnOutput(s, plan, scope, false);
    return { plan, scope };
  }

  /** ORDER BY / LIMIT over a VALUES list or set operation: keys name output columns. */
  private orderAndLimitOnOutput(s: SelectStmt, plan: LogicalPlan, scope: Scope, setOp: boolean): LogicalPlan {
    const outScope = new Scope(scope.parent);
    outScope.entries = entriesFor(plan.schema, null);
    const cx: ExprCtx = { scope: outScope, clause: 'ORDER BY', aggs: null, windows: null, env: this };
    const targets = plan.schema.map((f, i) => ({ expr: colRef(i, f.type, f.name), name: f.name }));
    const keys = (s.sortClause ?? []).map((sb) => {
      const k = bindSortBy(sb, cx, (n) => this.resolveTargetRef(n, targets, cx, 'ORDER BY', false));
      // A set operation's output has no columns to compute an expression from: PostgreSQL sorts by result columns only.
      if (setOp && (k.expr.kind !== 'column' || k.expr.index >= plan.schema.length)) {
        throw new QuireError('0A000', 'invalid UNION/INTERSECT/EXCEPT ORDER BY clause', {
          position: pos(leftmostLocOf(nodeBody<AnyNode>(sb).node)),
          detail: 'Only result column names can be used, not expressions or functions.',
          hint: 'Add the expression/function to every SELECT, or move the UNION into a FROM clause.',
        });
      }
      return k;
    });
    let extra = 0;
    const exprs = plan.schema.map((f, i) => colRef(i, f.type, f.name) as Expr);
    const keyCols = keys.map((k) => {
      if (k.expr.kind === 'column') return { ...k };
      exprs.push(k.expr);
      extra++;
      return { ...k, expr: colRef(exprs.length - 1, k.expr.type, '?sort?') };
    });
    const visible = plan.schema.length;
    if (extra > 0) plan = { op: 'project', input: plan, exprs, schema: exprs.map((e, i) => ({ name: plan.schema[i]?.name ?? '?sort?', type: e.type })) };
    if (keyCols.length) plan = { op: 'sort', input: plan, keys: keyCols, schema: plan.schema };
    plan = this.applyLimit(s, plan, keyCols, scope);
    if (extra > 0) plan = { op: 'project', input: plan, exprs: plan.schema.slice(0, visible).map((f, i) => colRef(i, f.type, f.name)), schema: plan.schema.slice(0, visible) };
    return plan;
  }

  // ---- set operations ----

  private bindSetOp(s: SelectStmt, outer: Scope | null): BoundQuery {
    checkLockingShape(s);
    const l = this.bindQuery(s.larg!, outer, true);
    const r = this.bindQuery(s.rarg!, outer, true);
    const kind = s.op === 'SETOP_UNION' ? 'union' : s.op === 'SETOP_INTERSECT' ? 'intersect' : 'except';
    if (l.plan.schema.length !== r.plan.schema.length) {
      throw new QuireError('42601', `each ${kind.toUpperCase()} query must have the same number of columns`, {});
    }
    const types = l.plan.schema.map((f, i) => unifyTypes([f.type, r.plan.schema[i]!.type], kind.toUpperCase(), 0));
    // Only UNION ALL keeps every row without comparing them.
    const unequal = types.find((t) => hasNoEquality(t));
    if ((kind !== 'union' || s.all !== true) && unequal !== undefined) throw noEquality(unequal, undefined);
    const castTo = (p: LogicalPlan): LogicalPlan => {
      if (p.schema.every((f, i) => f.type.name === types[i]!.name && f.type.typmod === types[i]!.typmod)) return p;
      return {
        op: 'project',
        input: p,
        exprs: p.schema.map((f, i) => coerce(colRef(i, f.type, f.name), types[i]!, 'implicit', this)),
        schema: p.schema.map((f, i) => ({ name: f.name, type: types[i]! })),
      };
    };
    const schema = l.plan.schema.map((f, i) => ({ name: f.name, type: types[i]! }));
    let plan: LogicalPlan = { op: 'setop', kind, all: s.all === true, left: castTo(l.plan), right: castTo(r.plan), schema };
    const scope = new Scope(outer);
    scope.usesOuter = l.scope.usesOuter || r.scope.usesOuter;
    plan = this.orderAndLimitOnOutput(s, plan, scope, true);
    return { plan, scope };
  }
}

/** json and point have no equality operator, so nothing can group or deduplicate by them (jsonb could). */
function noEquality(t: DataType, loc: number | undefined): QuireError {
  return new QuireError('42883', `could not identify an equality operator for type ${typeDisplayName(t)}`, { position: pos(loc) });
}

/** An INSERT, UPDATE, DELETE or MERGE (a WITH query that changes a table). */
export function isModifying(q: Node): boolean {
  const tag = nodeTag(q);
  return tag === 'InsertStmt' || tag === 'UpdateStmt' || tag === 'DeleteStmt' || tag === 'MergeStmt';
}

/** UNION ALL of several plans with one schema, as a balanced tree (CUBE can make thousands of branches). */
function unionAll(plans: LogicalPlan[], schema: Field[]): LogicalPlan {
  if (plans.length === 1) return plans[0]!;
  const mid = plans.length >> 1;
  return { op: 'setop', kind: 'union', all: true, left: unionAll(plans.slice(0, mid), schema), right: unionAll(plans.slice(mid), schema), schema };
}

function rewriteWindowRefs(e: Expr, base: number): Expr {
  if (e.kind === 'column' && e.index >= WIN_BASE) return { ...e, index: base + e.index - WIN_BASE };
  if (e.kind === 'column' || e.kind === 'const' || e.kind === 'param' || e.kind === 'outer') return e;
  return mapChildren(e, (c) => rewriteWindowRefs(c, base));
}

/** Rebuilds one level of an expression with `f` applied to its direct children. */
export function mapChildren(e: Expr, f: (e: Expr) => Expr): Expr {
  switch (e.kind) {
    case 'column':
    case 'outer':
    case 'const':
    case 'param':
      return e;
    case 'call':
    case 'and':
    case 'or':
    case 'coalesce':
    case 'minmax':
    case 'array':
    case 'plpgsql':
      return { ...e, args: e.args.map(f) } as Expr;
    case 'cast':
    case 'not':
    case 'is-null':
    case 'bool-test':
      return { ...e, arg: f(e.arg) } as Expr;
    case 'compare':
    case 'distinct-from':
    case 'nullif':
      return { ...e, left: f(e.left), right: f(e.right) } as Expr;
    case 'case':
      return { ...e, whens: e.whens.map((w) => ({ when: f(w.when), then: f(w.then) })), else: f(e.else) };
    case 'in-list':
      return { ...e, arg: f(e.arg), list: e.list.map(f) };
    case 'subquery':
      return e.rowArgs ? { ...e, rowArgs: e.rowArgs.map(f) } : e.arg ? { ...e, arg: f(e.arg) } : e;
  }
}

/** PostgreSQL's FigureColname: the output name of an unnamed select-list item. */
export function figureColname(n: Node): string {
  return colnameOf(n)[0];
}

/**
 * FigureColnameInternal: a name and its strength: 2 for a column, function or keyword expression, 1 for
 * a cast's type name or "case" (an outer cast or CASE replaces them: CAST(DATE 'x' AS text) is "text",
 * CASE … ELSE col END is "col"), 0 for "?column?".
 */
function colnameOf(n: Node): [string, number] {
  const tag = nodeTag(n);
  const b = nodeBody<AnyNode>(n);
  switch (tag) {
    case 'ColumnRef': {
      const f = b.fields as Node[];
      const last = f[f.length - 1]!;
      return nodeTag(last) === 'String' ? [strings([last])[0]!, 2] : ['?column?', 0];
    }
    case 'FuncCall': {
      const parts = strings(b.funcname as Node[]);
      return [parts[parts.length - 1]!, 2];
    }
    case 'TypeCast': {
      const inner = colnameOf(b.arg as Node);
      if (inner[1] > 1) return inner;
      const names = strings((b.typeName as AnyNode).names as Node[]);
      return [names[names.length - 1]!, 1];
    }
    case 'CaseExpr': {
      const inner: [string, number] = b.defresult ? colnameOf(b.defresult as Node) : ['?column?', 0];
      return inner[1] > 1 ? inner : ['case', 1];
    }
    case 'CoalesceExpr':
      return ['coalesce', 2];
    case 'GroupingFunc':
      return ['grouping', 2];
    case 'MinMaxExpr':
      return [b.op === 'IS_GREATEST' ? 'greatest' : 'least', 2];
    case 'NullIfExpr':
      return ['nullif', 2];
    case 'A_Expr':
      return b.kind === 'AEXPR_NULLIF' ? ['nullif', 2] : ['?column?', 0];
    case 'SubLink': {
      const k = b.subLinkType as string;
      if (k === 'EXISTS_SUBLINK') return ['exists', 2];
      if (k === 'ARRAY_SUBLINK') return ['array', 2];
      if (k === 'EXPR_SUBLINK') {
        const sel = nodeBody<SelectStmt>(b.subselect as Node);
        const t = sel.targetList?.[0];
        if (t) {
          const rt = nodeBody<AnyNode>(t);
          if (rt.name !== undefined) return [rt.name as string, 2];
          return colnameOf(rt.val as Node);
        }
      }
      return ['?column?', 0];
    }
    case 'SQLValueFunction': {
      const op = (b.op as string).replace('SVFOP_', '').replace(/_N$/, '').toLowerCase();
      return [op, 2];
    }
    case 'CollateClause':
      return colnameOf(b.arg as Node);
    case 'A_Indirection': {
      // A field selection names the column; subscripts do not, so (f(x))[1] is named after f.
      const named = (b.indirection as Node[]).filter((i) => nodeTag(i) === 'String');
      return named.length > 0 ? [strings(named.slice(-1))[0]!, 2] : colnameOf(b.arg as Node);
    }
    default:
      return ['?column?', 0];
  }
}

export { isConstantExpr };

const NO_NAMES: ReadonlySet<string> = new Set();

/**
 * Names a SELECT (its clauses and subqueries) might use as whole-row references: every one-part column
 * name and every `name.*`. A superset is harmless (an unused mark costs one constant column); only read
 * when the FROM clause has an outer join, the one place a whole row can be NULL.
 */
function bareNamesIfOuterJoin(s: SelectStmt): ReadonlySet<string> {
  const hasOuter = (n: unknown): boolean => {
    if (n === null || typeof n !== 'object') return false;
    if (Array.isArray(n)) return n.some(hasOuter);
    const j = (n as { JoinExpr?: AnyNode }).JoinExpr;
    if (j === undefined) return false;
    return (j.jointype as string) !== 'JOIN_INNER' || hasOuter(j.larg) || hasOuter(j.rarg);
  };
  if (!hasOuter(s.fromClause ?? [])) return NO_NAMES;
  const names = new Set<string>();
  const walk = (x: unknown): void =>
    forEachNode(x, 'ColumnRef', (ref) => {
      const fields = (ref.fields as Node[] | undefined) ?? [];
      const last = fields[fields.length - 1];
      if (fields.length === 1 && last !== undefined && nodeTag(last) === 'String') names.add(strings(fields)[0]!);
      if (fields.length === 2 && last !== undefined && nodeTag(last) === 'A_Star' && nodeTag(fields[0]!) === 'String') names.add(strings(fields.slice(0, 1))[0]!);
    });
  for (const [k, v] of Object.entries(s)) {
    if (k !== 'targetList') walk(v);
  }
  // A select-list item that is only `t.*` expands to columns; it reads no whole row.
  for (const t of s.targetList ?? []) {
    const val = nodeBody<AnyNode>(t).val as Node;
    const ref = nodeTag(val) === 'ColumnRef' ? (nodeBody<AnyNode>(val).fields as Node[]) : null;
    if (ref === null || nodeTag(ref[ref.length - 1]!) !== 'A_Star') walk(t);
  }
  return names;
}

/** Whether a FROM clause's plan reads a recursive query's own rows (its worktable) at this level. */
function readsWorktable(p: LogicalPlan): boolean {
  if (p.op === 'worktable') return true;
  // A complete recursive query read here keeps its worktable to itself.
  if (p.op === 'recursive-cte') return false;
  return nodeInfo(p).children(p).some(readsWorktable);
}

/** Where the first call of an aggregate is written in a SELECT outside its FROM clause. */
function firstAggregateLocation(s: SelectStmt, isAggregate: (name: string) => boolean): number | undefined {
  let best: number | undefined;
  const visit = (call: AnyNode): void => {
    const name = strings(call.funcname as Node[]).pop() ?? '';
    const loc = call.location as number | undefined;
    if (isAggregate(name) && call.over === undefined && loc !== undefined && (best === undefined || loc < best)) best = loc;
    // An aggregate can sit in another's arguments (an outer-level one inside a sub-SELECT).
    forEachNode(call.args, 'FuncCall', visit);
  };
  for (const [k, v] of Object.entries(s)) if (k !== 'fromClause') forEachNode(v, 'FuncCall', visit);
  return best;
}
