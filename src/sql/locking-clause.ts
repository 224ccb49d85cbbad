/**
 * SELECT … FOR UPDATE / NO KEY UPDATE / SHARE / KEY SHARE: the checks PostgreSQL's parser makes
 * (CheckSelectLocking, transformLockingClause). The rows are locked by the statement's runner; for
 * the binder a locking clause changes nothing else.
 */
import type { Node, SelectStmt } from '@pgsql/types';
import { QuireError } from '../common/errors.js';
import { nodeBody, type AnyNode } from './ast.js';

export type LockStrength = 'update' | 'no key update' | 'share' | 'key share';
export type LockWait = 'wait' | 'nowait' | 'skip';

export interface LockingItem {
  strength: LockStrength;
  wait: LockWait;
  /** The FROM-item names (aliases) the clause names with OF; null for all of them. */
  of: string[] | null;
}

const STRENGTH: Record<string, LockStrength> = {
  LCS_FORUPDATE: 'update',
  LCS_FORNOKEYUPDATE: 'no key update',
  LCS_FORSHARE: 'share',
  LCS_FORKEYSHARE: 'key share',
};

export function lockingItems(s: SelectStmt): LockingItem[] {
  return (s.lockingClause ?? []).map((n) => {
    const c = nodeBody<AnyNode>(n);
    const rels = (c.lockedRels as Node[] | undefined) ?? [];
    return {
      strength: STRENGTH[c.strength as string] ?? 'update',
      wait: c.waitPolicy === 'LockWaitError' ? 'nowait' : c.waitPolicy === 'LockWaitSkip' ? 'skip' : 'wait',
      of: rels.length === 0 ? null : rels.map((r) => nodeBody<AnyNode>(r).relname as string),
    };
  });
}

/** "FOR UPDATE", "FOR KEY SHARE" …, as PostgreSQL's messages spell the clause. */
export function lockingText(strength: LockStrength): string {
  return `FOR ${strength.toUpperCase()}`;
}

function refuse(s: SelectStmt, what: string): never {
  const first = lockingItems(s)[0]!;
  throw new QuireError('0A000', `${lockingText(first.strength)} is not allowed with ${what}`);
}

/** Checks made before binding: set operations, DISTINCT, GROUP BY, HAVING. */
export function checkLockingShape(s: SelectStmt): void {
  if (!s.lockingClause || s.lockingClause.length === 0) return;
  if (s.op !== undefined && s.op !== 'SETOP_NONE') refuse(s, 'UNION/INTERSECT/EXCEPT');
  if (s.distinctClause !== undefined) refuse(s, 'DISTINCT clause');
  if ((s.groupClause ?? []).length > 0) refuse(s, 'GROUP BY clause');
  if (s.havingClause !== undefined) refuse(s, 'HAVING clause');
  if (s.valuesLists !== undefined) throw new QuireError('0A000', `${lockingText(lockingItems(s)[0]!.strength)} cannot be applied to VALUES`);
}

/** Checks made once the select list is bound: aggregates, window functions, set-returning functions. */
export function checkLockingBound(s: SelectStmt, found: { aggregates: boolean; windows: boolean; setReturning: boolean }): void {
  if (!s.lockingClause || s.lockingClause.length === 0) return;
  if (found.aggregates) refuse(s, 'aggregate functions');
  if (found.windows) refuse(s, 'window functions');
  if (found.setReturning) refuse(s, 'set-returning functions in the target list');
}

/**
 * The FROM items a locking clause applies to, by the name they are referred to with, each with the
 * strongest strength and wait policy asked for it. OF must name an item of this FROM list (42P01).
 */
export function lockedItems(s: SelectStmt, fromNames: readonly string[]): Map<string, { strength: LockStrength; wait: LockWait }> {
  const rank: Record<LockStrength, number> = { 'key share': 0, share: 1, 'no key update': 2, update: 3 };
  const waitRank: Record<LockWait, number> = { wait: 0, skip: 1, nowait: 2 };
  const out = new Map<string, { strength: LockStrength; wait: LockWait }>();
  for (const item of lockingItems(s)) {
    const names = item.of ?? fromNames;
    for (const n of item.of ?? []) {
      if (!fromNames.includes(n)) throw new QuireError('42P01', `relation "${n}" in ${lockingText(item.strength)} clause not found in FROM clause`);
    }
    for (const n of names) {
      const prev = out.get(n);
      out.set(n, {
        strength: prev === undefined || rank[item.strength] > rank[prev.strength] ? item.strength : prev.strength,
        wait: prev === undefined || waitRank[item.wait] > waitRank[prev.wait] ? item.wait : prev.wait,
      });
    }
  }
  return out;
}
