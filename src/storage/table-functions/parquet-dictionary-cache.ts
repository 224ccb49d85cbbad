/**
 * Dictionary pages of Parquet column chunks, decoded once and kept across queries.
 *
 * A query over a file reads each column chunk's dictionary page again: decompressed (Snappy in
 * JavaScript) and decoded into numbers or strings, however few rows it then reads. For a short
 * pruned query (a thousand rows of one row group) that was about an eighth of its time, and the
 * same pages are read by the next query over the file. So the decoded form is kept here, keyed by
 * the file's identity and the page's offset in it.
 *
 * Stale entries cannot be read: a file's identity is its path with the device, inode, size and
 * modification and change times of the handle the scan opened (a file rewritten in place, even
 * with the same size, gets another one), and an entry is only taken for a page header with the
 * same number of entries and uncompressed size. A path seen with a new identity drops its old
 * entries at once. The cache is bounded (DICTIONARY_CACHE_BYTES, a page of more than
 * ENTRY_MAX_BYTES is not kept) and its bytes are reserved from the process memory budget that
 * statements draw from: when that budget is short, nothing is kept.
 *
 * What is kept is only ever read: numbers (a dictionary's values the rows' indexes are looked up
 * in), a text dictionary's strings (copied into each chunk's own array, which PLAIN pages append
 * to), or a text dictionary's decompressed page with its entries decoded as queries ask for them.
 */
import type { Value } from '../../common/types.js';
import { processReservation, type MemoryReservation } from '../../execution/memory-pool.js';

/** Total bytes kept: every dictionary of a few large files' row groups. */
export const DICTIONARY_CACHE_BYTES = 16 << 20;
/** A dictionary page larger than this (decoded) is not kept: its query reads far more than it. */
const ENTRY_MAX_BYTES = 2 << 20;
/** Estimated bytes of one decoded string besides its characters (as valueBytes counts them). */
const STRING_OVERHEAD = 24;

/** Text entries decoded as rows need them: the page, each entry's offset in it, the entries so far. */
export interface LazyEntries {
  readonly page: Uint8Array;
  readonly starts: Int32Array;
  readonly decoded: Value[];
}

export interface KeptDictionary {
  /** The dictionary page header's entry count and uncompressed size, checked on each use. */
  readonly entries: number;
  readonly pageSize: number;
  /** Numbers by conversion (see parquet-flat-column.ts conversionKey). */
  readonly numbers: ReadonlyMap<string, Int32Array | Float64Array>;
  /** Every text entry decoded, and whether they are distinct (a TextDictionary can be made of them). */
  readonly strings: readonly Value[] | null;
  readonly distinct: boolean;
  readonly lazy: LazyEntries | null;
}

interface Entry {
  readonly path: string;
  readonly kept: KeptDictionary;
  readonly bytes: number;
}

const entries = new Map<string, Entry>();
/** The identity each path was last opened with. */
const identities = new Map<string, string>();
let bytesKept = 0;
let reservation: MemoryReservation | null = null;

/** A file's identity from the stat of its open handle (see the file comment). */
export function fileIdentity(path: string, st: { dev: number; ino: number; size: number; mtimeMs: number; ctimeMs: number }): string {
  const id = `${path}\u0000${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  const before = identities.get(path);
  if (before !== id) {
    if (before !== undefined) dropPath(path);
    identities.set(path, id);
  }
  return id;
}

function dropPath(path: string): void {
  for (const [k, e] of entries) if (e.path === path) remove(k, e);
}

function remove(key: string, e: Entry): void {
  entries.delete(key);
  bytesKept -= e.bytes;
  reservation?.shrink(e.bytes);
}

const keyOf = (identity: string, offset: number): string => `${identity}@${offset}`;

/** The dictionary kept for the page at `offset` of the file, if its header matches. */
export function keptDictionary(identity: string, offset: number, entryCount: number, pageSize: number): KeptDictionary | null {
  const key = keyOf(identity, offset);
  const e = entries.get(key);
  if (e === undefined) return null;
  if (e.kept.entries !== entryCount || e.kept.pageSize !== pageSize) {
    remove(key, e);
    return null;
  }
  // Most recently used last: the first entry is the one evicted.
  entries.delete(key);
  entries.set(key, e);
  return e.kept;
}

function bytesOf(k: KeptDictionary): number {
  let b = 64;
  for (const a of k.numbers.values()) b += a.byteLength;
  if (k.strings !== null) for (const s of k.strings) b += typeof s === 'string' ? s.length + STRING_OVERHEAD : STRING_OVERHEAD;
  // Lazily decoded entries are counted as if all were decoded: the bound they can grow to.
  if (k.lazy !== null) b += k.lazy.page.byteLength * 2 + k.lazy.starts.byteLength + k.entries * STRING_OVERHEAD;
  return b;
}

/**
 * Keeps `kept` for the page at `offset` (replacing what was kept there), evicting the least recently
 * used entries to make room; nothing is kept when it is too large or the process budget is short.
 */
export function keepDictionary(identity: string, offset: number, kept: KeptDictionary): void {
  const path = identity.slice(0, identity.indexOf('\u0000'));
  if (identities.get(path) !== identity) return;
  const bytes = bytesOf(kept);
  if (bytes > ENTRY_MAX_BYTES) return;
  const key = keyOf(identity, offset);
  const old = entries.get(key);
  if (old !== undefined) remove(key, old);
  reservation ??= processReservation('parquet dictionary cache');
  while (bytesKept + bytes > DICTIONARY_CACHE_BYTES || !reservation.tryGrow(bytes)) {
    const first = entries.entries().next();
    if (first.done === true) return;
    remove(first.value[0], first.value[1]);
  }
  entries.set(key, { path, kept, bytes });
  bytesKept += bytes;
}

/** Bytes kept now (tests, diagnostics). */
export function dictionaryCacheBytes(): number {
  return bytesKept;
}

/** Drops everything kept (tests). */
export function clearDictionaryCache(): void {
  for (const [k, e] of entries) remove(k, e);
  identities.clear();
}
