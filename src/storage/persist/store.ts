/**
 * A database directory (`quire mydb/`, `Database.create({ path })`): every table in its own file,
 * manifest.json naming the current file of each table, the views and the log position the files
 * include, and the write-ahead log `wal` (wal.ts) of the commits since.
 *
 * A commit appends one record to the log (log-record.ts) and is durable once an fdatasync covers it;
 * opening replays the records after the manifest's LSN over the table files. A checkpoint (log past
 * checkpointBytes, or a clean close) writes each changed table to a temporary file, fsyncs and
 * renames it to a new generation name, then writes the manifest the same way with the last LSN (its
 * rename is the checkpoint's commit point), then starts an empty log. Before the manifest's rename
 * the old manifest, old files and whole log are there; after it, replay skips what the LSN covers.
 * Table files of other generations (leftovers of an interrupted checkpoint) are deleted on open by
 * the writer; files Quire did not name are never touched.
 *
 * One writer per directory: opening for writing takes a lock (proper-lockfile's `lock` directory,
 * refreshed while the process lives, plus `lock.holder` saying who holds it). A second writer gets
 * 55006 naming the holder; a lock whose holder process is gone (kill -9) is taken over. Read-only
 * opens take no lock, replay the log in memory and never write or delete anything.
 *
 * Table file (.qtb, "Quire table"): the batches' column chunks back to back (null byte map, then the
 * typed-array bytes, or JSON text for object columns), then a JSON footer describing them (with a
 * CRC-32 per chunk and the table's name), the footer's length (u32 LE), the footer's CRC-32 and the
 * magic "QTB2". Every chunk is checked on read: a flipped byte is XX001 naming the file and table,
 * never a wrong value. Files in the first format ("QTB1", no checksums) still load.
 * Typed columns load without parsing; numeric, interval and text columns go through JSON (numeric
 * and interval as their text form, int8 beyond 2^53 as a decimal string).
 */
import type { ForeignKey } from '../foreign-key.js';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import lockfile from 'proper-lockfile';
import { QuireError } from '../../common/errors.js';
import { type DataType, type Field, type Value } from '../../common/types.js';
import { makeColumn, type Batch, type Column } from '../../common/column.js';
import { CountedMap, isTempTableKey, type Catalog, type ViewDef } from '../catalog.js';
import { extendBatch, extendsBatch, MemoryTable, storedColumns, type ColumnMeta } from '../memory-table.js';
import { objectText, objectValue } from './column-codec.js';
import { decodeRecord, fieldsOf, RecordBuilder, type LogOp, type Run, type TableDefinition } from './log-record.js';
import { createWal, readWal, RECORD_PREFIX, WAL_FILE, WalWriter, type WalContents } from './wal.js';
import { storedType, typeJson, type StoredType } from './stored-type.js';

const MAGIC_V1 = 'QTB1';
const MAGIC = 'QTB2';
const MANIFEST = 'manifest.json';
const LOCK = 'lock';
const HOLDER = 'lock.holder';

interface ChunkDesc {
  /** Byte offset of the null map (present when `nulls`), then the data. */
  offset: number;
  nulls: boolean;
  kind: 'u8' | 'i32' | 'f64' | 'json';
  bytes: number;
  /** CRC-32 of the null map and the data (absent in QTB1 files). */
  crc?: number;
}
interface FileFooter {
  version: 1 | 2;
  /** The table the file holds (QTB2), so a manifest cannot hand one table another's file. */
  table?: string;
  fields: { name: string; type: StoredType }[];
  batches: { length: number; columns: ChunkDesc[] }[];
}

interface ManifestTable {
  name: string;
  file: string;
  meta: ColumnMeta[];
  uniqueKeys: number[][];
  uniqueNames?: string[];
  indexKeyNames?: string[];
  indexes?: { name: string; sql: string }[];
  primaryKey?: boolean;
  foreignKeys?: ForeignKey[];
}
interface Manifest {
  version: 1;
  generation: number;
  /** The last write-ahead log record the table files include (absent: 0, a directory without a log). */
  lsn?: number;
  tables: ManifestTable[];
  views: { name: string; sql: string }[];
}

function fsyncDir(dir: string): void {
  // Makes the rename durable; some platforms cannot open directories, which is fine there.
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // best effort
  }
}

function writeAtomic(dir: string, name: string, write: (fd: number) => void): void {
  const tmp = path.join(dir, `.${name}.tmp-${process.pid}`);
  const fd = fs.openSync(tmp, 'w');
  try {
    write(fd);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, path.join(dir, name));
}

function encodeObjColumn(c: Column, n: number, t: DataType): Buffer {
  const out: (string | null)[] = new Array(n);
  const d = c.data as Value[];
  for (let i = 0; i < n; i++) out[i] = c.nulls !== null && c.nulls[i] === 1 ? null : objectText(d[i] ?? null, t);
  return Buffer.from(JSON.stringify(out), 'utf8');
}

