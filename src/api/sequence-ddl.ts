/** CREATE [TEMP] SEQUENCE, ALTER SEQUENCE and DROP SEQUENCE; the options of identity columns. */
import type { Node } from '@pgsql/types';
import { QuireError, positionOf } from '../common/errors.js';
import { nodeBody, nodeTag, strings, type AnyNode } from '../sql/ast.js';
import { resolveTypeName } from '../sql/type-name.js';
import { tempTableKey } from '../storage/catalog.js';
import { Sequence, sequenceOptions, type SequenceOptions, type SequenceType } from '../storage/sequence.js';
import type { ColumnSequence } from '../storage/memory-table.js';
import { storeFor } from '../storage/persist/index.js';
import type { QueryResult } from './database.js';
import type { UtilityHost } from './utility.js';
import { relName, result } from './statement-support.js';

const pos = positionOf;

type GivenOptions = Parameters<typeof sequenceOptions>[0] & { restart?: number | null };

function numberArg(d: AnyNode): bigint {
  const arg = d.arg as Node | undefined;
  const body = arg === undefined ? undefined : nodeBody<AnyNode>(arg);
  const tag = arg === undefined ? undefined : nodeTag(arg);
  if (tag === 'Integer') return BigInt((body!.ival as number | undefined) ?? 0);
  if (tag === 'Float' && /^[+-]?\d+$/.test(String(body!.fval))) return BigInt(String(body!.fval));
  throw new QuireError('42601', `${String(d.defname).toUpperCase()} requires an integer value`, { position: pos(d.location as number) });
}

function safeArg(d: AnyNode): number {
  const v = numberArg(d);
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new QuireError('0A000', `sequence values beyond ±${Number.MAX_SAFE_INTEGER} are not supported`, { position: pos(d.location as number) });
  }
  return Number(v);
}

/** The DefElem list of CREATE/ALTER SEQUENCE or an identity column, as given (defaults filled later). */
export function parseSequenceOptions(options: readonly Node[] | undefined, allowRestart: boolean): GivenOptions {
  const out: GivenOptions = {};
  const seen = new Set<string>();
  for (const o of options ?? []) {
    const d = nodeBody<AnyNode>(o);
    const name = d.defname as string;
    if (seen.has(name)) throw new QuireError('42601', 'conflicting or redundant options', { position: pos(d.location as number) });
    seen.add(name);
    switch (name) {
      case 'as': {
        const t = resolveTypeName(nodeBody(d.arg as Node) as never);
        if (t.name !== 'int2' && t.name !== 'int4' && t.name !== 'int8') {
          throw new QuireError('22023', 'sequence type must be smallint, integer, or bigint', { position: pos(d.location as number) });
        }
        out.type = t.name as SequenceType;
        break;
      }
      case 'increment':
        out.increment = safeArg(d);
        break;
      case 'minvalue':
        out.min = d.arg === undefined ? null : numberArg(d);
        break;
      case 'maxvalue':
        out.max = d.arg === undefined ? null : numberArg(d);
        break;
      case 'start':
        out.start = safeArg(d);
        break;
      case 'cache':
        out.cache = safeArg(d);
        break;
      case 'cycle':
        out.cycle = nodeBody<AnyNode>(d.arg as Node).boolval === true;
        break;
      case 'restart':
        if (!allowRestart) throw new QuireError('42601', 'RESTART is only allowed in ALTER SEQUENCE', { position: pos(d.location as number) });
        out.restart = d.arg === undefined ? null : safeArg(d);
        break;
      case 'owned_by':
        // Ownership only ties the sequence's lifetime to a column; nextval does not depend on it.
        break;
      case 'sequence_name':
        break;
      default:
        throw new QuireError('42601', `option "${name}" not recognized`, { position: pos(d.location as number) });
    }
  }
  return out;
}

/** An identity column's counter: its options kept where they differ from the type's defaults. */
export function identityCounter(type: SequenceType, options: readonly Node[] | undefined): ColumnSequence {
  const given = parseSequenceOptions(options, false);
  if (given.type !== undefined) throw new QuireError('42601', 'AS is not allowed for an identity column');
  const o = sequenceOptions({ ...given, type });
  const c: ColumnSequence = { next: o.start };
  if (o.increment !== 1) c.increment = o.increment;
  if (given.start !== undefined) c.start = o.start;
  if (given.min !== undefined && given.min !== null) c.min = Number(o.min);
  if (given.max !== undefined && given.max !== null) c.max = Number(o.max);
  if (o.increment < 0 && c.max === undefined) c.max = -1;
  if (o.cycle) c.cycle = true;
  return c;
}

