/**
 * What one commit did to the database directory, as a write-ahead log record body: a list of
 * operations on tables (by name) and views.
 *
 * - DROP name: the table is gone.
 * - CREATE name, definition (JSON: columns, column metadata, unique keys), batches: a new table, or a
 *   table replaced by another of the same name.
 * - CHANGE name, definition or "" when unchanged, runs: the table's new batch list, as runs of batches
 *   kept from its previous list (by position), kept batches extended by rows, and new batches. A
 *   small INSERT is one kept run plus its rows added to the open last batch; an UPDATE or DELETE keeps
 *   the batches it did not touch; only rewritten batches are carried whole.
 * - VIEWS json: the complete list of views (name and CREATE VIEW text).
 */
import type { ForeignKey } from '../foreign-key.js';
import type { DataType } from '../../common/types.js';
import type { Field } from '../../common/types.js';
import type { Batch, ColumnData } from '../../common/column.js';
import type { ColumnMeta } from '../memory-table.js';
import { BatchFormatError, decodeBatch, encodeBatch, encodeRows } from './column-codec.js';
import { RecordBuffer, setU32 } from './record-buffer.js';
import { storedType, type StoredType } from './stored-type.js';

const OP_DROP = 1;
const OP_CREATE = 2;
const OP_CHANGE = 3;
const OP_VIEWS = 4;
const RUN_KEEP = 0;
const RUN_NEW = 1;
const RUN_EXTEND = 2;

export interface TableDefinition {
  fields: { name: string; type: StoredType }[];
  meta: ColumnMeta[];
  uniqueKeys: number[][];
  /** The keys' constraint names (absent in logs written before keys had names). */
  uniqueNames?: string[];
  /** Those of the names that are unique indexes rather than constraints (absent: none). */
  indexKeyNames?: string[];
  /** Secondary indexes, as their CREATE INDEX statements (rebuilt on open). */
  indexes?: { name: string; sql: string }[];
  /** uniqueKeys[0] is the PRIMARY KEY (absent: no primary key, or a log written before this was kept). */
  primaryKey?: boolean;
  /** FOREIGN KEY constraints (absent: none). */
  foreignKeys?: ForeignKey[];
}

/**
 * Kept batches (by position in the previous list), a new batch, or a kept batch with rows added
 * after its own (a small commit into the table's open last batch: only the new rows are logged).
 */
/**
 * An extend run's rows are those of `rows` from `from` on (0 when absent), read from `stored` when
 * given (the open batch's buffers, as storedColumns gives them); replay gives the rows alone.
 */
export type Run = { keep: number; count: number } | { batch: Batch } | { extend: number; rows: Batch; from?: number; stored?: readonly ColumnData[] | null };

export type LogOp =
  | { op: 'drop'; name: string }
  | { op: 'create'; name: string; def: TableDefinition; batches: Batch[] }
  | { op: 'change'; name: string; def: Pick<TableDefinition, 'meta' | 'uniqueKeys' | 'uniqueNames' | 'indexKeyNames' | 'primaryKey' | 'foreignKeys' | 'indexes'> | null; runs: Run[] }
  | { op: 'views'; views: { name: string; sql: string }[] };

/**
 * Encodes a record body into a RecordBuffer (small fields copied, large column buffers referenced
 * until the write), leaving `reserve` bytes at its start for the log's record head.
 */
export class RecordBuilder {
  // Fields declared and assigned once (one builder per commit), and written to the buffer directly
  // rather than through methods of this class: a commit's path runs interpreted through a process's
  // first few thousand commits, where each call and field definition is felt.
  declare private readonly out: RecordBuffer;
  declare private readonly count: { buf: Buffer; at: number };
  declare ops: number;

  constructor(reserve = 0) {
    this.out = new RecordBuffer(reserve);
    this.count = this.out.slot32();
    this.ops = 0;
    setU32(this.count.buf, this.count.at, 0);
  }

  /** Bytes of the body (after the reserved head). */
  get bytes(): number {
    return this.out.bytes;
  }

  /** The body's pieces; the first starts with the reserved head. */
  pieces(): Uint8Array[] {
    return this.out.finish();
  }

  private batch(b: Batch, types: readonly DataType[]): void {
    encodeBatch(b, types, this.out);
  }