function writeTableFile(fd: number, t: MemoryTable): void {
  const footer: FileFooter = { version: 2, table: t.name, fields: t.schema.map((f) => ({ name: f.name, type: typeJson(f.type) })), batches: [] };
  let offset = 0;
  const put = (b: Uint8Array): void => {
    let done = 0;
    while (done < b.length) done += fs.writeSync(fd, b, done, b.length - done, null);
    offset += b.length;
  };
  for (const b of t.snapshot()) {
    const cols: ChunkDesc[] = [];
    b.columns.forEach((c, ci) => {
      const start = offset;
      const n = b.length;
      let crc = 0;
      if (c.nulls !== null) {
        const nm = c.nulls.subarray(0, n);
        crc = crc32(nm, crc);
        put(nm);
      }
      const d = c.data;
      const ft = t.schema[ci]!.type;
      let kind: ChunkDesc['kind'];
      let bytes: Uint8Array;
      if (d instanceof Uint8Array) {
        kind = 'u8';
        bytes = d.subarray(0, n);
      } else if (d instanceof Int32Array) {
        kind = 'i32';
        bytes = new Uint8Array(d.buffer, d.byteOffset, n * 4);
      } else if (d instanceof Float64Array) {
        kind = 'f64';
        bytes = new Uint8Array(d.buffer, d.byteOffset, n * 8);
      } else {
        kind = 'json';
        bytes = encodeObjColumn(c, n, ft);
      }
      crc = crc32(bytes, crc);
      put(bytes);
      cols.push({ offset: start, nulls: c.nulls !== null, kind, bytes: bytes.length, crc });
    });
    footer.batches.push({ length: b.length, columns: cols });
  }
  const fb = Buffer.from(JSON.stringify(footer), 'utf8');
  put(fb);
  const tail = Buffer.alloc(12);
  tail.writeUInt32LE(fb.length, 0);
  tail.writeUInt32LE(crc32(fb), 4);
  tail.write(MAGIC, 8, 'latin1');
  put(tail);
}

function corrupt(file: string, table: string | undefined, what: string): QuireError {
  return new QuireError('XX001', `table file "${path.basename(file)}"${table !== undefined ? ` of table "${table}"` : ''} is corrupt: ${what}`, {
    hint: 'Restore the directory from a backup; the other tables are unaffected.',
  });
}

export function readTableFile(file: string, table?: string): { fields: Field[]; batches: Batch[] } {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new QuireError('XX001', `table file "${path.basename(file)}"${table !== undefined ? ` of table "${table}"` : ''} cannot be read: ${code ?? (e as Error).message}`, {
      hint: 'Restore the directory from a backup; the manifest names a file that is not there.',
    });
  }
  const magic = buf.length >= 8 ? buf.toString('latin1', buf.length - 4) : '';
  const v2 = magic === MAGIC;
  if (!v2 && magic !== MAGIC_V1) throw corrupt(file, table, 'no table file trailer (truncated or not a table file)');
  const tailLen = v2 ? 12 : 8;
  if (buf.length < tailLen) throw corrupt(file, table, 'truncated');
  const flen = buf.readUInt32LE(buf.length - tailLen);
  if (flen > buf.length - tailLen) throw corrupt(file, table, 'footer length out of range');
  const fb = buf.subarray(buf.length - tailLen - flen, buf.length - tailLen);
  if (v2 && crc32(fb) !== buf.readUInt32LE(buf.length - 8)) throw corrupt(file, table, 'footer checksum mismatch');
  let footer: FileFooter;
  try {
    footer = JSON.parse(fb.toString('utf8')) as FileFooter;
  } catch {
    throw corrupt(file, table, 'unreadable footer');
  }
  if (!Array.isArray(footer.fields) || !Array.isArray(footer.batches)) throw corrupt(file, table, 'malformed footer');
  if (v2 && table !== undefined && footer.table !== table) throw corrupt(file, table, `it holds table "${String(footer.table)}"`);
  const dataEnd = buf.length - tailLen - flen;
  const fields: Field[] = footer.fields.map((f) => ({ name: f.name, type: storedType(f.type) }));
  const batches: Batch[] = footer.batches.map((b, bi) => ({
    length: b.length,
    columns: b.columns.map((c, ci): Column => {
      const t = fields[ci]!.type;
      const n = b.length;
      const start = c.offset;
      const end = start + (c.nulls ? n : 0) + c.bytes;
      if (!(start >= 0 && end <= dataEnd)) throw corrupt(file, table, `batch ${bi + 1} column "${fields[ci]!.name}" lies outside the file`);
      if (v2 && crc32(buf.subarray(start, end)) !== c.crc) throw corrupt(file, table, `checksum mismatch in batch ${bi + 1}, column "${fields[ci]!.name}"`);
      let p = c.offset;
      let nulls: Uint8Array | null = null;
      if (c.nulls) {
        nulls = new Uint8Array(buf.subarray(p, p + n));
        p += n;
      }
      const raw = buf.subarray(p, p + c.bytes);
      // Copies into fresh buffers: aligned, and the file buffer can be collected.
      const ab = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength);
      switch (c.kind) {
        case 'u8':
          return makeColumn(t, new Uint8Array(ab), nulls);
        case 'i32':
          return makeColumn(t, new Int32Array(ab), nulls);
        case 'f64':
          return makeColumn(t, new Float64Array(ab), nulls);
        default: {
          let arr: (string | null)[];
          try {
            arr = JSON.parse(raw.toString('utf8')) as (string | null)[];
          } catch {
            throw corrupt(file, table, `unreadable values in batch ${bi + 1}, column "${fields[ci]!.name}"`);
          }
          // int8 beyond 2^53 was a plain-array column; it stays one.
          return makeColumn(t, arr.map((s) => objectValue(s, t)), nulls);
        }
      }
    }),
  }));
  return { fields, batches };
}

