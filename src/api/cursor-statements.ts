/** DECLARE, FETCH/MOVE and SELECT … FOR UPDATE/SHARE (row locks taken as rows are read). */
import type { Node, SelectStmt } from '@pgsql/types';
import { QuireError } from '../common/errors.js';
import { checkCancel } from '../execution/context.js';
import { queryMemory } from '../execution/memory-pool.js';
import { nodeBody, nodeTag, type AnyNode } from '../sql/ast.js';
import { Cursor } from './cursors.js';
import type { QueryResult } from './database.js';
import { lockingItems, lockingText } from '../sql/locking-clause.js';
import { rowChanged, type RowRef } from './row-lineage.js';
import type { Batch } from '../common/column.js';
import type { Value } from '../common/types.js';
import type { MemoryTable } from '../storage/memory-table.js';
import { LockOwner, tryLockRows, waitFor } from './row-locks.js';
import { byTable, lockTargets, simplyUpdatable, targetRow, type RowTarget } from './row-targets.js';
import type { UtilityHost } from './utility.js';
import { result } from './statement-support.js';

/** DECLARE's option bits (PostgreSQL's CURSOR_OPT_*). */
const CURSOR_OPT = { binary: 0x1, scroll: 0x2, noScroll: 0x4, insensitive: 0x8, hold: 0x20 } as const;

export async function declareCursor(host: UtilityHost, b: AnyNode, params: readonly unknown[], text: string): Promise<QueryResult> {
  const name = b.portalname as string;
  const opts = (b.options as number | undefined) ?? 0;
  const hold = (opts & CURSOR_OPT.hold) !== 0;
  if (!hold && !host.session.inTransaction) {
    throw new QuireError('25P01', 'DECLARE CURSOR can only be used in transaction blocks');
  }
  if (host.cursors.has(name)) throw new QuireError('42P03', `cursor "${name}" already exists`);
  const q = b.query as Node;
  if (nodeTag(q) !== 'SelectStmt') throw new QuireError('0A000', 'DECLARE CURSOR supports SELECT queries');
  const sel = nodeBody<SelectStmt>(q);
  const locking = (sel.lockingClause ?? []).length > 0;
  if (locking) {
    // PostgreSQL's rules: a locking cursor reads the rows as it locks them, once, in this transaction.
    if (opts & CURSOR_OPT.scroll) throw new QuireError('0A000', `DECLARE SCROLL CURSOR ... ${lockingText(lockingItems(sel)[0]!.strength)} is not supported`, { detail: 'Scrollable cursors must be READ ONLY.' });
    if (hold) throw new QuireError('0A000', `DECLARE CURSOR WITH HOLD ... ${lockingText(lockingItems(sel)[0]!.strength)} is not supported`, { detail: 'Holdable cursors must be READ ONLY.' });
    if (opts & CURSOR_OPT.insensitive) throw new QuireError('42601', `DECLARE INSENSITIVE CURSOR ... ${lockingText(lockingItems(sel)[0]!.strength)} is not valid`, { detail: 'Insensitive cursors must be READ ONLY.' });
  }
  const plain = host.prepareSelect(sel, params);
  // Rows of the tables WHERE CURRENT OF may name carry their position (row-targets.ts).
  const targeted = locking ? lockTargets(host.catalog, sel) : simplyUpdatable(host.catalog, sel, plain.plan);
  const prepared = targeted !== null && targeted.targets.length > 0 ? host.prepareSelect(targeted.stmt, params, undefined, targeted.relations) : plain;
  const targets = targeted !== null && prepared !== plain ? targeted.targets : [];
  const ctx = host.execContext(prepared.paramTypes, params, false);
  const op = await host.physical(prepared.plan, ctx);
  // A plain cursor may move backwards (its rows are kept); only NO SCROLL and locking cursors may not.
  const scroll = opts & CURSOR_OPT.scroll ? 'scroll' : opts & CURSOR_OPT.noScroll || locking ? 'no-scroll' : 'default';
  const memory = queryMemory(ctx).pool.register('cursor', false);
  const owner = host.rowLocks;
  const check = (): void => checkCancel(ctx);
  const cursor = new Cursor(name, plain.columns, op.execute(ctx), scroll, hold, host.cursors.txn, memory, {
    statement: host.queryText !== '' ? host.queryText : text,
    binary: (opts & CURSOR_OPT.binary) !== 0,
    // PostgreSQL makes a cursor without SCROLL or NO SCROLL scrollable when its plan can run backwards,
    // which a plan reading a table can and a computed row (no FROM) cannot.
    scrollable: scroll === 'scroll' || (scroll === 'default' && (sel.fromClause ?? []).length > 0),
    creationTime: Date.now(),
    targets,
    locking,
    ...(locking && owner !== null ? { onRows: (ids: Int32Array[]) => lockFetched(owner, targets, ids, check) } : {}),
  });
  host.cursors.add(cursor);
  // Outside a transaction block the statement's own transaction ends at once: the cursor is held from here on.
  if (hold && !host.session.inTransaction) {
    await cursor.materialize();
    cursor.held = true;
  }
  return result('DECLARE CURSOR', 'DECLARE CURSOR');
}

