/**
 * The shape rules PostgreSQL imposes on a recursive CTE (its parse_cte.c), checked on the raw parse
 * tree before binding. Each rule exists because the iteration would otherwise be ill-defined or never
 * end: the working table must be read exactly once per iteration, and only where every row of it
 * flows straight into the result (not from inside a subquery expression, the nullable side of an
 * outer join, INTERSECT ALL or the right side of EXCEPT).
 */
import type { Node, SelectStmt } from '@pgsql/types';
import { QuireError } from '../common/errors.js';
import { nodeTag } from './ast.js';

type Context = 'ok' | 'sublink' | 'outer join' | 'intersect' | 'except';

const MESSAGE: Record<Exclude<Context, 'ok'>, string> = {
  sublink: 'within a subquery',
  'outer join': 'within an outer join',
  intersect: 'within INTERSECT',
  except: 'within EXCEPT',
};

type AnyNode = Record<string, unknown>;

/** 0A000 for the clauses a recursive query cannot have, on the UNION that forms it. */
export function checkRecursiveClauses(sel: SelectStmt, position: (loc: number | undefined) => number | undefined): void {
  const loc = (n: unknown): number | undefined => position(locationOf(n));
  if (sel.sortClause && sel.sortClause.length > 0) throw new QuireError('0A000', 'ORDER BY in a recursive query is not implemented', { position: loc(sel.sortClause[0]) });
  if (sel.limitOffset) throw new QuireError('0A000', 'OFFSET in a recursive query is not implemented', { position: loc(sel.limitOffset) });
  if (sel.limitCount) throw new QuireError('0A000', 'LIMIT in a recursive query is not implemented', { position: loc(sel.limitCount) });
  if (sel.lockingClause && sel.lockingClause.length > 0) throw new QuireError('0A000', 'FOR UPDATE/SHARE in a recursive query is not implemented');
}

/**
 * Checks the recursive term: at most one reference to `name`, and none in a place listed above.
 * `position` maps a parse location to the error position.
 */
export function checkRecursiveTerm(name: string, term: SelectStmt, position: (loc: number | undefined) => number | undefined): void {
  let references = 0;
  const fail = (what: string, at: number | undefined): never => {
    throw new QuireError('42P19', `recursive reference to query "${name}" must not appear ${what}`, { position: position(at) });
  };

  const select = (s: SelectStmt, ctx: Context): void => {
    // An inner WITH that defines the same name hides this CTE in its scope.
    const shadows = (s.withClause?.ctes ?? []).some((c) => (nodeTag(c) === 'CommonTableExpr' ? (body(c).ctename as string) === name : false));
    if (shadows) return;
    for (const c of s.withClause?.ctes ?? []) walk(body(c).ctequery, ctx);
    switch (s.op) {
      case 'SETOP_UNION':
        select(s.larg!, ctx);
        select(s.rarg!, ctx);
        return;
      case 'SETOP_INTERSECT':
        select(s.larg!, s.all ? 'intersect' : ctx);
        select(s.rarg!, s.all ? 'intersect' : ctx);
        return;
      case 'SETOP_EXCEPT':
        select(s.larg!, s.all ? 'except' : ctx);
        select(s.rarg!, 'except');
        return;
      default:
        for (const k of ['fromClause', 'targetList', 'whereClause', 'groupClause', 'havingClause', 'windowClause', 'valuesLists', 'distinctClause'] as const) walk(s[k], ctx);
    }
  };

  const walk = (n: unknown, ctx: Context): void => {
    if (n === null || typeof n !== 'object') return;
    if (Array.isArray(n)) {
      for (const x of n) walk(x, ctx);
      return;
    }
    const tag = nodeTag(n as Node) ?? '';
    const b = (n as AnyNode)[tag] as AnyNode | undefined;
    if (b === undefined || typeof b !== 'object') {
      for (const k in n as AnyNode) walk((n as AnyNode)[k], ctx);
      return;
    }
    switch (tag) {
      case 'SelectStmt':
        select(b as SelectStmt, ctx);
        return;
      case 'RangeVar':
        if (b.relname === name && b.schemaname === undefined) {
          if (ctx !== 'ok') fail(MESSAGE[ctx], b.location as number | undefined);
          if (++references > 1) fail('more than once', b.location as number | undefined);
        }
        return;
      case 'SubLink':
        walk(b.testexpr, ctx);
        walk(b.subselect, 'sublink');
        return;
      case 'JoinExpr': {
        const t = b.jointype as string;
        walk(b.larg, t === 'JOIN_RIGHT' || t === 'JOIN_FULL' ? 'outer join' : ctx);
        walk(b.rarg, t === 'JOIN_LEFT' || t === 'JOIN_FULL' ? 'outer join' : ctx);
        walk(b.quals, ctx);
        return;
      }
      default:
        for (const k in b) walk(b[k], ctx);
    }
  };

  select(term, 'ok');
}

function body(n: unknown): AnyNode {
  const o = n as AnyNode;
  return o[nodeTag(o as Node) ?? ''] as AnyNode;
}

function locationOf(n: unknown): number | undefined {
  if (n === null || typeof n !== 'object') return undefined;
  const b = body(n);
  if (b && typeof b === 'object' && typeof b.location === 'number') return b.location;
  return undefined;
}
