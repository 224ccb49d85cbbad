/**
 * Distinct: hash DISTINCT over all columns, streaming (a row is emitted the first time its value is seen).
 * One column hashes its canonical values in engine Sets (key-shards.ts); several go through a typed table of key words
 * (key-table.ts: a text value becomes a dictionary id once, then rows compare as a few 32-bit words).
 * Equality is PostgreSQL's: NULLs are equal to each other here (DISTINCT treats them as not distinct),
 * NaN equals NaN, -0 equals 0, numeric 1.0 equals 1.00, bpchar ignores trailing blanks.
 */
import { hashKey } from '../../common/compare.js';
import type { DataType, Value } from '../../common/types.js';
import { takeBatch, type Batch, type Column } from '../../common/column.js';
import { yieldIfDue, type ExecContext } from '../../execution/context.js';
import { HASH_ENTRY_BYTES, queryMemory, valueBytes } from '../../execution/memory-pool.js';
import { PhysicalOperator, type ExplainHow, type ExplainInputs, type ExplainNode } from '../operator.js';
import { KeyTable } from '../key-table.js';
import { DirectKeySet, directKeyTypes } from '../direct-key-set.js';
import { ShardedKeySet } from '../key-shards.js';
import { keyCategory } from '../sort-key.js';

/** A JavaScript value that is Map-equal (SameValueZero) exactly when the SQL values are equal. */
export type RowKey = number | bigint | string | boolean | null;

/**
 * Whether raw values of this type are already canonical Map keys: numbers (SameValueZero makes NaN equal
 * NaN and -0 equal 0), int8's number|bigint (never a bigint in the safe range), bool, text.
 */
function rawKeyed(t: DataType): boolean {
  const c = keyCategory(t);
  return c === 'num' || c === 'float' || c === 'text';
}

function columnKeys(c: Column, t: DataType, n: number, out: RowKey[]): void {
  const d = c.data;
  const nulls = c.nulls;
  if (d instanceof Uint8Array) {
    for (let i = 0; i < n; i++) out[i] = nulls !== null && nulls[i] === 1 ? null : d[i] === 1;
  } else if (rawKeyed(t)) {
    for (let i = 0; i < n; i++) out[i] = nulls !== null && nulls[i] === 1 ? null : (d[i] as number | bigint | string);
  } else {
    for (let i = 0; i < n; i++) out[i] = nulls !== null && nulls[i] === 1 ? null : hashKey(d[i] as Value, t);
  }
}

/** Appends one component to a composite key; the encoding is prefix-free, so distinct tuples never collide. */
function encode(k: RowKey): string {
  switch (typeof k) {
    case 'string':
      return `s${k.length}:${k}`;
    case 'number':
      // String(-0) is "0"; NaN prints as "NaN": both canonical.
      return `n${k};`;
    case 'bigint':
      return `b${k};`;
    case 'boolean':
      return k ? 't' : 'f';
    default:
      return '~';
  }
}

/**
 * Keys of every row of `b` over `cols`. One column: the canonical value itself. Several: a composite
 * string. `nullRows`, when given, gets 1 for rows with a NULL in any key column (joins never match those).
 */
export function rowKeys(b: Batch, cols: readonly number[], nullRows?: Uint8Array): RowKey[] {
  const n = b.length;
  const out: RowKey[] = new Array(n);
  if (cols.length === 1) {
    const c = b.columns[cols[0]!]!;
    columnKeys(c, c.type, n, out);
    if (nullRows !== undefined && c.nulls !== null) for (let i = 0; i < n; i++) nullRows[i] = c.nulls[i]!;
    return out;
  }
  const parts: RowKey[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = '';
  for (const ci of cols) {
    const c = b.columns[ci]!;
    columnKeys(c, c.type, n, parts);
    for (let i = 0; i < n; i++) out[i] = (out[i] as string) + encode(parts[i]!);
    if (nullRows !== undefined && c.nulls !== null) for (let i = 0; i < n; i++) nullRows[i] |= c.nulls[i]!;
  }
  return out;
}

/**
 * The rows of `b` whose keys `seen` does not hold yet (added to it), as a batch (null when none), and
 * the bytes the new keys take in the set, for the caller to reserve.
 */
export function newRows(b: Batch, cols: readonly number[], seen: ShardedKeySet): { batch: Batch | null; bytes: number } {
  const n = b.length;
  const keys = rowKeys(b, cols);
  const sel = new Uint32Array(n);
  let w = 0;
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const k = keys[i]!;
    if (seen.addNew(k)) {
      sel[w++] = i;
      bytes += HASH_ENTRY_BYTES + valueBytes(k);
    }
  }
  return { batch: w === 0 ? null : w === n ? b : takeBatch(b, sel, w), bytes };
}

