/**
 * `INSERT INTO t [(cols)] VALUES ($1, …)`: one row of bare parameters, the statement a client's
 * autocommit loop sends through the extended protocol (node-postgres, JDBC, psycopg with server-side
 * binding). Recognised from the grammar's tree, once per prepared statement, so each Bind can fill
 * the row from its parameter values through the same cached plan as a literal INSERT
 * (src/api/insert-literal.ts) instead of binding and planning the statement again.
 *
 * Only the plain shape is taken: an alias, RETURNING, ON CONFLICT, WITH, OVERRIDING, a column with
 * subscripts or fields, an expression or a cast around a parameter, several rows — any of them and
 * the statement is not one of these (the general INSERT runs it).
 */
import type { Node } from '@pgsql/types';
import type { Prefix } from './parse-insert-values.js';

export interface ParamInsert {
  /** The statement minus its row, shaped as a literal INSERT's prefix (its plan is cached per prefix object). */
  readonly prefix: Prefix;
  /** Per value of the row, in order: the 0-based number of the parameter it is. */
  readonly slots: readonly number[];
  /** Whether the slots are 0 … n-1 in some order: each parameter used exactly once, which the fast paths take. */
  readonly eachOnce: boolean;
}

function only(o: object, keys: readonly string[]): boolean {
  for (const k of Object.keys(o)) if (!keys.includes(k)) return false;
  return true;
}

const shapes = new WeakMap<Node, ParamInsert | null>();

/** The statement's parameter row and prefix, or null when it is not of this shape. */
export function paramInsertOf(stmt: Node): ParamInsert | null {
  let known = shapes.get(stmt);
  if (known === undefined) {
    known = shapeOf(stmt);
    shapes.set(stmt, known);
  }
  return known;
}

function shapeOf(stmt: Node): ParamInsert | null {
  const ins = (stmt as { InsertStmt?: Record<string, unknown> }).InsertStmt;
  if (ins === undefined || !only(ins, ['relation', 'cols', 'selectStmt', 'override']) || ins.override !== 'OVERRIDING_NOT_SET') return null;
  const rel = ins.relation as Record<string, unknown> | undefined;
  if (rel === undefined || typeof rel.relname !== 'string' || !only(rel, ['relname', 'schemaname', 'inh', 'relpersistence', 'location'])) return null;
  const cols = ins.cols as { ResTarget?: Record<string, unknown> }[] | undefined;
  if (cols !== undefined && !cols.every((c) => c.ResTarget !== undefined && typeof c.ResTarget.name === 'string' && only(c.ResTarget, ['name', 'location']))) return null;
  const sel = (ins.selectStmt as { SelectStmt?: Record<string, unknown> } | undefined)?.SelectStmt;
  if (sel === undefined || !only(sel, ['valuesLists', 'limitOption', 'op']) || sel.op !== 'SETOP_NONE' || sel.limitOption !== 'LIMIT_OPTION_DEFAULT') return null;
  const rows = sel.valuesLists as { List?: { items?: { ParamRef?: Record<string, unknown> }[] } }[] | undefined;
  if (rows === undefined || rows.length !== 1) return null;
  const items = rows[0]!.List?.items;
  if (items === undefined || items.length === 0) return null;
  const slots: number[] = [];
  for (const it of items) {
    const p = it.ParamRef;
    if (p === undefined || !only(p, ['number', 'location']) || typeof p.number !== 'number' || p.number < 1) return null;
    slots.push(p.number - 1);
  }
  const insert: Record<string, unknown> = { relation: rel, ...(cols !== undefined ? { cols } : {}), override: ins.override };
  const select = { limitOption: sel.limitOption, op: sel.op };
  const eachOnce = slots.every((slot, k) => slot < slots.length && slots.indexOf(slot) === k);
  return { prefix: { insert, select, json: JSON.stringify({ insert, select }) }, slots, eachOnce };
}