function fileStem(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, (c) => `%${c.charCodeAt(0).toString(16)}`).slice(0, 80);
}

function badManifest(dir: string, what: string): QuireError {
  return new QuireError('XX001', `database directory "${dir}" has an invalid manifest.json: ${what}`, {
    hint: 'Restore manifest.json from a backup. Table files are named <table>.<generation>.qtb; nothing was changed or deleted.',
  });
}

/** The manifest's shape, checked field by field: a damaged or foreign manifest is refused, not trusted. */
function validateManifest(dir: string, raw: unknown): Manifest {
  const m = raw as Partial<Manifest> | null;
  if (m === null || typeof m !== 'object' || Array.isArray(m)) throw badManifest(dir, 'not a JSON object');
  if (m.version !== 1) throw badManifest(dir, `unsupported version ${JSON.stringify(m.version)} (this Quire reads version 1)`);
  if (typeof m.generation !== 'number' || !Number.isSafeInteger(m.generation) || m.generation < 0) throw badManifest(dir, 'missing or invalid "generation"');
  if (m.lsn !== undefined && (typeof m.lsn !== 'number' || !Number.isSafeInteger(m.lsn) || m.lsn < 0)) throw badManifest(dir, 'invalid "lsn"');
  if (!Array.isArray(m.tables)) throw badManifest(dir, 'missing "tables"');
  if (!Array.isArray(m.views)) throw badManifest(dir, 'missing "views"');
  const names = new Set<string>();
  for (const t of m.tables as Partial<ManifestTable>[]) {
    if (t === null || typeof t !== 'object' || typeof t.name !== 'string' || typeof t.file !== 'string') throw badManifest(dir, 'a table entry lacks "name" or "file"');
    // Files live in the directory itself, named after their table: no paths, no other table's file.
    if (t.file !== path.basename(t.file) || !t.file.startsWith(`${fileStem(t.name)}.`) || !/^[^/\\]+\.\d+\.qtb$/.test(t.file)) {
      throw badManifest(dir, `table "${t.name}" names file "${t.file}", which is not one of its table files`);
    }
    if (names.has(t.name)) throw badManifest(dir, `table "${t.name}" appears twice`);
    names.add(t.name);
    if (!Array.isArray(t.meta) || !Array.isArray(t.uniqueKeys)) throw badManifest(dir, `table "${t.name}" lacks "meta" or "uniqueKeys"`);
    if (t.primaryKey !== undefined && (typeof t.primaryKey !== 'boolean' || (t.primaryKey && !(Array.isArray(t.uniqueKeys) && t.uniqueKeys.length > 0)))) throw badManifest(dir, `table "${t.name}" has an invalid "primaryKey"`);
    if (t.indexes !== undefined && !validIndexes(t.indexes)) throw badManifest(dir, `table "${t.name}" has invalid "indexes"`);
    if (t.indexKeyNames !== undefined && !(Array.isArray(t.indexKeyNames) && t.indexKeyNames.every((n) => typeof n === 'string'))) throw badManifest(dir, `table "${t.name}" has an invalid "indexKeyNames"`);
  }
  for (const v of m.views as Partial<{ name: string; sql: string }>[]) {
    if (v === null || typeof v !== 'object' || typeof v.name !== 'string' || typeof v.sql !== 'string') throw badManifest(dir, 'a view entry lacks "name" or "sql"');
  }
  return m as Manifest;
}

interface LockHolder {
  pid: number;
  host: string;
  since: string;
  command: string;
}

