/** COPY table/query TO and FROM files, STDIN/STDOUT text and CSV, and Parquet/JSON files. */
import { promises as fsp } from 'node:fs';
import type { Node, SelectStmt } from '@pgsql/types';
import { QuireError, positionOf } from '../common/errors.js';
import { T, type Field, type Value, typeDisplayName } from '../common/types.js';
import { ColumnBuilder, getValue, type Batch } from '../common/column.js';
import { checkCancel, yieldIfDue } from '../execution/context.js';
import type { CopyContext, CopyOptions } from '../storage/copy-format.js';
import { nodeBody, strings, type AnyNode } from '../sql/ast.js';
import { parseStatements } from '../sql/parse.js';
import { readFileChunks } from '../storage/csv.js';
import type { QueryResult } from './database.js';
import { relName, result } from './statement-support.js';
import { materialize } from './ddl-statements.js';
import type { UtilityHost } from './utility.js';
import { checkNotNull, insert, uniqueCheck } from './dml-statements.js';
import { defaultsFiller } from './planned-dml.js';
import { holdPendingKeys, pendingKeyHolder } from './pending-keys.js';
import { checkKeysCommittedSince, keyCheckRows } from './snapshot-keys.js';
import { waitFor } from './row-locks.js';

const pos = positionOf;

export async function copy(host: UtilityHost, b: AnyNode, params: readonly unknown[]): Promise<QueryResult> {
  // The codecs load on first use: most sessions never run COPY.
  const { decodeCopy, encodeCopy, parseCopyOptions } = await import('../storage/copy-format.js');
  if (b.is_program) throw new QuireError('42501', 'COPY to or from an external program is not allowed');
  const fileFormat = exportFormat(b);
  if (fileFormat !== null) return copyToFileFormat(host, b, params, fileFormat);
  const opts = parseCopyOptions((b.options as unknown[] | undefined) ?? [], b.is_from === true);
  const notices: string[] = [];
  const rel = b.relation as AnyNode | undefined;
  const relTable = rel ? host.catalog.getTable(relName(rel)) : undefined;
  const ctx = {
    timezone: host.session.timezone,
    table: rel ? relName(rel) : undefined,
    tableColumns: relTable?.schema.map((f) => f.name),
    notice: (m: string) => notices.push(m),
  };
  if (b.is_from) {
    const rv = b.relation as AnyNode;
    const t = host.catalog.getMemoryTableIn(rv.schemaname as string | undefined, relName(rv), pos(rv.location as number));
    const cols = b.attlist ? strings(b.attlist as Node[]).map((n) => {
      const i = t.schema.findIndex((f) => f.name === n);
      if (i < 0) throw new QuireError('42703', `column "${n}" of relation "${t.name}" does not exist`);
      return i;
    }) : t.schema.map((_, i) => i);
    const filename = b.filename as string | undefined;
    if (filename === undefined) throw new QuireError('0A000', 'COPY FROM STDIN is only available through a client connection');
    const fields = cols.map((c) => t.schema[c]!);
    let n = 0;
    const batches: Batch[] = [];
    // COPY FROM STDIN over the wire protocol arrives spooled to a server-made file (pgwire/connection.ts):
    // the client never named it, so it is not subject to the client's file confinement.
    const source = b.spooledStdin === true ? filename : host.session.access.fileToRead(filename);
    const fill = defaultsFiller(host, t, cols, params);
    for await (const batch of readCopyFile(host, source, fields, opts, ctx, decodeCopy)) {
      n += batch.length;
      if (cols.length === t.schema.length && cols.every((c, i) => c === i)) batches.push(batch);
      else {
        // Columns outside the list take their defaults, row by row (a serial draws one value a row).
        const builders = t.schema.map((f) => new ColumnBuilder(f.type, batch.length));
        const from = t.schema.map((_, c) => cols.indexOf(c));
        const row: Value[] = new Array<Value>(t.schema.length).fill(null);
        for (let i = 0; i < batch.length; i++) {
          if (fill !== null) await fill(row);
          for (let c = 0; c < from.length; c++) {
            const k = from[c]!;
            if (k < 0) builders[c]!.push(row[c]!);
            else builders[c]!.pushFrom(batch.columns[k]!, i);
          }
        }
        batches.push({ columns: builders.map((x) => x.finish()), length: batch.length });
      }
    }
    const rows: Value[][] = [];
    if (t.meta.some((m) => m.notNull) || t.uniqueKeys.length) {
      for (const bt of batches) for (let i = 0; i < bt.length; i++) rows.push(t.schema.map((_, c) => getValue(bt.columns[c]!, i)));
      checkNotNull(t, rows);
      if (t.uniqueKeys.length) {
        // A key another open transaction wrote: wait for it to end, then check on a fresh snapshot.
        for (let holder = pendingKeyHolder(t, { rows }, host.rowLocks); holder !== null; holder = pendingKeyHolder(t, { rows }, host.rowLocks)) {
          const wctx = host.execContext([], [], false);
          await waitFor(host.rowLocks!, holder, () => checkCancel(wctx));
          host.beginStatement();
        }
        uniqueCheck(t, rows, keyCheckRows(host, t));
        if (host.keyHolder !== null) {
          checkKeysCommittedSince(host, t, { rows }, false);
          holdPendingKeys(t, { rows }, host.keyHolder);
        }
      }
    }
    for (const bt of batches) t.appendBatch(bt);
    return result('COPY', `COPY ${n}`, { rowCount: n, notices });
  }
  // COPY … TO
  const { fields, batches } = await copySource(host, b, params);
  let text = '';
  const chunks: string[] = [];
  async function* src(): AsyncGenerator<Batch> {
    for (const x of batches) yield x;
  }
  for await (const s of encodeCopy(src(), fields, opts, ctx)) chunks.push(s);
  text = chunks.join('');
  const n = batches.reduce((a, x) => a + x.length, 0);
  const filename = b.filename as string | undefined;
  if (filename !== undefined) {
    await fsp.writeFile(host.session.access.fileToWrite(filename), text);
    return result('COPY', `COPY ${n}`, { rowCount: n });
  }
  return result('COPY', `COPY ${n}`, { rowCount: n, copyOut: text });
}

