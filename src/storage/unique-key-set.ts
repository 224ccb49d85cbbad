/**
 * The set of one unique key's values over some rows (the committed rows' index, a statement's own
 * rows, an open transaction's pending keys), with PostgreSQL's equality for each column's type. A
 * key of one column is its value's part in a KeySet; a key of several columns a pair in a KeyPairSet:
 * the first column's part and the rest (the second column's part, or the remaining parts joined
 * prefix-free when there are more), so the usual (int, text) key is an integer probe and one string
 * comparison against the text as the row stores it, with no string made per row.
 *
 * A key with a NULL part is never taken and never takes: NULL equals nothing, so two rows with NULL
 * in a UNIQUE key both go in (a PRIMARY KEY refuses NULL before any check).
 */
import type { Batch } from '../common/column.js';
import { hashKey } from '../common/compare.js';
import type { DataType, Value } from '../common/types.js';
import { KeyPairSet } from './key-pair-set.js';
import { KeySet } from './key-set.js';
import { storedData } from './memory-table.js';

/** One column's value as a set member: equal SQL values of one column type give one part. */
export type KeyPart = number | string;

/**
 * The part of non-null value `v` of a key column of type `type`. A safe integer (int2, int4, int8,
 * date, a float8 holding one) is itself, -0 as 0 (float8eq says they are equal); a string is itself
 * (text, varchar and name compare by their characters under the engine's C collation, as PostgreSQL's
 * texteq compares bytes), char(n) without trailing spaces (bpchareq ignores them); anything else is
 * hashKey's canonical key (compare.ts: numeric 1.0 as 1.00, NaN as NaN, an interval of 1 day as one
 * of 24 hours) tagged with its JS type. A column holds values of one type, so a tagged part never
 * meets a raw string of the same column.
 */
export function partKey(v: NonNullable<Value>, type: DataType): KeyPart {
  if (typeof v === 'number') {
    if (Number.isSafeInteger(v)) return v === 0 ? 0 : v;
    return `number:${v}`;
  }
  if (typeof v === 'string') return type.name === 'bpchar' ? trimSpaces(v) : v;
  const k = hashKey(v, type);
  if (typeof k === 'number' && Number.isSafeInteger(k)) return k === 0 ? 0 : k;
  return `${typeof k}:${String(k)}`;
}

/** `s` without trailing spaces (bpchar's insignificant padding); `s` itself when it has none. */
function trimSpaces(s: string): string {
  let e = s.length;
  while (e > 0 && s.charCodeAt(e - 1) === 32) e--;
  return e === s.length ? s : s.slice(0, e);
}

/**
 * `s` followed by part `p` of a joined key. Read from the start, every part but the last ends where
 * it says: an integer at the comma after its digits, a string after the length written before it;
 * the last runs to the end. So two joined keys are alike only when every part is.
 */
function joinPart(s: string, p: KeyPart, last: boolean): string {
  if (typeof p === 'number') return last ? s + String(p) : `${s}${p},`;
  return last ? s + p : `${s}${p.length}:${p}`;
}

/** Row `i` of column `c` of `b` as stored (storedData: the open batch's text column is not copied to read one row). */
export function cell(b: Batch, c: number, i: number): Value {
  const nulls = b.columns[c]!.nulls;
  if (nulls !== null && nulls[i] === 1) return null;
  const d = storedData(b, c);
  if (d instanceof Uint8Array) return d[i] === 1;
  return d[i] as Value;
}

/** Types whose values are strings compared as they are: a row's string is its part. */
function plainText(t: DataType): boolean {
  const n = t.name;
  return n === 'text' || n === 'varchar' || n === 'name';
}

/**
 * The whole key of values `vals` (in the key's column order) of columns of types `types` as one
 * value, for a Map of keys (ON CONFLICT DO UPDATE's rows by key): a one-column key's part, the parts
 * of several joined. Null when a part is NULL.
 */
export function keyValue(types: readonly DataType[], vals: readonly Value[]): KeyPart | null {
  if (types.length === 1) {
    const v = vals[0]!;
    return v === null ? null : partKey(v, types[0]!);
  }
  let s = '';
  const last = types.length - 1;
  for (let j = 0; j <= last; j++) {
    const v = vals[j]!;
    if (v === null) return null;
    s = joinPart(s, partKey(v, types[j]!), j === last);
  }
  return s;
}

