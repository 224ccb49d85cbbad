/**
 * A database directory (`quire mydb/`, `Database.create({ path })`): every table in its own file,
 * plus manifest.json naming the current file of each table and the views.
 *
 * Crash safety: a table file is never modified in place. A changed table is written to a temporary
 * file, fsynced, and renamed to a new generation name; then a new manifest is written the same way
 * (temp + fsync + rename + directory fsync). The rename of the manifest is the commit point: before
 * it, the old manifest names the old files (still there); after it, the new manifest names complete
 * new files. Files no manifest names (leftovers of an interrupted write) are deleted on open.
 *
 * Table file (.qtb, "Quire table"): the batches' column chunks back to back (null byte map, then the
 * typed-array bytes, or JSON text for object columns), then a JSON footer describing them, the
 * footer's length (u32 LE) and the magic "QTB1". Typed columns load without parsing; numeric,
 * interval and text columns go through JSON (numeric and interval as their text form, int8 beyond
 * 2^53 as a decimal string).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { QuireError } from '../../common/errors.js';
import { formatValue } from '../../common/format-value.js';
import { parseValue } from '../../common/parse-value.js';
import { type, type DataType, type Field, type TypeName, type Value } from '../../common/types.js';
import { makeColumn, type Batch, type Column } from '../../execution/column.js';
import type { Catalog, ViewDef } from '../catalog.js';
import { MemoryTable, type ColumnMeta } from '../memory-table.js';

const MAGIC = 'QTB1';
const MANIFEST = 'manifest.json';

interface ChunkDesc {
  /** Byte offset of the null map (present when `nulls`), then the data. */
  offset: number;
  nulls: boolean;
  kind: 'u8' | 'i32' | 'f64' | 'json';
  bytes: number;
}
interface FileFooter {
  version: 1;
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
  const footer: FileFooter = { version: 1, fields: t.schema.map((f) => ({ name: f.name, type: { name: f.type.name, typmod: f.type.typmod } })), batches: [] };
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
      if (c.nulls !== null) put(c.nulls.subarray(0, n));
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
      put(bytes);
      cols.push({ offset: start, nulls: c.nulls !== null, kind, bytes: bytes.length });
    });
    footer.batches.push({ length: b.length, columns: cols });
  }
  const fb = Buffer.from(JSON.stringify(footer), 'utf8');
  put(fb);
  const tail = Buffer.alloc(8);
  tail.writeUInt32LE(fb.length, 0);
  tail.write(MAGIC, 4, 'latin1');
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

export function readTableFile(file: string): { fields: Field[]; batches: Batch[] } {
  const buf = fs.readFileSync(file);
  if (buf.length < 8 || buf.toString('latin1', buf.length - 4) !== MAGIC) throw new QuireError('XX001', `table file "${file}" is corrupt`);
  const flen = buf.readUInt32LE(buf.length - 8);
  const footer = JSON.parse(buf.toString('utf8', buf.length - 8 - flen, buf.length - 8)) as FileFooter;
  const fields: Field[] = footer.fields.map((f) => ({ name: f.name, type: type(f.type.name, f.type.typmod) }));
  const batches: Batch[] = footer.batches.map((b) => ({
    length: b.length,
    columns: b.columns.map((c, ci): Column => {
      const t = fields[ci]!.type;
      const n = b.length;
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
          const arr = JSON.parse(raw.toString('utf8')) as (string | null)[];
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

export class DirectoryStore {
  private manifest: Manifest;
  private saved = new Map<MemoryTable, { version: number; file: string }>();
  private savedViews = '';

  private constructor(
    readonly dir: string,
    manifest: Manifest,
  ) {
    this.manifest = manifest;
  }

  static open(dir: string): DirectoryStore {
    fs.mkdirSync(dir, { recursive: true });
    let manifest: Manifest = { version: 1, generation: 0, tables: [], views: [] };
    const mp = path.join(dir, MANIFEST);
    if (fs.existsSync(mp)) {
      try {
        manifest = JSON.parse(fs.readFileSync(mp, 'utf8')) as Manifest;
      } catch (e) {
        throw new QuireError('XX001', `database directory "${dir}" has a corrupt manifest: ${(e as Error).message}`);
      }
    }
    // Leftovers of an interrupted write: temporary files and table files no manifest names.
    const live = new Set(manifest.tables.map((t) => t.file));
    for (const f of fs.readdirSync(dir)) {
      if ((f.startsWith('.') && f.includes('.tmp-')) || (f.endsWith('.qtb') && !live.has(f))) {
        try {
          fs.unlinkSync(path.join(dir, f));
        } catch {
          // another process may hold it; harmless
        }
      }
    }
    return new DirectoryStore(dir, manifest);
  }

  /** Loads the tables into the catalog; returns the views' CREATE VIEW statements to replay. */
  load(catalog: Catalog): string[] {
    for (const mt of this.manifest.tables) {
      const { fields, batches } = readTableFile(path.join(this.dir, mt.file));
      const t = new MemoryTable(mt.name, fields.map((f) => ({ ...f, table: mt.name })), mt.meta);
      t.uniqueKeys = mt.uniqueKeys;
      t.replaceAll(batches);
      catalog.tables.set(mt.name, t);
      this.saved.set(t, { version: t.version, file: mt.file });
    }
    this.savedViews = JSON.stringify(this.manifest.views);
    return this.manifest.views.map((v) => v.sql);
  }

  /** Writes the tables that changed since the last sync and a new manifest; no-op when nothing did. */
  sync(catalog: Catalog): void {
    const tables: ManifestTable[] = [];
    const current = new Map<MemoryTable, { version: number; file: string }>();
    let changed = false;
    let gen = this.manifest.generation;
    for (const [name, src] of catalog.tables) {
      if (!(src instanceof MemoryTable)) continue;
      let s = this.saved.get(src);
      if (s === undefined || s.version !== src.version) {
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