/** What COPY … TO writes: its query's result, or the table's (listed) columns as of now. */
async function copySource(host: UtilityHost, b: AnyNode, params: readonly unknown[]): Promise<{ fields: Field[]; batches: Batch[] }> {
  if (b.query) return materialize(host, nodeBody<SelectStmt>(b.query as Node), params);
  const rv = b.relation as AnyNode;
  const t = host.catalog.getMemoryTableIn(rv.schemaname as string | undefined, relName(rv), pos(rv.location as number));
  const idx = b.attlist
    ? strings(b.attlist as Node[]).map((n) => {
        const i = t.schema.findIndex((f) => f.name === n);
        if (i < 0) throw new QuireError('42703', `column "${n}" of relation "${t.name}" does not exist`);
        return i;
      })
    : t.schema.map((_, i) => i);
  return { fields: idx.map((i) => t.schema[i]!), batches: t.snapshot().map((bt) => ({ columns: idx.map((i) => bt.columns[i]!), length: bt.length })) };
}

/**
 * The batches of a COPY FROM file. CSV with the usual options goes through read_csv's byte scanner
 * (several times faster than the line reader); input it does not read exactly as PostgreSQL would,
 * or that fails, is read again by the line reader, whose results and errors are PostgreSQL's.
 */
async function* readCopyFile(
  host: UtilityHost,
  file: string,
  fields: readonly Field[],
  opts: CopyOptions,
  ctx: CopyContext,
  decodeCopy: typeof import('../storage/copy-format.js').decodeCopy,
): AsyncGenerator<Batch> {
  if (byteScannerReads(opts)) {
    const { readCsvForCopy, CopyNeedsLineReader } = await import('../storage/table-functions/read-csv.js');
    const exec = host.execContext([], [], false);
    const dialect = { delimiter: opts.delimiter, quote: opts.quote, escape: opts.escape, nullString: opts.null, header: opts.header === true };
    const batches: Batch[] = [];
    try {
      for await (const b of readCsvForCopy(file, fields, dialect, { timezone: host.session.timezone }, exec)) {
        batches.push(b);
        await yieldIfDue(exec);
      }
    } catch (e) {
      if (!(e instanceof CopyNeedsLineReader)) throw e;
      batches.length = 0;
    }
    if (batches.length > 0) {
      yield* batches;
      return;
    }
  }
  yield* decodeCopy(readFileChunks(file, undefined, 'COPY'), fields, opts, ctx);
}

/** Options under which the byte scanner reads CSV as COPY does (single-byte ASCII dialect, UTF-8, no per-column rules). */
function byteScannerReads(opts: CopyOptions): boolean {
  const ascii = (c: string): boolean => c.length === 1 && c.charCodeAt(0) < 0x80;
  return (
    opts.format === 'csv' &&
    opts.header !== 'match' &&
    opts.forceNotNull === null &&
    opts.forceNull === null &&
    opts.onError === 'stop' &&
    (opts.encoding === null || /^utf-?8$/i.test(opts.encoding)) &&
    ascii(opts.delimiter) &&
    ascii(opts.quote) &&
    ascii(opts.escape)
  );
}

/** COPY … (FORMAT parquet | json): formats PostgreSQL's COPY lacks, handled outside copy-format.ts. */
function exportFormat(b: AnyNode): 'parquet' | 'json' | null {
  for (const o of (b.options as Node[] | undefined) ?? []) {
    const d = nodeBody<AnyNode>(o);
    if (d.defname !== 'format') continue;
    const arg = d.arg as AnyNode | undefined;
    const v = String((arg?.String as AnyNode | undefined)?.sval ?? '').toLowerCase();
    if (v === 'parquet' || v === 'json') return v;
    if (v === 'ndjson') return 'json';
  }
  return null;
}