/**
 * A locking cursor's rows as they are read. A row this transaction updated or deleted since the
 * cursor's snapshot is left out, as PostgreSQL skips a row a later command of the same transaction
 * changed; rows other transactions hold are waited for.
 */
async function lockFetched(owner: LockOwner, targets: readonly RowTarget[], ids: Int32Array[], check: () => void): Promise<boolean[] | null> {
  const n = ids[0]?.length ?? 0;
  let keep: boolean[] | null = null;
  for (let k = 0; k < targets.length; k++) {
    const t = targets[k]!;
    if (t.strength === null) continue;
    const strength = t.strength;
    const rows = Array.from(ids[k]!, (p) => targetRow(t, p));
    const groups: { table: MemoryTable; snapshot: readonly Batch[]; refs: RowRef[]; at: number[] }[] = [];
    byTable(rows, (table, snapshot, refs, at) => groups.push({ table, snapshot, refs, at }));
    for (const g of groups) {
      const now = g.table.snapshot();
      if (now !== g.snapshot) {
        g.refs.forEach((r, j) => {
          if (rowChanged(now, r)) (keep ??= new Array<boolean>(n).fill(true))[g.at[j]!] = false;
        });
      }
      for (;;) {
        const r = tryLockRows(owner, g.table.name, g.refs, strength, t.wait);
        if ('holder' in r) {
          await waitFor(owner, r.holder, check);
          continue;
        }
        if (t.wait === 'skip') {
          r.locked.forEach((ok, j) => {
            if (!ok) (keep ??= new Array<boolean>(n).fill(true))[g.at[j]!] = false;
          });
        }
        break;
      }
    }
  }
  return keep;
}

/**
 * SELECT … FOR UPDATE/SHARE: runs the query with the row positions of the locked tables, locks the
 * rows it returns and returns them without the positions. A row another transaction holds makes it
 * wait for that transaction and run again on a fresh snapshot, as PostgreSQL re-reads such a row.
 */
export async function selectForUpdate(host: UtilityHost, sel: SelectStmt, params: readonly unknown[]): Promise<QueryResult> {
  const skips = lockingItems(sel).some((l) => l.wait === 'skip');
  // WITH TIES (which SKIP LOCKED refuses) keeps the plain path: its limit depends on the rows' values.
  if (sel.limitOption !== 'LIMIT_OPTION_WITH_TIES' && (sel.limitOffset !== undefined || (sel.limitCount !== undefined && skips))) return lockUnderLimit(host, sel, params);
  for (;;) {
    const targeted = lockTargets(host.catalog, sel);
    const prepared = host.prepareSelect(targeted.stmt, params, undefined, targeted.relations);
    const ctx = host.execContext(prepared.paramTypes, params, false);
    const rows = await host.collect(await host.physical(prepared.plan, ctx), ctx);
    const width = prepared.columns.length - targeted.targets.length;
    const owner = host.rowLocks;
    let keep: boolean[] = rows.map(() => true);
    let holder: LockOwner | null = null;
    if (owner !== null) {
      for (let k = 0; k < targeted.targets.length && holder === null; k++) {
        const t = targeted.targets[k]!;
        const rowsOf = rows.map((r) => targetRow(t, r[width + k] as number));
        byTable(rowsOf, (table, _snapshot, refs, at) => {
          if (holder !== null) return;
          const got = tryLockRows(owner, table.name, refs, t.strength ?? 'update', t.wait);
          if ('holder' in got) holder = got.holder;
          else got.locked.forEach((ok, j) => {
            if (!ok) keep[at[j]!] = false;
          });
        });
      }
    }
    if (holder !== null) {
      await waitFor(owner!, holder, () => checkCancel(ctx));
      host.beginStatement();
      continue;
    }
    const out = rows.filter((_, i) => keep[i]).map((r) => r.slice(0, width));
    return result('SELECT', `SELECT ${out.length}`, { columns: prepared.columns.slice(0, width), rows: out, rowCount: out.length });
  }
}

/**
 * FOR UPDATE … SKIP LOCKED under a LIMIT (the job-queue query), and any FOR UPDATE with OFFSET:
 * PostgreSQL's LockRows sits below its Limit, so rows others hold are passed over without counting
 * toward the limit, and the rows OFFSET passes over are locked too (a NOWAIT fails on them, a wait
 * waits for them). The query runs with a larger LIMIT of its own and rows are locked in its order, a few at a time,
 * never more than the limit still needs: a row past the limit is never locked. A row another
 * transaction holds (without SKIP LOCKED) is waited for, and the statement then runs again on what
 * was committed, as selectForUpdate does.
 */
async function lockUnderLimit(host: UtilityHost, sel: SelectStmt, params: readonly unknown[]): Promise<QueryResult> {
  for (;;) {
    const r = await lockUnderLimitOnce(host, sel, params);
    if ('rows' in r) return r;
    await waitFor(host.rowLocks!, r.holder, r.check);
    host.beginStatement();
  }
}