export class UniqueKeySet {
  private readonly one: KeySet | null;
  private readonly pairs: KeyPairSet | null;
  /** The parts the last partsOf* call read (no array per row). */
  private first: KeyPart = 0;
  private rest: KeyPart = 0;
  /** A two-column key whose second column's strings are their parts (text, varchar, name). */
  private readonly textRest: boolean;

  /**
   * `types`: the key columns' types; `cols`: where the key's columns are in the rows given as
   * batches. `expected`: how many keys to make room for at once.
   */
  constructor(
    readonly types: readonly DataType[],
    readonly cols: readonly number[],
    expected = 8,
  ) {
    this.one = types.length === 1 ? new KeySet(expected) : null;
    this.pairs = types.length === 1 ? null : new KeyPairSet(expected);
    this.textRest = types.length === 2 && plainText(types[1]!);
  }

  get size(): number {
    return this.one !== null ? this.one.size : this.pairs!.size;
  }

  /** Makes room for `n` more keys at once. */
  reserve(n: number): void {
    if (this.one !== null) this.one.reserve(n);
    else this.pairs!.reserve(n);
  }

  /** Reads the parts of `vals` into first/rest; false when a part is NULL. */
  private partsOfVals(vals: readonly Value[]): boolean {
    const types = this.types;
    const v0 = vals[0]!;
    if (v0 === null) return false;
    this.first = partKey(v0, types[0]!);
    if (types.length === 1) return true;
    if (types.length === 2) {
      const v1 = vals[1]!;
      if (v1 === null) return false;
      this.rest = partKey(v1, types[1]!);
      return true;
    }
    let s = '';
    const last = types.length - 1;
    for (let j = 1; j <= last; j++) {
      const v = vals[j]!;
      if (v === null) return false;
      s = joinPart(s, partKey(v, types[j]!), j === last);
    }
    this.rest = s;
    return true;
  }

  /** Reads the parts of row `i` of `b` into first/rest; false when a part is NULL. */
  private partsOfRow(b: Batch, i: number): boolean {
    const types = this.types;
    const cols = this.cols;
    if (this.textRest) {
      // An int4 and a text column read as what they are: cell's read of any column's array cost a
      // one-row commit's check more than the set's probe did.
      const d0 = storedData(b, cols[0]!);
      const d1 = storedData(b, cols[1]!);
      if (d0 instanceof Int32Array && Array.isArray(d1)) {
        const n0 = b.columns[cols[0]!]!.nulls;
        const n1 = b.columns[cols[1]!]!.nulls;
        const s = d1[i];
        if ((n0 !== null && n0[i] === 1) || (n1 !== null && n1[i] === 1) || s === null || s === undefined) return false;
        this.first = d0[i]!;
        this.rest = s as string;
        return true;
      }
    }
    const v0 = cell(b, cols[0]!, i);
    if (v0 === null) return false;
    this.first = partKey(v0, types[0]!);
    if (types.length === 1) return true;
    if (types.length === 2) {
      const v1 = cell(b, cols[1]!, i);
      if (v1 === null) return false;
      this.rest = this.textRest ? (v1 as string) : partKey(v1, types[1]!);
      return true;
    }
    let s = '';
    const last = types.length - 1;
    for (let j = 1; j <= last; j++) {
      const v = cell(b, cols[j]!, i);
      if (v === null) return false;
      s = joinPart(s, partKey(v, types[j]!), j === last);
    }
    this.rest = s;
    return true;
  }

  private hasParts(): boolean {
    return this.one !== null ? this.one.has(this.first) : this.pairs!.has(this.first, this.rest);
  }

  private insertParts(): boolean {
    return this.one !== null ? this.one.insert(this.first) : this.pairs!.insert(this.first, this.rest);
  }

  private deleteParts(): void {
    if (this.one !== null) this.one.delete(this.first);
    else this.pairs!.delete(this.first, this.rest);
  }

  /** Whether the key of `vals` (in the key's column order) is in the set (never, with a NULL part). */
  hasVals(vals: readonly Value[]): boolean {
    return this.partsOfVals(vals) && this.hasParts();
  }

  /** Adds the key of `vals`; false when it was already there (a key with a NULL part is not added: true). */
  insertVals(vals: readonly Value[]): boolean {
    return !this.partsOfVals(vals) || this.insertParts();
  }