async function copyToFileFormat(host: UtilityHost, b: AnyNode, params: readonly unknown[], format: 'parquet' | 'json'): Promise<QueryResult> {
  for (const o of (b.options as Node[] | undefined) ?? []) {
    const name = nodeBody<AnyNode>(o).defname as string;
    if (name !== 'format') throw new QuireError('22023', `COPY option "${name}" is not available with FORMAT ${format}`);
  }
  if (b.is_from) return copyFromFileFormat(host, b, format);
  const { writeParquetFile, writeJsonFile, encodeJsonLines } = await import('../storage/persist/export.js');
  const { fields, batches } = await copySource(host, b, params);
  const n = batches.reduce((a, x) => a + x.length, 0);
  const filename = b.filename as string | undefined;
  const tz = host.session.timezone;
  if (filename === undefined) {
    if (format === 'parquet') throw new QuireError('0A000', 'COPY TO STDOUT with FORMAT parquet is not supported', { hint: "Give a file name: COPY … TO 'out.parquet' (FORMAT parquet)." });
    const chunks: string[] = [];
    for await (const c of encodeJsonLines(fields, batches, tz)) chunks.push(c);
    return result('COPY', `COPY ${n}`, { rowCount: n, copyOut: chunks.join('') });
  }
  const target = host.session.access.fileToWrite(filename);
  if (format === 'parquet') await writeParquetFile(target, fields, batches, tz);
  else await writeJsonFile(target, fields, batches, tz);
  return result('COPY', `COPY ${n}`, { rowCount: n });
}

/**
 * COPY t [(cols)] FROM 'file' (FORMAT parquet | json): an INSERT … SELECT from read_parquet/read_json,
 * so the file is opened under the same grant, with the same streaming reader and the same checks
 * (types, NOT NULL, keys) as that INSERT. Columns are matched by name: a Parquet file must have every
 * target column; a JSON key that never appears loads as NULL, as an absent key does. Text (JSON has no
 * dates or decimals) is converted to the column's type as COPY's text format would.
 */
async function copyFromFileFormat(host: UtilityHost, b: AnyNode, format: 'parquet' | 'json'): Promise<QueryResult> {
  const rv = b.relation as AnyNode;
  const t = host.catalog.getMemoryTableIn(rv.schemaname as string | undefined, relName(rv), pos(rv.location as number));
  const filename = b.filename as string | undefined;
  if (filename === undefined || b.spooledStdin === true) {
    throw new QuireError('0A000', `COPY FROM STDIN with FORMAT ${format} is not supported`, { hint: `Name a file: COPY ${t.name} FROM 'data.${format === 'json' ? 'ndjson' : 'parquet'}' (FORMAT ${format}).` });
  }
  const targets = b.attlist
    ? strings(b.attlist as Node[]).map((n) => {
        const i = t.schema.findIndex((f) => f.name === n);
        if (i < 0) throw new QuireError('42703', `column "${n}" of relation "${t.name}" does not exist`);
        return i;
      })
    : t.schema.map((_, i) => i);
  const { readJson, readParquet } = await import('../storage/table-functions/index.js');
  const reader = format === 'parquet' ? readParquet : readJson;
  const lit = `'${filename.replace(/'/g, "''")}'`;
  const ident = (n: string): string => `"${n.replace(/"/g, '""')}"`;
  // Binding reads the file's schema (and checks the grant) before any row is read.
  const fileSchema = reader.bind([T.text], [filename], host.execContext([], [], false).eval, new Map()).schema;
  const items = targets.map((c) => {
    const f = t.schema[c]!;
    const src = fileSchema.find((x) => x.name === f.name);
    if (src === undefined) {
      if (format === 'json') return 'NULL';
      throw new QuireError('42703', `column "${f.name}" of relation "${t.name}" is not in Parquet file "${filename}"`, {
        hint: `The file has: ${fileSchema.map((x) => x.name).join(', ')}. Name the columns to load: COPY ${t.name} (…) FROM ….`,
      });
    }
    const textual = src.type.name === 'text' || src.type.name === 'varchar';
    const toText = f.type.name === 'text' || f.type.name === 'varchar' || f.type.name === 'bpchar';
    return textual && !toText ? `CAST(${ident(f.name)} AS ${typeDisplayName(f.type)})` : ident(f.name);
  });
  const [parsed] = parseStatements(`SELECT ${items.join(', ')} FROM ${reader.name}(${lit})`);
  const insertStmt: AnyNode = {
    relation: rv,
    cols: targets.map((c) => ({ ResTarget: { name: t.schema[c]!.name, location: -1 } })),
    selectStmt: parsed!.stmt,
  };
  const r = await insert(host, insertStmt, []);
  const n = r.rowCount ?? 0;
  return result('COPY', `COPY ${n}`, { rowCount: n });
}
