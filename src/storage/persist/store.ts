/**
 * A database directory (`quire mydb/`, `Database.create({ path })`): every table in its own file,
 * plus manifest.json naming the current file of each table and the views.
 *
 * Crash safety: a table file is never modified in place. A changed table is written to a temporary
 * file, fsynced, and renamed to a new generation name; then a new manifest is written the same way
 * (temp + fsync + rename + directory fsync). The rename of the manifest is the commit point: before
 * it, the old manifest names the old files (still there); after it, the new manifest names complete
 * new files. Table files of other generations (leftovers of an interrupted write) are deleted on
 * open by the writer; files Quire did not name are never touched.
 *
 * One writer per directory: opening for writing takes a lock (proper-lockfile's `lock` directory,
 * refreshed while the process lives, plus `lock.holder` saying who holds it). A second writer gets
 * 55006 naming the holder; a lock whose holder process is gone (kill -9) is taken over. Read-only
 * opens take no lock and never write or delete anything.
 *
 * Table file (.qtb, "Quire table"): the batches' column chunks back to back (null byte map, then the
 * typed-array bytes, or JSON text for object columns), then a JSON footer describing them (with a
 * CRC-32 per chunk and the table's name), the footer's length (u32 LE), the footer's CRC-32 and the
 * magic "QTB2". Every chunk is checked on read: a flipped byte is XX001 naming the file and table,
 * never a wrong value. Files in the first format ("QTB1", no checksums) still load.
 * Typed columns load without parsing; numeric, interval and text columns go through JSON (numeric
 * and interval as their text form, int8 beyond 2^53 as a decimal string).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import lockfile from 'proper-lockfile';
import { QuireError } from '../../common/errors.js';
import { formatValue } from '../../common/format-value.js';
import { parseValue } from '../../common/parse-value.js';
import { type, type DataType, type Field, type TypeName, type Value } from '../../common/types.js';
import { makeColumn, type Batch, type Column } from '../../execution/column.js';
import { isTempTableKey, type Catalog, type ViewDef } from '../catalog.js';
import { MemoryTable, type ColumnMeta } from '../memory-table.js';

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
  fields: { name: string; type: { name: TypeName; typmod: number } }[];
  batches: { length: number; columns: ChunkDesc[] }[];
}

interface ManifestTable {
  name: string;
  file: string;
  meta: ColumnMeta[];
  uniqueKeys: number[][];
}
interface Manifest {
  version: 1;
  generation: number;
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
  const d = c.data as Value[] | Float64Array;
  for (let i = 0; i < n; i++) {
    if (c.nulls !== null && c.nulls[i] === 1) {
      out[i] = null;
      continue;
    }
    const v = d[i] as Value;
    if (v === null) out[i] = null;
    else if (typeof v === 'string') out[i] = v;
    else if (typeof v === 'bigint' || typeof v === 'number') out[i] = String(v);
    else out[i] = formatValue(v, t, { timezone: 'UTC' });
  }
  return Buffer.from(JSON.stringify(out), 'utf8');
}

function writeTableFile(fd: number, t: MemoryTable): void {
  const footer: FileFooter = { version: 2, table: t.name, fields: t.schema.map((f) => ({ name: f.name, type: { name: f.type.name, typmod: f.type.typmod } })), batches: [] };
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

function decodeObj(s: string | null, t: DataType): Value {
  if (s === null) return null;
  switch (t.name) {
    case 'text':
    case 'varchar':
    case 'bpchar':
      return s;
    case 'int8':
    case 'timestamp':
    case 'timestamptz': {
      // Written as String(number | bigint): timestamps beyond 2^53 µs widen a column as int8 does.
      const n = Number(s);
      return Number.isSafeInteger(n) || !Number.isFinite(n) ? n : BigInt(s);
    }
    default:
      return parseValue(s, t, { timezone: 'UTC' });
  }
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
  const fields: Field[] = footer.fields.map((f) => ({ name: f.name, type: type(f.type.name, f.type.typmod) }));
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
          return makeColumn(t, arr.map((s) => decodeObj(s, t)), nulls);
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
}

export class DirectoryStore {
  private manifest: Manifest;
  private saved = new Map<MemoryTable, { version: number; file: string }>();
  private savedViews = '';
  private release: (() => void) | null = null;

  private constructor(
    readonly dir: string,
    manifest: Manifest,
    readonly readOnly: boolean,
  ) {
    this.manifest = manifest;
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
      const store = new DirectoryStore(dir, DirectoryStore.readManifest(dir), readOnly);
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
      const leftover = tmp !== null ? tmp[1] === MANIFEST || /\.\d+\.qtb$/.test(tmp[1]!) : gen !== null && !live.has(f) && (ours.has(gen[1]!) || Number(gen[2]) > this.manifest.generation);
      if (!leftover) continue;
      try {
        fs.unlinkSync(path.join(this.dir, f));
      } catch {
        // gone already
      }
    }
  }

  /** Releases the writer lock (the process exiting releases it too). */
  close(): void {
    this.release?.();
    this.release = null;
  }

  /** Loads the tables into the catalog; returns the views' CREATE VIEW statements to replay. */
  load(catalog: Catalog): string[] {
    for (const mt of this.manifest.tables) {
      const { fields, batches } = readTableFile(path.join(this.dir, mt.file), mt.name);
      const t = new MemoryTable(mt.name, fields.map((f) => ({ ...f, table: mt.name })), mt.meta);
      t.uniqueKeys = mt.uniqueKeys;
      t.replaceAll(batches);
      catalog.tables.set(mt.name, t);
      this.saved.set(t, { version: t.version, file: mt.file });
    }
    this.savedViews = JSON.stringify(this.manifest.views);
    // Only once every file the manifest names has loaded: a damaged manifest must not cost a file.
    if (!this.readOnly) this.removeLeftovers();
    return this.manifest.views.map((v) => v.sql);
  }

  /** Writes the tables that changed since the last sync and a new manifest; no-op when nothing did. */
  sync(catalog: Catalog): void {
    const tables: ManifestTable[] = [];
    const current = new Map<MemoryTable, { version: number; file: string }>();
    let changed = false;
    let gen = this.manifest.generation;
    for (const [name, src] of catalog.tables) {
      if (!(src instanceof MemoryTable) || isTempTableKey(name)) continue;
      let s = this.saved.get(src);
      if (s === undefined || s.version !== src.version) {
        if (this.readOnly) throw new QuireError('25006', `cannot write to database directory "${this.dir}": it was opened read-only`);
        gen++;
        const file = `${fileStem(name)}.${gen}.qtb`;
        writeAtomic(this.dir, file, (fd) => writeTableFile(fd, src));
        s = { version: src.version, file };
        changed = true;
      }
      current.set(src, s);
      tables.push({ name, file: s.file, meta: src.meta, uniqueKeys: src.uniqueKeys });
    }
    const views = [...catalog.views.values()].map((v: ViewDef) => ({ name: v.name, sql: v.sql }));
    const viewsJson = JSON.stringify(views);
    const oldFiles = new Set(this.manifest.tables.map((t) => t.file));
    const names = JSON.stringify(tables.map((t) => [t.name, t.file, t.meta, t.uniqueKeys]));
    const oldNames = JSON.stringify(this.manifest.tables.map((t) => [t.name, t.file, t.meta, t.uniqueKeys]));
    if (!changed && viewsJson === this.savedViews && names === oldNames) return;
    if (this.readOnly) throw new QuireError('25006', `cannot write to database directory "${this.dir}": it was opened read-only`);
    const manifest: Manifest = { version: 1, generation: gen, tables, views };
    fsyncDir(this.dir);
    writeAtomic(this.dir, MANIFEST, (fd) => {
      fs.writeSync(fd, JSON.stringify(manifest, null, 1));
    });
    fsyncDir(this.dir);
    this.manifest = manifest;
    this.saved = current;
    this.savedViews = viewsJson;
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