async function lockUnderLimitOnce(host: UtilityHost, sel: SelectStmt, params: readonly unknown[]): Promise<QueryResult | { holder: LockOwner; check: () => void }> {
  // The query as written checks LIMIT and OFFSET (types, constants below zero) before anything runs.
  host.prepareSelect(sel, params);
  const bounds = host.prepareSelect({ targetList: [sel.limitCount, sel.limitOffset].map((v) => ({ ResTarget: { val: v ?? { A_Const: { isnull: true } } } })), limitOption: 'LIMIT_OPTION_DEFAULT', op: 'SETOP_NONE' } as unknown as SelectStmt, params);
  const bctx = host.execContext(bounds.paramTypes, params, false);
  const [countValue, offsetValue] = (await host.collect(await host.physical(bounds.plan, bctx), bctx))[0]!;
  const count = countValue === null || countValue === undefined ? Infinity : Number(countValue);
  const offset = offsetValue === null || offsetValue === undefined ? 0 : Number(offsetValue);
  if (count < 0) throw new QuireError('2201W', 'LIMIT must not be negative');
  if (offset < 0) throw new QuireError('2201X', 'OFFSET must not be negative');
  const unlimited: SelectStmt = { ...sel, limitCount: undefined, limitOffset: undefined, limitOption: 'LIMIT_OPTION_DEFAULT' } as SelectStmt;
  const targeted = lockTargets(host.catalog, unlimited);
  const owner = host.rowLocks;
  const want = offset + count;
  // The query reads a few times the rows still wanted (a Top-N, or an index scan that stops early,
  // not a sort of the whole queue), and reads again with a larger limit only when rows others hold
  // left it short. Rows this transaction locked in a shorter read are its own and lock again at once.
  for (let cap = Number.isFinite(want) ? Math.max(64, want * 2) : Infinity; ; cap *= 4) {
    if (cap > 2 ** 31 - 1) cap = Infinity;
    const stmt = cap === Infinity ? targeted.stmt : ({ ...targeted.stmt, limitCount: { A_Const: { ival: { ival: cap } } }, limitOption: 'LIMIT_OPTION_COUNT' } as unknown as SelectStmt);
    const prepared = host.prepareSelect(stmt, params, undefined, targeted.relations);
    const ctx = host.execContext(prepared.paramTypes, params, false);
    const rows = count === 0 ? [] : await host.collect(await host.physical(prepared.plan, ctx), ctx);
    const width = prepared.columns.length - targeted.targets.length;
    const kept: Value[][] = [];
    let holder: LockOwner | null = null;
    for (let next = 0; next < rows.length && kept.length < want; ) {
      checkCancel(ctx);
      const chunk = rows.slice(next, next + Math.min(want - kept.length, 256));
      next += chunk.length;
      const ok = chunk.map(() => true);
      if (owner !== null) {
        for (let k = 0; k < targeted.targets.length; k++) {
          const t = targeted.targets[k]!;
          if (t.strength === null) continue;
          // Rows a lock on an earlier table already passed over are not locked on this one.
          const live = chunk.map((_, i) => i).filter((i) => ok[i]);
          const targetedRows = live.map((i) => targetRow(t, chunk[i]![width + k] as number));
          byTable(targetedRows, (table, _snapshot, refs, at) => {
            if (holder !== null) return;
            const got = tryLockRows(owner, table.name, refs, t.strength!, t.wait);
            if ('holder' in got) {
              holder = got.holder;
              return;
            }
            got.locked.forEach((locked, j) => {
              if (!locked) ok[live[at[j]!]!] = false;
            });
          });
        }
      }
      if (holder !== null) return { holder, check: () => checkCancel(ctx) };
      chunk.forEach((r, i) => ok[i] && kept.push(r));
    }
    if (kept.length < want && rows.length >= cap) continue;
    const out = kept.slice(offset).map((r) => r.slice(0, width));
    return result('SELECT', `SELECT ${out.length}`, { columns: prepared.columns.slice(0, width), rows: out, rowCount: out.length });
  }
}

/** FETCH and MOVE on a declared cursor. */
export async function fetchCursor(host: UtilityHost, b: AnyNode): Promise<QueryResult> {
  const c = host.cursors.get(b.portalname as string);
  const dir = b.direction as string;
  const howMany = b.howMany === undefined ? (dir === 'FETCH_RELATIVE' || dir === 'FETCH_ABSOLUTE' ? 0 : 1) : (b.howMany as number);
  const count = howMany >= 2147483647 ? Infinity : howMany;
  const direction = dir === 'FETCH_BACKWARD' ? 'backward' : dir === 'FETCH_ABSOLUTE' ? 'absolute' : dir === 'FETCH_RELATIVE' ? 'relative' : 'forward';
  const move = b.ismove === true;
  const r = await c.fetch(direction, count, move);
  if (move) return result('MOVE', `MOVE ${r.count}`, { rowCount: r.count });
  return result('FETCH', `FETCH ${r.rows.length}`, { columns: c.columns, rows: r.rows, rowCount: r.rows.length });
}