function keyFor(host: UtilityHost, rv: AnyNode, name: string): string {
  return rv.relpersistence === 't' ? tempTableKey(host.session.id, name) : name;
}

export function createSequence(host: UtilityHost, b: AnyNode): QueryResult {
  const rv = b.sequence as AnyNode;
  const name = relName(rv);
  const temp = rv.relpersistence === 't';
  const c = host.catalog;
  const exists = temp ? c.sequences.has(keyFor(host, rv, name)) : c.sequences.has(name) || c.tables.has(name) || c.views.has(name) || host.session.sequences?.find(name) !== undefined;
  if (exists) {
    if (b.if_not_exists === true) return result('CREATE SEQUENCE', 'CREATE SEQUENCE', { notices: [`relation "${name}" already exists, skipping`] });
    throw new QuireError('42P07', `relation "${name}" already exists`, { position: pos(rv.location as number) });
  }
  // A database directory stores tables and views; a standalone sequence would not survive reopening.
  if (!temp && storeFor(host.catalog) !== undefined) {
    throw new QuireError('0A000', 'CREATE SEQUENCE is not supported in a database directory', {
      hint: 'Use CREATE TEMP SEQUENCE, or a serial / identity column, whose counter is stored with its table.',
      position: pos(rv.location as number),
    });
  }
  const given = parseSequenceOptions(b.options as Node[] | undefined, false);
  const options = sequenceOptions(given);
  c.sequences.set(keyFor(host, rv, name), new Sequence(name, options, { next: options.start }));
  return result('CREATE SEQUENCE', 'CREATE SEQUENCE');
}

export function alterSequence(host: UtilityHost, b: AnyNode): QueryResult {
  const rv = b.sequence as AnyNode;
  const name = relName(rv);
  const seq = host.session.sequences?.find(name);
  if (seq === undefined) {
    if (b.missing_ok === true) return result('ALTER SEQUENCE', 'ALTER SEQUENCE', { notices: [`relation "${name}" does not exist, skipping`] });
    throw new QuireError('42P01', `relation "${name}" does not exist`, { position: pos(rv.location as number) });
  }
  const given = parseSequenceOptions(b.options as Node[] | undefined, true);
  const { restart, ...rest } = given;
  const options: SequenceOptions = sequenceOptions(rest, seq.options);
  if (seq.ownedBy !== null) {
    throw new QuireError('0A000', `ALTER SEQUENCE of a column's sequence is not supported`, { hint: `Use setval('${name}', n) to position it.` });
  }
  seq.alter(options);
  if (restart !== undefined) seq.restart(restart ?? options.start);
  return result('ALTER SEQUENCE', 'ALTER SEQUENCE');
}

export function dropSequence(host: UtilityHost, b: AnyNode): QueryResult {
  const names = ((b.objects as Node[]) ?? []).map((o) => strings(nodeBody<AnyNode>(o).items as Node[]).pop()!);
  const notices: string[] = [];
  const c = host.catalog;
  const keys: string[] = [];
  for (const n of names) {
    const temp = tempTableKey(host.session.id, n);
    const key = c.sequences.has(temp) ? temp : c.sequences.has(n) ? n : undefined;
    if (key === undefined) {
      const owned = host.session.sequences?.find(n);
      if (owned !== undefined) {
        throw new QuireError('2BP01', `cannot drop sequence ${n} because other objects depend on it`, {
          detail: `default value for column ${owned.ownedBy!.column} of table ${owned.ownedBy!.table} depends on sequence ${n}`,
          hint: 'Use DROP ... CASCADE to drop the dependent objects too.',
        });
      }
      if (b.missing_ok === true) {
        notices.push(`sequence "${n}" does not exist, skipping`);
        continue;
      }
      throw new QuireError('42P01', `sequence "${n}" does not exist`);
    }
    keys.push(key);
  }
  for (const k of keys) {
    const s = c.sequences.get(k);
    if (s !== undefined) host.session.sequences?.forget(s);
    c.sequences.delete(k);
  }
  return result('DROP SEQUENCE', 'DROP SEQUENCE', { notices });
}