export function allColumns(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

export class Distinct extends PhysicalOperator {
  readonly name = 'Distinct';

  constructor(readonly input: PhysicalOperator) {
    super(input.schema);
  }

  children(): readonly PhysicalOperator[] {
    return [this.input];
  }

  describe(): string {
    return 'hash';
  }
  override explainNode(inputs: ExplainInputs): ExplainNode {
    // PostgreSQL plans a hash DISTINCT as a HashAggregate grouping by the distinct select-list entries.
    const keys = [...new Set(inputs[0] ?? [])];
    return { label: 'HashAggregate', details: [`Group Key: ${keys.join(', ')}`], projects: true };
  }

  protected async *run(ctx: ExecContext): AsyncGenerator<Batch> {
    const cols = allColumns(this.schema.length);
    // Every distinct row stays in the set until the end: its keys are reserved, and refused with 53200.
    const res = queryMemory(ctx).pool.register('Distinct', false);
    const types = this.schema.map((f) => f.type);
    const input = this.input.execute(ctx);
    try {
      // Keys over small domains (dictionary-coded text, narrow integers) first go to a bitmap indexed by
      // the key; the first batch that does not fit one moves them to a hash table below.
      let pending: Batch | null = null;
      let direct: DirectKeySet | null = null;
      if (directKeyTypes(types)) {
        let sel = new Uint32Array(0);
        for (;;) {
          const r = await input.next();
          if (r.done === true) return;
          await yieldIfDue(ctx);
          const b = r.value;
          const n = b.length;
          if (n === 0) continue;
          if (sel.length < n) sel = new Uint32Array(n);
          if (direct === null) {
            direct = DirectKeySet.create(types, b.columns, n);
            if (direct === null) {
              pending = b;
              break;
            }
            res.grow(direct.bytes, 'bitmap of distinct rows');
          }
          const before = direct.bytes;
          const w = direct.insert(b.columns, n, sel);
          if (w < 0) {
            pending = b;
            break;
          }
          if (direct.bytes > before) res.grow(direct.bytes - before, 'bitmap of distinct rows');
          if (w > 0) yield w === n ? b : takeBatch(b, sel, w);
        }
      }
      const rest = async function* (): AsyncGenerator<Batch> {
        if (pending !== null) yield pending;
        for (;;) {
          const r = await input.next();
          if (r.done === true) return;
          yield r.value;
        }
      };
      if (cols.length === 1) {
        // One column: the canonical value itself is the key, and the engine's own Sets hash it best
        // (split, so that no single one grows to a size whose rehash would stall the event loop).
        const seen = new ShardedKeySet();
        if (direct !== null) {
          for (const keys of direct.keys()) {
            res.grow(newRows(keys, cols, seen).bytes, 'hash table of distinct rows');
            await yieldIfDue(ctx);
          }
        }
        for await (const b of rest()) {
          await yieldIfDue(ctx);
          if (b.length === 0) continue;
          const { batch, bytes } = newRows(b, cols, seen);
          res.grow(bytes, 'hash table of distinct rows');
          if (batch !== null) yield batch;
        }
        return;
      }
      // Several columns: keys as words in a typed table (key-table.ts), not a string per row.
      const table = new KeyTable(types);
      let held = 0;
      let sel = new Uint32Array(0);
      if (direct !== null) {
        for (const keys of direct.keys()) {
          table.insert(keys.columns, keys.length);
          await yieldIfDue(ctx);
        }
      }
      for await (const b of rest()) {
        await yieldIfDue(ctx);
        const n = b.length;
        if (n === 0) continue;
        if (sel.length < n) sel = new Uint32Array(n);
        table.insert(b.columns, n, sel);
        const w = table.freshCount;
        if (table.bytes > held) {
          res.grow(table.bytes - held, 'hash table of distinct rows');
          held = table.bytes;
        }
        if (w > 0) yield w === n ? b : takeBatch(b, sel, w);
      }
    } finally {
      await input.return(undefined);
      res.free();
    }
  }
}