  private op(code: number): void {
    this.out.u8(code);
    this.ops++;
    setU32(this.count.buf, this.count.at, this.ops);
  }

  drop(name: string): void {
    this.op(OP_DROP);
    this.out.str(name);
  }

  create(name: string, def: TableDefinition, batches: readonly Batch[], types: readonly DataType[]): void {
    this.op(OP_CREATE);
    this.out.str(name);
    this.out.str(JSON.stringify(def));
    this.out.u32(batches.length);
    for (const b of batches) this.batch(b, types);
  }

  change(name: string, defJson: string | null, runs: readonly Run[], types: readonly DataType[]): void {
    this.op(OP_CHANGE);
    this.out.str(name);
    this.out.str(defJson ?? '');
    this.out.u32(runs.length);
    for (const r of runs) {
      if ('keep' in r) {
        this.out.u8(RUN_KEEP);
        this.out.u32(r.keep);
        this.out.u32(r.count);
      } else if ('extend' in r) {
        this.out.u8(RUN_EXTEND);
        this.out.u32(r.extend);
        const from = r.from ?? 0;
        encodeRows(r.rows.columns, r.stored ?? null, from, r.rows.length - from, types, this.out);
      } else {
        this.out.u8(RUN_NEW);
        this.batch(r.batch, types);
      }
    }
  }

  views(views: readonly { name: string; sql: string }[]): void {
    this.op(OP_VIEWS);
    this.out.str(JSON.stringify(views));
  }
}

export function fieldsOf(def: TableDefinition): Field[] {
  return def.fields.map((f) => ({ name: f.name, type: storedType(f.type) }));
}

/**
 * Decodes a record body. `typesOf` gives the column types of a table as of this point of the replay
 * (CHANGE carries no schema). Throws BatchFormatError on bytes that do not parse.
 */
export function decodeRecord(body: Buffer, typesOf: (name: string) => readonly DataType[] | undefined, apply: (op: LogOp) => void): void {
  let pos = 0;
  const need = (k: number): void => {
    if (pos + k > body.length) throw new BatchFormatError('record ends early');
  };
  const u8 = (): number => {
    need(1);
    return body[pos++]!;
  };
  const u32 = (): number => {
    need(4);
    const v = body.readUInt32LE(pos);
    pos += 4;
    return v;
  };
  const str = (): string => {
    const n = u32();
    need(n);
    const s = body.toString('utf8', pos, pos + n);
    pos += n;
    return s;
  };
  const json = <X>(s: string): X => {
    try {
      return JSON.parse(s) as X;
    } catch {
      throw new BatchFormatError('unreadable definition');
    }
  };
  const batch = (types: readonly DataType[]): Batch => {
    const r = decodeBatch(body, pos, types);
    pos = r.end;
    return r.batch;
  };
  const ops = u32();
  for (let i = 0; i < ops; i++) {
    const code = u8();
    switch (code) {
      case OP_DROP:
        apply({ op: 'drop', name: str() });
        break;
      case OP_CREATE: {
        const name = str();
        const def = json<TableDefinition>(str());
        const types = fieldsOf(def).map((f) => f.type);
        const n = u32();
        const batches: Batch[] = [];
        for (let k = 0; k < n; k++) batches.push(batch(types));
        apply({ op: 'create', name, def, batches });
        break;
      }
      case OP_CHANGE: {
        const name = str();
        const d = str();
        const types = typesOf(name);
        if (types === undefined) throw new BatchFormatError(`change to table "${name}", which does not exist at this point`);
        const n = u32();
        const runs: Run[] = [];
        for (let k = 0; k < n; k++) {
          const kind = u8();
          if (kind === RUN_KEEP) {
            const keep = u32();
            runs.push({ keep, count: u32() });
          } else if (kind === RUN_NEW) runs.push({ batch: batch(types) });
          else if (kind === RUN_EXTEND) {
            const extend = u32();
            runs.push({ extend, rows: batch(types) });
          }
          else throw new BatchFormatError(`unknown run kind ${kind}`);
        }
        apply({ op: 'change', name, def: d === '' ? null : json(d), runs });
        break;
      }
      case OP_VIEWS:
        apply({ op: 'views', views: json(str()) });
        break;
      default:
        throw new BatchFormatError(`unknown operation ${code}`);
    }
  }
  if (pos !== body.length) throw new BatchFormatError('trailing bytes after the last operation');
}