function readHolder(dir: string): LockHolder | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, HOLDER), 'utf8')) as LockHolder;
  } catch {
    return null;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the directory's writer lock. A lock left by a process of this host that no longer runs
 * (killed with -9) is stale at once; otherwise proper-lockfile's refreshed mtime decides.
 */
function acquireLock(dir: string): () => void {
  const opts = { lockfilePath: path.join(dir, LOCK), stale: 10_000, update: 2_000, realpath: false, onCompromised: () => undefined };
  let release: () => void;
  try {
    release = lockfile.lockSync(dir, opts);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ELOCKED') throw e;
    const h = readHolder(dir);
    if (h !== null && h.host === os.hostname() && h.pid !== process.pid && !processAlive(h.pid)) {
      fs.rmSync(path.join(dir, LOCK), { recursive: true, force: true });
      release = lockfile.lockSync(dir, opts);
    } else {
      const who = h === null ? 'another process' : h.pid === process.pid ? 'this process (another Database object)' : `process ${h.pid} on ${h.host} (${h.command}, since ${h.since})`;
      throw new QuireError('55006', `database directory "${dir}" is locked by ${who}`, {
        hint: 'Only one process may write a database directory. Close the other one, or open this one read-only (quire --read-only, Database.create({ path, readOnly: true })).',
      });
    }
  }
  const holder: LockHolder = { pid: process.pid, host: os.hostname(), since: new Date().toISOString(), command: path.basename(process.argv[1] ?? 'node') };
  fs.writeFileSync(path.join(dir, HOLDER), JSON.stringify(holder));
  return () => {
    try {
      fs.rmSync(path.join(dir, HOLDER), { force: true });
      release();
    } catch {
      // already released
    }
  };
}

export interface StoreOptions {
  /** Open a consistent snapshot without the writer lock; never write or delete anything. */
  readOnly?: boolean;
  /** Checkpoint once the write-ahead log grows past this many bytes (default 64 MiB). */
  checkpointBytes?: number;
}

/** The points between a checkpoint's steps, for tests that crash or fail there. */
export type CheckpointStep = 'start' | 'tables-written' | 'manifest-written' | 'log-rotated';
let checkpointHook: ((step: CheckpointStep) => void) | null = null;

/** Test hook: called at each step of every checkpoint of this process (null removes it). */
export function setCheckpointHook(hook: ((step: CheckpointStep) => void) | null): void {
  checkpointHook = hook;
}

const DEFAULT_CHECKPOINT_BYTES = 64 * 1024 * 1024;

/**
 * What the log last recorded of a table: its object, batch list and definition. A class, not an
 * object literal: every table's entry lives until its next commit, so with many tables a literal's
 * allocation site got pretenured, and each commit's entry, born old, kept the young batch list it
 * points to alive through scavenges (see CommittedBatch in memory-table.ts).
 */
class Logged {
  // Declared and assigned, not parameter properties (which ES2022 class fields define first and
  // then assign): one of these is made per commit.
  declare readonly table: MemoryTable;
  declare readonly batches: readonly Batch[];
  /** The key list logged: CREATE UNIQUE INDEX and DROP INDEX replace it without changing rows. */
  declare readonly keys: readonly (readonly number[])[];
  /** The foreign key list logged: ALTER TABLE replaces it without changing rows. */
  declare readonly fks: readonly ForeignKey[];
  /** The secondary indexes logged (their JSON: rebuilding them on open must not count as a change). */
  declare readonly indexes: string;
  declare readonly def: string;
  constructor(table: MemoryTable, batches: readonly Batch[], keys: readonly (readonly number[])[], fks: readonly ForeignKey[], indexes: string, def: string) {
    this.table = table;
    this.batches = batches;
    this.keys = keys;
    this.fks = fks;
    this.indexes = indexes;
    this.def = def;
  }
}

const indexJsons = new WeakMap<object, string>();

/** A schema's column types, made once per schema rather than per commit. */
const schemaTypes = new WeakMap<readonly Field[], readonly DataType[]>();
function columnTypes(schema: readonly Field[]): readonly DataType[] {
  let types = schemaTypes.get(schema);
  if (types === undefined) schemaTypes.set(schema, (types = schema.map((f) => f.type)));
  return types;
}

function indexJson(t: MemoryTable): string {
  const key = t.indexes.length > 0 ? t.indexes : t.restoreIndexes;
  let j = indexJsons.get(key);
  if (j === undefined) {
    j = JSON.stringify(savedIndexes(t));
    indexJsons.set(key, j);
  }
  return j;
}

/** A table's definition JSON, by its metadata objects (column metadata is not changed in place once a table exists, but sequences advance). */
const definitions = new WeakMap<ColumnMeta[], { uniqueKeys: number[][]; uniqueNames: string[]; indexKeyNames: string[]; primaryKey: boolean; foreignKeys: readonly ForeignKey[]; indexes: MemoryTable['indexes']; json: string }>();

/** The parts of a table's definition beyond its columns, as the manifest and log records carry them (absent ones left out). */
function keyParts(t: MemoryTable): { indexKeyNames?: string[]; primaryKey?: boolean; foreignKeys?: ForeignKey[]; indexes?: SavedIndex[] } {
  const indexes = savedIndexes(t);
  return { ...(indexes.length > 0 ? { indexes } : {}), ...(t.indexKeyNames.length > 0 ? { indexKeyNames: t.indexKeyNames } : {}), ...(t.primaryKey ? { primaryKey: true } : {}), ...(t.foreignKeys.length > 0 ? { foreignKeys: [...t.foreignKeys] } : {}) };
}

/** A secondary index as a directory keeps it: its CREATE INDEX statement, run again on open. */
interface SavedIndex {
  name: string;
  sql: string;
}

/** The secondary indexes to save: the live definitions, or those read from the directory and not yet rebuilt. */
function savedIndexes(t: MemoryTable): SavedIndex[] {
  return t.indexes.length > 0 ? t.indexes.map((d) => ({ name: d.name, sql: d.sql })) : [...t.restoreIndexes];
}

function validIndexes(x: unknown): x is SavedIndex[] {
  return Array.isArray(x) && x.every((i: { name?: unknown; sql?: unknown }) => typeof i.name === 'string' && typeof i.sql === 'string');
}

function definitionJson(t: MemoryTable): string {
  const meta = t.meta;
  const known = definitions.get(meta);
  if (known !== undefined && known.uniqueKeys === t.uniqueKeys && known.uniqueNames === t.uniqueNames && known.indexKeyNames === t.indexKeyNames && known.primaryKey === t.primaryKey && known.foreignKeys === t.foreignKeys && known.indexes === t.indexes && t.restoreIndexes.length === 0) return known.json;
  const json = JSON.stringify({ meta, uniqueKeys: t.uniqueKeys, uniqueNames: t.uniqueNames, ...keyParts(t), primaryKey: t.primaryKey });
  // A serial's next value is part of the definition: such tables are written out each time.
  if (!meta.some((m) => m.sequence !== null)) definitions.set(meta, { uniqueKeys: t.uniqueKeys, uniqueNames: t.uniqueNames, indexKeyNames: t.indexKeyNames, primaryKey: t.primaryKey, foreignKeys: t.foreignKeys, indexes: t.indexes, json });
  return json;
}

/** The new batch list as runs of batches kept from the old one (by position), extended ones and new batches. */
function runsFor(t: MemoryTable, old: readonly Batch[], now: readonly Batch[]): Run[] {
  let k = 0;
  if (old.length > 0 && t.appendedSince(now, old)) {
    // Only appends since the last record: every batch but the old last is kept as it was, so only
    // the end of the list is compared (not a thousand batches at a million rows, per commit).
    k = now[old.length - 1] === old[old.length - 1] ? old.length : old.length - 1;
  } else while (k < old.length && k < now.length && old[k] === now[k]) k++;
  const runs: Run[] = k > 0 ? [{ keep: 0, count: k }] : [];
  if (k === now.length) return runs;
  if (k === old.length - 1 && extendsBatch(now[k]!, old[k]!)) {
    // Rows committed into the open last batch: only they are logged.
    runs.push({ extend: k, rows: now[k]!, from: old[k]!.length, stored: storedColumns(now[k]!) });
    k++;
  }
  const index = k >= old.length ? null : new Map(old.map((b, i) => [b, i]));
  for (let i = k; i < now.length; i++) {
    const b = now[i]!;
    const at = index?.get(b);
    const last = runs[runs.length - 1];
    if (at === undefined) runs.push({ batch: b });
    else if (last !== undefined && 'keep' in last && last.keep + last.count === at) last.count++;
    else runs.push({ keep: at, count: 1 });
  }
  return runs;
}

function readOnlyError(dir: string): QuireError {
  return new QuireError('25006', `cannot write to database directory "${dir}": it was opened read-only`);
}

/** A reader met a checkpoint of the writer half-way (new log, old manifest or a removed file): read again. */
class ConcurrentCheckpoint extends Error {}

export class DirectoryStore {
  private manifest: Manifest;
  private saved = new Map<MemoryTable, { version: number; file: string }>();
  private release: (() => void) | null = null;
  private wal: WalWriter | null = null;
  private logged = new Map<string, Logged>();
  private loggedViews = '[]';
  /** The view objects loggedViews was made from (null: unknown, compare the JSON). */
  private loggedViewDefs: ViewDef[] | null = null;
  private catalog: Catalog | null = null;
  private readonly checkpointBytes: number;
  private nextCheckpointAt: number;
  /** catalog.tables' and catalog.views' change counts (CountedMap) when last logged; -1: look at all. */
  private tablesSeen = -1;
  private viewsSeen = -1;
  /** The tables that reported a change since the last record (MemoryTable.changeSink). */
  private readonly reported = new Set<MemoryTable>();
  /** The catalog key each table reporting into `reported` was found under. */
  private readonly keyOf = new WeakMap<MemoryTable, string>();

  private constructor(
    readonly dir: string,
    manifest: Manifest,
    readonly readOnly: boolean,
    opts: StoreOptions,
  ) {
    this.manifest = manifest;
    this.checkpointBytes = opts.checkpointBytes !== undefined && opts.checkpointBytes > 0 ? opts.checkpointBytes : DEFAULT_CHECKPOINT_BYTES;
    this.nextCheckpointAt = this.checkpointBytes;
  }

  static open(dir: string, opts: StoreOptions = {}): DirectoryStore {
    const readOnly = opts.readOnly === true;
    if (readOnly) {
      if (!fs.existsSync(dir)) throw new QuireError('58P01', `database directory "${dir}" does not exist`);
    } else {
      fs.mkdirSync(dir, { recursive: true });
    }
    const release = readOnly ? null : acquireLock(dir);
    try {
      const store = new DirectoryStore(dir, DirectoryStore.readManifest(dir), readOnly, opts);
      store.release = release;
      return store;
    } catch (e) {
      release?.();
      throw e;
    }
  }

  private static readManifest(dir: string): Manifest {
    const mp = path.join(dir, MANIFEST);
    if (!fs.existsSync(mp)) {
      // No manifest over existing table files is damage, not an empty database.
      const tables = fs.readdirSync(dir).filter((f) => f.endsWith('.qtb'));
      if (tables.length > 0) {
        throw new QuireError('XX001', `database directory "${dir}" has ${tables.length} table file(s) but no manifest.json`, {
          hint: 'Restore manifest.json from a backup; nothing was changed or deleted.',
        });
      }
      return { version: 1, generation: 0, tables: [], views: [] };
    }
    let raw: unknown;
    try {
      raw = JSON.parse(fs.readFileSync(mp, 'utf8'));
    } catch (e) {
      throw badManifest(dir, (e as Error).message);
    }
    return validateManifest(dir, raw);
  }

  /** Leftovers of an interrupted write: this store's temporary files and table files of other generations. */
  private removeLeftovers(): void {
    const live = new Set(this.manifest.tables.map((t) => t.file));
    const ours = new Set(this.manifest.tables.map((t) => fileStem(t.name)));
    for (const f of fs.readdirSync(this.dir)) {
      const tmp = /^\.(.+)\.tmp-\d+$/.exec(f);
      const gen = /^(.+)\.(\d+)\.qtb$/.exec(f);
      const leftover = tmp !== null ? tmp[1] === MANIFEST || tmp[1] === WAL_FILE || /\.\d+\.qtb$/.test(tmp[1]!) : gen !== null && !live.has(f) && (ours.has(gen[1]!) || Number(gen[2]) > this.manifest.generation);
      if (!leftover) continue;
      try {
        fs.unlinkSync(path.join(this.dir, f));
      } catch {
        // gone already
      }
    }
  }

  /**
   * Ends the store: a writer first checkpoints what the log holds (so the next open replays nothing),
   * then releases the writer lock (the process exiting releases it too).
   */
  close(): void {
    try {
      if (this.wal !== null && this.catalog !== null) {
        this.commit(this.catalog);
        this.checkpoint(this.catalog);
      }
    } finally {
      this.wal?.close();
      this.wal = null;
      this.release?.();
      this.release = null;
    }
  }

  /** Loads the tables into the catalog, replaying the log over them; returns the views' CREATE VIEW statements to replay. */
  load(catalog: Catalog): string[] {
    // A reader can meet a checkpoint of the writer half-way; it reads again from the new manifest.
    for (let attempt = 1; ; attempt++) {
      try {
        return this.loadOnce(catalog);
      } catch (e) {
        if (!(e instanceof ConcurrentCheckpoint) || attempt >= 20) {
          if (e instanceof ConcurrentCheckpoint) throw new QuireError('XX001', `database directory "${this.dir}": ${e.message}`);
          throw e;
        }
        for (const name of [...catalog.tables.keys()]) if (!isTempTableKey(name)) catalog.tables.delete(name);
        this.saved.clear();
        this.manifest = DirectoryStore.readManifest(this.dir);
      }
    }
  }

  private loadOnce(catalog: Catalog): string[] {
    for (const mt of this.manifest.tables) {
      let read: ReturnType<typeof readTableFile>;
      try {
        read = readTableFile(path.join(this.dir, mt.file), mt.name);
      } catch (e) {
        if (this.readOnly && !fs.existsSync(path.join(this.dir, mt.file))) throw new ConcurrentCheckpoint(`table file "${mt.file}" is missing`);
        throw e;
      }
      const t = new MemoryTable(mt.name, read.fields.map((f) => ({ ...f, table: mt.name })), mt.meta);
      t.uniqueKeys = mt.uniqueKeys;
      t.uniqueNames = mt.uniqueNames ?? [];
      t.indexKeyNames = mt.indexKeyNames ?? [];
      t.primaryKey = mt.primaryKey === true;
      t.foreignKeys = mt.foreignKeys ?? [];
      t.restoreIndexes = mt.indexes ?? [];
      t.replaceAll(read.batches);
      catalog.tables.set(mt.name, t);
      this.saved.set(t, { version: t.version, file: mt.file });
    }
    let views = this.manifest.views;
    const walFile = path.join(this.dir, WAL_FILE);
    const from = this.manifest.lsn ?? 0;
    const replay = this.replayer(catalog, (v) => (views = v));
    // Records are applied as they are read: replay holds one read window (or one record), not the log.
    const log = readWal(walFile, {
      header: (base) => {
        if (base <= from) return;
        if (this.readOnly) throw new ConcurrentCheckpoint(`the write-ahead log starts after LSN ${from} of manifest.json`);
        throw new QuireError('XX001', `write-ahead log "${WAL_FILE}" of database directory "${this.dir}" starts at LSN ${base + 1}, after LSN ${from} of manifest.json`, {
          hint: 'The records in between are missing: restore the directory from a backup.',
        });
      },
      record: (lsn, body) => {
        if (lsn > from) replay(lsn, body);
      },
    });
    for (const [name, t] of catalog.tables) {
      if (t instanceof MemoryTable && !isTempTableKey(name)) this.logged.set(name, new Logged(t, t.snapshot(), t.uniqueKeys, t.foreignKeys, indexJson(t), definitionJson(t)));
    }
    this.loggedViews = JSON.stringify(views);
    this.catalog = catalog;
    if (!this.readOnly) {
      // Only once every file the manifest names has loaded: a damaged manifest must not cost a file.
      this.removeLeftovers();
      if (!fs.existsSync(path.join(this.dir, MANIFEST))) {
        // A new directory gets its (empty) manifest first, so table files never exist without one.
        this.writeManifest(this.manifest);
      }
      this.openLog(log, from);
    }
    return views.map((v) => v.sql);
  }

  private openLog(log: WalContents | null, from: number): void {
    const last = log === null ? -1 : log.last;
    let contents = log;
    if (contents === null || last <= from) {
      // Everything in the log is in the table files (or there is no log yet): start a fresh one after
      // the manifest's LSN, so no new record can carry an LSN replay would skip.
      createWal(this.dir, from);
      fsyncDir(this.dir);
      contents = readWal(path.join(this.dir, WAL_FILE))!;
    }
    this.wal = new WalWriter(path.join(this.dir, WAL_FILE), contents);
    this.nextCheckpointAt = Math.max(this.checkpointBytes, this.wal.size + this.checkpointBytes / 4);
  }

  /** Applies one log record's operations to the catalog; `setViews` takes the views a record carries. */
  private replayer(catalog: Catalog, setViews: (views: Manifest['views']) => void): (lsn: number, body: Buffer) => void {
    const file = path.join(this.dir, WAL_FILE);
    const memory = (name: string): MemoryTable | undefined => {
      const t = catalog.tables.get(name);
      return t instanceof MemoryTable ? t : undefined;
    };
    const bad = (lsn: number, what: string): QuireError =>
      new QuireError('XX001', `write-ahead log "${path.basename(file)}" is corrupt: record ${lsn}: ${what}`, { hint: 'Restore the database directory from a backup.' });
    return (lsn, body) => {
      const apply = (op: LogOp): void => {
        switch (op.op) {
          case 'drop':
            catalog.tables.delete(op.name);
            break;
          case 'create': {
            const fields = fieldsOf(op.def);
            const t = new MemoryTable(op.name, fields.map((f) => ({ ...f, table: op.name })), op.def.meta);
            t.uniqueKeys = op.def.uniqueKeys;
            t.uniqueNames = op.def.uniqueNames ?? [];
            t.indexKeyNames = op.def.indexKeyNames ?? [];
            t.primaryKey = op.def.primaryKey === true;
            t.foreignKeys = op.def.foreignKeys ?? [];
            t.restoreIndexes = op.def.indexes ?? [];
            t.replaceAll(op.batches);
            catalog.tables.set(op.name, t);
            break;
          }
          case 'change': {
            const t = memory(op.name)!;
            const old = t.snapshot();
            const list: Batch[] = [];
            for (const run of op.runs) {
              if ('extend' in run) {
                if (run.extend >= old.length) throw bad(lsn, `table "${op.name}" has no batch ${run.extend + 1}`);
                // As the commit did: into the open batch's buffers, so replaying many small commits stays linear.
                const grown = extendBatch(old[run.extend]!, run.rows);
                if (grown === null) throw bad(lsn, `rows added to batch ${run.extend + 1} of table "${op.name}" do not fit it`);
                list.push(grown);
              } else if ('batch' in run) list.push(run.batch);
              else {
                if (run.keep + run.count > old.length) throw bad(lsn, `table "${op.name}" has no batch ${run.keep + run.count}`);
                for (let i = run.keep; i < run.keep + run.count; i++) list.push(old[i]!);
              }
            }
            t.replaceAll(list);
            if (op.def !== null) {
              t.meta = op.def.meta;
              t.uniqueKeys = op.def.uniqueKeys;
              t.uniqueNames = op.def.uniqueNames ?? [];
              t.indexKeyNames = op.def.indexKeyNames ?? [];
              // Records written before these were kept carry neither: the table keeps what it had.
              if (op.def.primaryKey !== undefined) t.primaryKey = op.def.primaryKey;
              t.foreignKeys = op.def.foreignKeys ?? [];
              t.restoreIndexes = op.def.indexes ?? [];
            }
            break;
          }
          case 'views':
            setViews(op.views);
            break;
        }
      };
      try {
        decodeRecord(body, (name) => memory(name)?.schema.map((f) => f.type), apply);
      } catch (e) {
        if (e instanceof QuireError) throw e;
        throw bad(lsn, (e as Error).message);
      }
    };
  }

  /**
   * Adds to `rec` what changed in table `t` (catalog key `name`) since the last record, and returns
   * what `logged` becomes for it once the record is written; null when nothing did.
   */
  private logTable(rec: RecordBuilder, name: string, t: MemoryTable): [string, Logged] | null {
    const l = this.logged.get(name);
    const batches = t.snapshot();
    const indexes = indexJson(t);
    // Unwritten since the last record, keys included (a sequence advanced by a rolled-back INSERT is
    // logged with the table's next write, as docs/durability.md says).
    if (l !== undefined && l.table === t && l.batches === batches && l.keys === t.uniqueKeys && l.fks === t.foreignKeys && l.indexes === indexes) return null;
    const def = definitionJson(t);
    if (l === undefined || l.table !== t) {
      const full: TableDefinition = { fields: t.schema.map((f) => ({ name: f.name, type: typeJson(f.type) })), meta: t.meta, uniqueKeys: t.uniqueKeys, uniqueNames: t.uniqueNames, ...keyParts(t) };
      rec.create(name, full, batches, t.schema.map((f) => f.type));
    } else {
      rec.change(name, l.def !== def ? def : null, runsFor(t, l.batches, batches), columnTypes(t.schema));
    }
    return [name, new Logged(t, batches, t.uniqueKeys, t.foreignKeys, indexes, def)];
  }

  /**
   * Logs what changed in the catalog since the last commit as one record; returns its LSN, or null
   * when nothing changed. The record is written, not yet durable: waitDurable() says when it is.
   */
  commit(catalog: Catalog, writer?: object): number | null {
    const rec = new RecordBuilder(RECORD_PREFIX);
    // What the record changes in `logged`, applied once it is written (most commits touch one table).
    let dropped: string[] | null = null;
    let updates: [string, Logged][] | null = null;
    const tables = catalog.tables;
    const tablesNow = tables instanceof CountedMap ? tables.changes : -1;
    if (tablesNow < 0 || tablesNow !== this.tablesSeen) {
      // Tables were added, replaced or dropped: every table is looked at, and reports its changes from now on.
      for (const [name, l] of this.logged) {
        if (tables.get(name) !== l.table) {
          rec.drop(name);
          (dropped ??= []).push(name);
        }
      }
      for (const [name, t] of tables) {
        if (!(t instanceof MemoryTable) || isTempTableKey(name)) continue;
        t.changeSink = this.reported;
        this.keyOf.set(t, name);
        const u = this.logTable(rec, name, t);
        if (u !== null) (updates ??= []).push(u);
      }
    } else {
      // The same tables as at the last record: only those that reported a change can have one.
      for (const t of this.reported) {
        const name = this.keyOf.get(t);
        if (name === undefined || tables.get(name) !== t) continue;
        const u = this.logTable(rec, name, t);
        if (u !== null) (updates ??= []).push(u);
      }
    }
    // The views' JSON only when the view list changed since the last record.
    const viewsNow = catalog.views instanceof CountedMap ? catalog.views.changes : -1;
    let views = this.loggedViews;
    if (viewsNow < 0 || viewsNow !== this.viewsSeen) {
      let sameViews = this.loggedViewDefs !== null && this.loggedViewDefs.length === catalog.views.size;
      if (sameViews) {
        let i = 0;
        for (const v of catalog.views.values()) if (v !== this.loggedViewDefs![i++]) sameViews = false;
      }
      views = sameViews ? this.loggedViews : JSON.stringify([...catalog.views.values()].map((v: ViewDef) => ({ name: v.name, sql: v.sql })));
      if (views !== this.loggedViews) rec.views(JSON.parse(views) as { name: string; sql: string }[]);
    }
    if (rec.ops === 0) {
      this.reported.clear();
      this.tablesSeen = tablesNow;
      return null;
    }
    if (this.readOnly || this.wal === null) throw readOnlyError(this.dir);
    const lsn = this.wal.append(rec.pieces(), rec.bytes, writer);
    if (dropped !== null) for (const name of dropped) this.logged.delete(name);
    if (updates !== null) for (const [name, l] of updates) this.logged.set(name, l);
    this.reported.clear();
    this.tablesSeen = tablesNow;
    if (views !== this.loggedViews || viewsNow !== this.viewsSeen) {
      this.loggedViews = views;
      this.loggedViewDefs = [...catalog.views.values()];
      this.viewsSeen = viewsNow;
    }
    if (this.wal.size >= this.nextCheckpointAt) {
      try {
        this.checkpoint(catalog);
      } catch {
        // The commit is in the log all the same; the checkpoint is tried again once the log grows more.
        this.nextCheckpointAt = this.wal.size + this.checkpointBytes / 4;
      }
    }
    return lsn;
  }

  /** Records written and fdatasync calls made since open (null when there is no log: read-only). */
  walStats(): { lsn: number; durable: number; syncs: number; inlineSyncs: number; bytes: number } | null {
    return this.wal === null ? null : { lsn: this.wal.written, durable: this.wal.durable, syncs: this.wal.syncs, inlineSyncs: this.wal.inlineSyncs, bytes: this.wal.size };
  }

  /**
   * Null when every commit logged so far is on disk, else a promise that resolves once it is (one
   * fdatasync serves all that wait for it).
   */
  waitDurable(): Promise<void> | null {
    return this.wal === null ? null : this.wal.waitDurable(this.wal.written);
  }

  private writeManifest(manifest: Manifest): void {
    writeAtomic(this.dir, MANIFEST, (fd) => {
      fs.writeSync(fd, JSON.stringify(manifest, null, 1));
    });
    fsyncDir(this.dir);
  }

  /**
   * Writes the tables changed since the last checkpoint to new files and a manifest naming them with
   * the log's last LSN, then starts an empty log. A crash before the manifest's rename leaves the old
   * manifest and the whole log; after it, replay skips the records the manifest's LSN covers.
   */
  checkpoint(catalog: Catalog): void {
    const wal = this.wal;
    if (wal === null || wal.written === (this.manifest.lsn ?? 0)) return;
    checkpointHook?.('start');
    const tables: ManifestTable[] = [];
    const current = new Map<MemoryTable, { version: number; file: string }>();
    let gen = this.manifest.generation;
    for (const [name, src] of catalog.tables) {
      if (!(src instanceof MemoryTable) || isTempTableKey(name)) continue;
      let s = this.saved.get(src);
      if (s === undefined || s.version !== src.version) {
        gen++;
        const file = `${fileStem(name)}.${gen}.qtb`;
        writeAtomic(this.dir, file, (fd) => writeTableFile(fd, src));
        s = { version: src.version, file };
      }
      current.set(src, s);
      tables.push({ name, file: s.file, meta: src.meta, uniqueKeys: src.uniqueKeys, uniqueNames: src.uniqueNames, ...keyParts(src) });
    }
    const views = [...catalog.views.values()].map((v: ViewDef) => ({ name: v.name, sql: v.sql }));
    const oldFiles = new Set(this.manifest.tables.map((t) => t.file));
    const manifest: Manifest = { version: 1, generation: gen, lsn: wal.written, tables, views };
    fsyncDir(this.dir);
    checkpointHook?.('tables-written');
    this.writeManifest(manifest);
    this.manifest = manifest;
    this.saved = current;
    checkpointHook?.('manifest-written');
    createWal(this.dir, wal.written);
    fsyncDir(this.dir);
    wal.rotated();
    this.nextCheckpointAt = this.checkpointBytes;
    checkpointHook?.('log-rotated');
    const live = new Set(tables.map((t) => t.file));
    for (const f of oldFiles) {
      if (!live.has(f)) {
        try {
          fs.unlinkSync(path.join(this.dir, f));
        } catch {
          // already gone
        }
      }
    }
  }
}