  deleteVals(vals: readonly Value[]): void {
    if (this.partsOfVals(vals)) this.deleteParts();
  }

  /** hasVals of the key of row `i` of `b`. */
  hasRow(b: Batch, i: number): boolean {
    return this.partsOfRow(b, i) && this.hasParts();
  }

  /** insertVals of the key of row `i` of `b`. */
  insertRow(b: Batch, i: number): boolean {
    return !this.partsOfRow(b, i) || this.insertParts();
  }

  deleteRow(b: Batch, i: number): void {
    if (this.partsOfRow(b, i)) this.deleteParts();
  }

  /**
   * The key of row `i` of `b` appended to `out` as its parts (one for a one-column key, two for
   * several), for addAll/deleteAll to apply later; false, nothing appended, when a part is NULL.
   */
  pushRow(out: KeyPart[], b: Batch, i: number): boolean {
    if (!this.partsOfRow(b, i)) return false;
    out.push(this.first);
    if (this.pairs !== null) out.push(this.rest);
    return true;
  }

  /** pushRow of values `vals` in the key's column order. */
  pushVals(out: KeyPart[], vals: readonly Value[]): boolean {
    if (!this.partsOfVals(vals)) return false;
    out.push(this.first);
    if (this.pairs !== null) out.push(this.rest);
    return true;
  }

  /** Adds the keys pushRow or pushVals appended to `list`. */
  addAll(list: readonly KeyPart[]): void {
    if (this.one !== null) for (const k of list) this.one.add(k);
    else for (let j = 0; j < list.length; j += 2) this.pairs!.insert(list[j]!, list[j + 1]!);
  }

  /** Takes out the keys pushRow or pushVals appended to `list`. */
  deleteAll(list: readonly KeyPart[]): void {
    if (this.one !== null) for (const k of list) this.one.delete(k);
    else for (let j = 0; j < list.length; j += 2) this.pairs!.delete(list[j]!, list[j + 1]!);
  }

  /**
   * Adds the keys of rows `from`..`b.length - 1` of `b`, each first looked up in `against` when given
   * (the committed index, for rows not yet committed): the first row whose key either holds, or -1.
   * Keys stored as their parts (an int4 column, a text column, or an int4 and a text column) are read
   * straight from the columns: building a million-row index is then a few tens of milliseconds, not a
   * value and a part made per row.
   */
  addRows(b: Batch, from: number, against: UniqueKeySet | null = null): number {
    const cols = this.cols;
    if (this.one !== null) {
      const d = storedData(b, cols[0]!);
      if (d instanceof Int32Array || (Array.isArray(d) && plainText(this.types[0]!))) {
        // An Int32Array holds no -0 and only safe integers; a text column's strings are their parts.
        const nulls = b.columns[cols[0]!]!.nulls;
        const set = this.one;
        const other = against?.one ?? null;
        for (let i = from; i < b.length; i++) {
          const k = d[i];
          // NULL as the null map or as the value itself (getValue reads both).
          if ((nulls !== null && nulls[i] === 1) || k === null || k === undefined) continue;
          if ((other !== null && other.has(k as KeyPart)) || !set.insert(k as KeyPart)) return i;
        }
        return -1;
      }
    } else if (this.textRest) {
      const d0 = storedData(b, cols[0]!);
      const d1 = storedData(b, cols[1]!);
      if (d0 instanceof Int32Array && Array.isArray(d1)) {
        const n0 = b.columns[cols[0]!]!.nulls;
        const n1 = b.columns[cols[1]!]!.nulls;
        const set = this.pairs!;
        const other = against?.pairs ?? null;
        for (let i = from; i < b.length; i++) {
          const s = d1[i];
          if ((n0 !== null && n0[i] === 1) || (n1 !== null && n1[i] === 1) || s === null || s === undefined) continue;
          const k = d0[i]!;
          if ((other !== null && other.has(k, s as string)) || !set.insert(k, s as string)) return i;
        }
        return -1;
      }
    }
    for (let i = from; i < b.length; i++) {
      if (!this.partsOfRow(b, i)) continue;
      if ((against !== null && against.holds(this.first, this.rest)) || !this.insertParts()) return i;
    }
    return -1;
  }

  /** Whether the parts another set of the same key read are in this one. */
  private holds(first: KeyPart, rest: KeyPart): boolean {
    return this.one !== null ? this.one.has(first) : this.pairs!.has(first, rest);
  }
}
