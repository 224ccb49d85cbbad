/**
 * read_csv(path [, header => true, delim => (sniffed), quote => '"', escape => '"', nullstr => '',
 *          columns => 'a int, b text', types => 'b text', sample_size => 20480, skip => 0,
 *          all_varchar => false, compression => 'auto', ignore_errors => false,
 *          max_line_size => 16777216, buffer_size => 262144])
 * read_csv_rejects(path [, same options]): the records read_csv with ignore_errors drops, one row
 * per record (file, line, column_name, sqlstate, message, record).
 *
 * `path` may be a glob; all matching files are read in name order with the first file's schema.
 * Without `delim`, the delimiter is sniffed from the first file (sniffDelimiter).
 * Without `columns`, column types are inferred from a sample of the first file (the first MiB, at most
 * sample_size rows; sample_size => -1 reads the whole file, or 64 MiB of a gzip file): bool (true/false/t/f), int4, int8,
 * numeric (integers beyond int8), float8, date (YYYY-MM-DD), timestamp / timestamptz (ISO, with a
 * zone suffix for timestamptz), else text. `types` overrides the inferred type of the columns it
 * names. Integers with leading zeros stay text (identifiers such as zip codes would lose them). An
 * unquoted empty field is NULL, a quoted empty one is '' in text columns and NULL in others.
 *
 * A value later in the file that does not fit the inferred type is an error naming file, line and
 * column, with a hint to widen the sample or give the type; ignore_errors drops such records (and
 * records with the wrong number of fields) instead. Files ending in .gz are decompressed while read.
 *
 * The file is read in buffer_size chunks and tokenized at the byte level (csv-scanner.ts); only the
 * columns the query uses are converted (projection pushdown).
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { isAscii, isUtf8 } from 'node:buffer';
import { filesToRead } from '../file-access.js';
import { QuireError } from '../../common/errors.js';
import { encodeNumericTypmod } from '../../common/numeric.js';
import { parseValue } from '../../common/parse-value.js';
import { daysInMonth } from '../../common/datetime-calendar.js';
import { T, type, type DataType, type Field, type TypeName, type Value } from '../../common/types.js';
import { BATCH_SIZE, ColumnBuilder, type Batch } from '../../common/column.js';
import type { ExecContext } from '../../execution/context.js';
import { queryMemory } from '../../execution/memory-pool.js';
import type { EvalContext } from '../../functions/eval-context.js';
import { PrefetchReader, fileOpenError, findInvalidUtf8, invalidUtf8Error, isGzipPath, readFileChunks, readFileHead, readFileHeadBytes, type CsvDialect } from '../csv.js';
import { CsvScanner, F_QUOTED, SCAN_FULL, type ByteDialect } from '../csv-scanner.js';
import { INDEX_BYTES } from '../special-byte-index.js';
import { PLAIN_KERNEL_BYTES } from '../csv-plain-kernel.js';
import { NUMBER_KERNEL_BYTES, csvNumberKernel, numberKernelType } from '../csv-number-kernel.js';
import { ColumnOut, convertColumn, parseDateBytes, parseFloatBytes, parseTimestampBytes, type ConvertEnv } from '../csv-columns.js';
import { limitPrintout } from '../copy-format.js';
import type { TableFunction, TableFunctionBinding } from './table-function.js';

const SAMPLE_BYTES = 1 << 20;
/** Room kept in front of each read chunk for the record the previous chunk cut (longer ones copy). */
const TAIL_RESERVE = 1 << 16;
/** PostgreSQL's limit on a table's columns; a wider CSV record is an error, not a silent cut. */
const MAX_COLUMNS = 1600;
/**
 * Records per scan while sampling: the scanner's field arrays hold MAX_COLUMNS slots per record, and
 * zeroing them for 256 records (3.7 MB) cost 9 ms of every read_csv's binding.
 */
const SAMPLE_SCAN_ROWS = 16;

type Compression = 'auto' | 'gzip' | 'none';

interface CsvOptions {
  header: boolean;
  dialect: CsvDialect;
  columns: Field[] | null;
  types: Field[] | null;
  /** Rows to sample for inference; Infinity: the whole file. */
  sampleSize: number;
  skip: number;
  allVarchar: boolean;
  compression: Compression;
  ignoreErrors: boolean;
  maxLineSize: number;
  bufferSize: number;
  /** PostgreSQL COPY's reading rules (see readCsvForCopy); read_csv's own are more forgiving. */
  copyStrict: boolean;
  /** No delimiter was given: bind sniffs it from the first file (see sniffDelimiter). */
  sniffDelimiter?: boolean;
}

function optionError(message: string): QuireError {
  return new QuireError('22023', message);
}

function stringOpt(name: string, v: Value): string {
  if (typeof v !== 'string') throw optionError(`read_csv option "${name}" must be a string`);
  return v;
}
function boolOpt(name: string, v: Value): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const l = v.toLowerCase();
    if (['true', 't', 'on', '1', 'yes'].includes(l)) return true;
    if (['false', 'f', 'off', '0', 'no'].includes(l)) return false;
  }
  throw optionError(`read_csv option "${name}" must be a boolean`);
}
function intOpt(name: string, v: Value): number {
  const n = typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 0) throw optionError(`read_csv option "${name}" must be a non-negative integer`);
  return n;
}
function charOpt(name: string, v: Value): string {
  const s = stringOpt(name, v);
  if (s.length !== 1) throw optionError(`read_csv option "${name}" must be a single character`);
  return s;
}

function parseOptions(named: ReadonlyMap<string, Value>): CsvOptions {
  let header = true;
  let delimiter: string | null = null;
  let quote = '"';
  let escape: string | null = null;
  let nullString = '';
  let columns: Field[] | null = null;
  let sampleSize = 20480;
  let skip = 0;
  let allVarchar = false;
  let types: Field[] | null = null;
  let compression: Compression = 'auto';
  let ignoreErrors = false;
  let maxLineSize = 16 << 20;
  let bufferSize = 1 << 18;
  for (const [k, v] of named) {
    if (v === null) throw optionError(`read_csv option "${k}" cannot be NULL`);
    switch (k.toLowerCase()) {
      case 'header':
        header = boolOpt(k, v);
        break;
      case 'delim':
      case 'delimiter':
      case 'sep':
        delimiter = charOpt(k, v);
        break;
      case 'quote':
        quote = charOpt(k, v);
        break;
      case 'escape':
        escape = charOpt(k, v);
        break;
      case 'nullstr':
      case 'null':
        nullString = stringOpt(k, v);
        break;
      case 'columns':
        columns = parseColumnSpec(stringOpt(k, v));
        break;
      case 'sample_size': {
        const n = typeof v === 'bigint' ? Number(v) : v;
        sampleSize = n === -1 || n === '-1' ? Infinity : Math.max(1, intOpt(k, v));
        break;
      }
      case 'types':
      case 'dtypes':
        types = parseColumnSpec(stringOpt(k, v));
        break;
      case 'compression': {
        const c = stringOpt(k, v).toLowerCase();
        if (c === 'gzip' || c === 'gz') compression = 'gzip';
        else if (c === 'none' || c === 'uncompressed') compression = 'none';
        else if (c === 'auto' || c === 'infer') compression = 'auto';
        else throw optionError(`read_csv compression "${c}" is not supported (auto, gzip, none)`);
        break;
      }
      case 'ignore_errors':
        ignoreErrors = boolOpt(k, v);
        break;
      case 'max_line_size':
        maxLineSize = Math.max(1, intOpt(k, v));
        break;
      case 'buffer_size':
        bufferSize = Math.max(1, intOpt(k, v));
        break;
      case 'skip':
        skip = intOpt(k, v);
        break;
      case 'all_varchar':
        allVarchar = boolOpt(k, v);
        break;
      default:
        throw optionError(`unrecognized read_csv option "${k}"`);
    }
  }
  const sniff = delimiter === null;
  delimiter ??= ',';
  if (delimiter === quote) throw optionError('read_csv delimiter and quote must be different');
  if (delimiter === '\n' || delimiter === '\r') throw optionError('read_csv delimiter cannot be newline or carriage return');
  for (const [name, c] of [['delimiter', delimiter], ['quote', quote], ['escape', escape ?? quote]] as const) {
    // The scanner works on bytes: a multibyte character cannot be a single separator byte.
    if (c.charCodeAt(0) > 0x7f) throw optionError(`read_csv ${name} must be a single-byte (ASCII) character`);
  }
  if (columns !== null && types !== null) throw optionError('read_csv options "columns" and "types" cannot be used together');
  return {
    header,
    dialect: { delimiter, quote, escape: escape ?? quote, nullString },
    columns,
    types,
    sampleSize,
    skip,
    allVarchar,
    compression,
    ignoreErrors,
    maxLineSize,
    bufferSize,
    copyStrict: false,
    sniffDelimiter: sniff,
  };
}

const TYPE_NAMES: Record<string, TypeName> = {
  bool: 'bool',
  boolean: 'bool',
  int2: 'int2',
  smallint: 'int2',
  int: 'int4',
  int4: 'int4',
  integer: 'int4',
  int8: 'int8',
  bigint: 'int8',
  float4: 'float4',
  real: 'float4',
  float8: 'float8',
  float: 'float8',
  double: 'float8',
  'double precision': 'float8',
  numeric: 'numeric',
  decimal: 'numeric',
  text: 'text',
  varchar: 'varchar',
  'character varying': 'varchar',
  char: 'bpchar',
  character: 'bpchar',
  bpchar: 'bpchar',
  date: 'date',
  timestamp: 'timestamp',
  'timestamp without time zone': 'timestamp',
  timestamptz: 'timestamptz',
  'timestamp with time zone': 'timestamptz',
  interval: 'interval',
};

/** `columns => 'id int, name varchar(20), price numeric(10,2)'` (SQL type names, no arrays). */
export function parseColumnSpec(spec: string): Field[] {
  const out: Field[] = [];
  // Split on commas outside parentheses and double quotes.
  const parts: string[] = [];
  let depth = 0;
  let inQ = false;
  let cur = '';
  for (const c of spec) {
    if (c === '"') inQ = !inQ;
    else if (!inQ && c === '(') depth++;
    else if (!inQ && c === ')') depth--;
    if (c === ',' && depth === 0 && !inQ) {
      parts.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur.trim() !== '') parts.push(cur);
  for (const p of parts) {
    const m = /^\s*(?:"((?:[^"]|"")*)"|([A-Za-z_][A-Za-z0-9_$]*))\s+(.+?)\s*$/s.exec(p);
    if (m === null) throw optionError(`invalid column definition in read_csv columns: "${p.trim()}"`);
    const name = m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]!.toLowerCase();
    out.push({ name, type: parseTypeName(m[3]!) });
  }
  if (out.length === 0) throw optionError('read_csv columns must list at least one column');
  return out;
}

function parseTypeName(s: string): DataType {
  const m = /^([A-Za-z ]+?)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?$/.exec(s.trim());
  const base = m === null ? undefined : TYPE_NAMES[m[1]!.toLowerCase().replace(/\s+/g, ' ')];
  if (m === null || base === undefined) throw new QuireError('42704', `type "${s.trim()}" does not exist`);
  if (m[2] === undefined) return T[base];
  const a = Number(m[2]);
  if (base === 'numeric') return type('numeric', encodeNumericTypmod(a, m[3] === undefined ? 0 : Number(m[3])));
  if (base === 'varchar' || base === 'bpchar') return type(base, a + 4);
  return T[base];
}

// ---- inference -----------------------------------------------------------------------------------

type Kind = 'null' | 'bool' | 'int4' | 'int8' | 'numeric' | 'float8' | 'date' | 'timestamp' | 'timestamptz' | 'text';

const BOOL_RE = /^(?:true|false|t|f)$/i;
const INT_RE = /^[+-]?(?:0|[1-9][0-9]*)$/;
const FLOAT_RE = /^[+-]?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const DATE_RE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;
const TS_RE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?$/;
const TSTZ_RE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?(?:Z|[+-][0-9]{2}(?::?[0-9]{2})?)$/i;

function parses(s: string, t: DataType): boolean {
  try {
    parseValue(s, t);
    return true;
  } catch {
    return false;
  }
}

/**
 * A DATE_RE / TS_RE match whose fields are plainly in range (the sampler's shortcut past the full
 * date/time parser; false only means "ask the parser").
 */
function plainIsoValid(s: string): boolean {
  const y = Number(s.slice(0, 4));
  const mo = Number(s.slice(5, 7));
  const d = Number(s.slice(8, 10));
  if (y === 0 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return false;
  if (s.length === 10) return true;
  return Number(s.slice(11, 13)) < 24 && Number(s.slice(14, 16)) < 60 && (s.length < 19 || Number(s.slice(17, 19)) < 60);
}

/**
 * classify() for the common shapes, straight from the bytes of an unquoted-or-simple field: plain
 * integers, decimals, ISO dates and timestamps. null: ask classify() with the text.
 */
function classifyBytes(sc: CsvScanner, s: number, e: number): Kind | null {
  const buf = sc.buf;
  let i = s;
  const c0 = buf[i]!;
  if (c0 === 45 || c0 === 43) i++;
  if (i >= e) return null;
  const first = buf[i]!;
  if (first - 48 >>> 0 > 9) return first === 46 && !Number.isNaN(parseFloatBytes(buf, s, e, sc)) ? 'float8' : null;
  // Leading zeros keep identifiers as text (classify's rule), and decide nothing here.
  if (first === 48 && i + 1 < e && buf[i + 1]! - 48 >>> 0 <= 9) return null;
  let j = i;
  let v = 0;
  while (j < e && buf[j]! - 48 >>> 0 <= 9) {
    v = v * 10 + (buf[j]! - 48);
    j++;
  }
  if (j === e) {
    const n = e - i;
    if (n <= 9 || (n === 10 && v <= (c0 === 45 ? 2147483648 : 2147483647))) return 'int4';
    if (n <= 18) return 'int8';
    return null;
  }
  if (!Number.isNaN(parseFloatBytes(buf, s, e, sc))) return 'float8';
  if (i !== s) return null;
  const n = e - s;
  if (n === 10 && !Number.isNaN(parseDateBytes(buf, s, e))) return 'date';
  if (n >= 19 && !Number.isNaN(parseTimestampBytes(buf, s, e))) return 'timestamp';
  return null;
}

function classify(s: string): Kind {
  if (BOOL_RE.test(s)) return 'bool';
  if (INT_RE.test(s)) {
    const n = Number(s);
    if (n >= -2147483648 && n <= 2147483647) return 'int4';
    const b = BigInt(s);
    return b >= -(2n ** 63n) && b < 2n ** 63n ? 'int8' : 'numeric';
  }
  if (FLOAT_RE.test(s)) return 'float8';
  if (DATE_RE.test(s)) return plainIsoValid(s) || parses(s, T.date) ? 'date' : 'text';
  if (TS_RE.test(s)) return plainIsoValid(s) || parses(s, T.timestamp) ? 'timestamp' : 'text';
  if (TSTZ_RE.test(s)) return parses(s, T.timestamptz) ? 'timestamptz' : 'text';
  return 'text';
}

const NUMERIC_RANK: Partial<Record<Kind, number>> = { int4: 1, int8: 2, numeric: 3, float8: 4 };

function join(a: Kind, b: Kind): Kind {
  if (a === b || b === 'null') return a;
  if (a === 'null') return b;
  const ra = NUMERIC_RANK[a];
  const rb = NUMERIC_RANK[b];
  if (ra !== undefined && rb !== undefined) return ra >= rb ? a : b;
  if ((a === 'date' && b === 'timestamp') || (a === 'timestamp' && b === 'date')) return 'timestamp';
  return 'text';
}

function kindType(k: Kind): DataType {
  return k === 'null' ? T.text : T[k];
}

interface Inferred {
  fields: Field[];
  /** Average bytes per sampled record, for the row estimate. */
  bytesPerRow: number;
}

export function byteDialect(d: CsvDialect): ByteDialect {
  const quote = d.quote.charCodeAt(0);
  const escape = d.escape.charCodeAt(0);
  return { delimiter: d.delimiter.charCodeAt(0), quote, escape: escape === quote ? -1 : escape };
}

function gzipped(file: string, o: CsvOptions): boolean {
  return o.compression === 'gzip' || (o.compression === 'auto' && isGzipPath(file));
}

/** The sample's chunks: the first MiB (or the whole file for sample_size => -1), read synchronously. */
function* sampleChunks(file: string, o: CsvOptions): Generator<{ chunk: Buffer; last: boolean }> {
  if (gzipped(file, o) || o.sampleSize !== Infinity) {
    // gzip cannot be read in pieces synchronously: its sample is a decompressed head, 64 MiB at most.
    const head = readFileHeadBytes(file, o.sampleSize === Infinity ? 64 << 20 : SAMPLE_BYTES, gzipped(file, o));
    yield { chunk: head.bytes, last: head.complete };
    return;
  }
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw fileOpenError(file, e);
  }
  try {
    let at = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(1 << 20);
      const n = readSync(fd, buf, 0, buf.length, at);
      at += n;
      yield { chunk: buf.subarray(0, n), last: n === 0 };
      if (n === 0) return;
    }
  } finally {
    closeSync(fd);
  }
}

function stripBom(chunk: Buffer): Buffer {
  return chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? chunk.subarray(3) : chunk;
}

/** Delimiters tried when read_csv is given none, in order of preference on a tie. */
const SNIFF_DELIMITERS = [',', '\t', ';', '|'];
const SNIFF_BYTES = 64 << 10;

/**
 * The delimiter of a file read_csv was given none for, as DuckDB's sniffer finds one: of comma, tab,
 * semicolon and bar, the one that splits the first records (after `skip`, quotes respected) into
 * the same number of fields, the most of them; comma when none splits them alike into more than
 * one. A TSV or a semicolon-separated export then reads as the columns it has, not as one text column.
 */
function sniffDelimiter(file: string, o: CsvOptions): string {
  const head = readFileHeadBytes(file, SNIFF_BYTES, gzipped(file, o));
  const bytes = stripBom(head.bytes);
  let best = ',';
  let bestWidth = 1;
  for (const c of SNIFF_DELIMITERS) {
    if (c === o.dialect.quote || c === o.dialect.escape) continue;
    const scanner = new CsvScanner(byteDialect({ ...o.dialect, delimiter: c }), MAX_COLUMNS, SAMPLE_SCAN_ROWS, o.maxLineSize, false);
    scanner.skipRecords = o.skip;
    let width = -1;
    let alike = true;
    try {
      scanner.push(bytes);
      // A head cut mid-record leaves that record unscanned.
      if (head.complete) scanner.finish();
      scanner.scan(SAMPLE_SCAN_ROWS);
      for (let r = 0; r < scanner.rows && alike; r++) {
        const n = scanner.counts[r]!;
        // A blank line is one empty field whatever the delimiter.
        if (n === 1 && scanner.ends[r * MAX_COLUMNS]! === scanner.starts[r * MAX_COLUMNS]!) continue;
        if (width < 0) width = n;
        else if (n !== width) alike = false;
      }
    } catch {
      // Malformed under this delimiter (e.g. a quote that does not close): not the file's.
      alike = false;
    }
    if (alike && width > bestWidth) {
      best = c;
      bestWidth = width;
    }
  }
  return best;
}

function inferSchema(file: string, o: CsvOptions): Inferred {
  const scanner = new CsvScanner(byteDialect(o.dialect), MAX_COLUMNS, SAMPLE_SCAN_ROWS, o.maxLineSize, false);
  scanner.skipRecords = o.skip;
  const nullString = o.dialect.nullString;
  const nullBytesLen = nullString === '' ? -1 : Buffer.byteLength(nullString);
  let names: string[] | null = null;
  let kinds: Kind[] = [];
  let rows = 0;
  let bytes = 0;
  let first = true;
  let complete = false;
  sampling: for (const { chunk, last } of sampleChunks(file, o)) {
    scanner.push(first ? stripBom(chunk) : chunk);
    first = false;
    // An incomplete sample ends mid-record: leave the scanner unfinished so that record is not used.
    if (last) {
      scanner.finish();
      complete = true;
    }
    for (;;) {
      let status;
      try {
        status = scanner.scan(SAMPLE_SCAN_ROWS);
      } catch (e) {
        throw withContext(e, file, scanner.lineNumber);
      }
      bytes += scanner.scannedTo - scanner.scannedFrom;
      for (let r = 0; r < scanner.rows; r++) {
        const n = scanner.counts[r]!;
        if (n > MAX_COLUMNS) throw withContext(new QuireError('54011', `CSV records can have at most ${MAX_COLUMNS} columns`), file, scanner.rowLines[r]!);
        const base = r * MAX_COLUMNS;
        if (o.header && names === null) {
          names = [];
          for (let i = 0; i < n; i++) {
            const t = scanner.fieldText(base + i);
            names.push(t === nullString && (scanner.flags[base + i]! & F_QUOTED) === 0 ? '' : t);
          }
          continue;
        }
        if (rows >= o.sampleSize) break sampling;
        // Records that ignore_errors would drop for their width do not vote on types.
        if (o.ignoreErrors && names !== null && n !== names.length) continue;
        rows++;
        for (let i = 0; i < n; i++) {
          // Text absorbs every other kind: nothing left to learn about this column.
          if (kinds[i] === 'text') continue;
          const slot = base + i;
          const fl = scanner.flags[slot]!;
          if (fl === 0 && !o.allVarchar) {
            const fs = scanner.starts[slot]!;
            const fe = scanner.ends[slot]!;
            // A field that may be the NULL string goes the text way, which knows about it.
            const k = fe > fs && fe - fs !== nullBytesLen ? classifyBytes(scanner, fs, fe) : null;
            if (k !== null) {
              kinds[i] = i < kinds.length && kinds[i] !== undefined ? join(kinds[i]!, k) : k;
              continue;
            }
          }
          const quoted = (fl & F_QUOTED) !== 0;
          const s = scanner.fieldText(slot);
          const k: Kind = !quoted && s === nullString ? 'null' : s === '' ? (quoted ? 'text' : 'null') : o.allVarchar ? 'text' : classify(s);
          kinds[i] = i < kinds.length && kinds[i] !== undefined ? join(kinds[i]!, k) : k;
        }
      }
      if (status !== SCAN_FULL) break;
    }
    if (complete) break;
  }
  // The header fixes the column count; rows that disagree fail when read, as in COPY.
  const ncol = names !== null ? names.length : kinds.length;
  if (ncol === 0) throw new QuireError('22P04', `could not determine the columns of CSV file "${file}": it is empty`);
  kinds = Array.from({ length: ncol }, (_, i) => kinds[i] ?? 'null');
  const seen = new Map<string, number>();
  const fields = kinds.map((k, i) => {
    let name = names?.[i] ?? '';
    if (name === '') name = `column${i + 1}`;
    // Duplicate header names get a suffix so every column stays addressable.
    const dup = seen.get(name) ?? 0;
    seen.set(name, dup + 1);
    if (dup > 0) name = `${name}_${dup}`;
    return { name, type: kindType(k) };
  });
  return { fields, bytesPerRow: rows > 0 ? bytes / (rows + (o.header ? 1 : 0)) : 0 };
}

function withContext(e: unknown, file: string, line: number, raw?: string, column?: string): unknown {
  if (!(e instanceof QuireError) || e.detail !== undefined) return e;
  let detail = `read_csv "${file}", line ${line}`;
  if (column !== undefined) detail += `, column ${column}`;
  if (raw !== undefined) detail += `: "${limitPrintout(raw)}"`;
  const o: { detail: string; hint?: string } = { detail };
  const hint = e.hint ?? (column !== undefined && (e.code === '22P02' || e.code === '22003' || e.code === '22008' || e.code === '22007') ? INFERRED_HINT : undefined);
  if (hint !== undefined) o.hint = hint;
  return new QuireError(e.code, e.message, o);
}

const INFERRED_HINT =
  "If the column's type was inferred from a sample, read the whole file for inference (sample_size => -1), " +
  "give the type (types => 'name text'), or skip such records (ignore_errors => true; read_csv_rejects lists them).";

// ---- execution -----------------------------------------------------------------------------------

/** One record read_csv could not read. */
interface Reject {
  line: number;
  column: string | null;
  code: string;
  message: string;
  record: string;
}

export const REJECT_FIELDS: Field[] = [
  { name: 'file', type: T.text },
  { name: 'line', type: T.int8 },
  { name: 'column_name', type: T.text },
  { name: 'sqlstate', type: T.text },
  { name: 'message', type: T.text },
  { name: 'record', type: T.text },
];

/**
 * Streams the files as batches of the columns `cols` (indexes into `fields`). With `onReject`, records
 * that do not read are handed to it and dropped, instead of failing the statement.
 */
async function* readCsvFiles(
  files: readonly string[],
  fields: readonly Field[],
  cols: readonly number[],
  o: CsvOptions,
  ctx: Pick<EvalContext, 'timezone'>,
  signal: AbortSignal | undefined,
  onReject: ((file: string, r: Reject) => void) | null,
  exec?: ExecContext,
): AsyncGenerator<Batch> {
  // The read buffers (a ring of prefetched chunks), the scanner's special-byte index and plain-record
  // kernel, the number kernel's memory (with int or float8 columns) and one output batch: reserved for the whole scan, so a buffer_size or row width memory_limit cannot hold is
  // refused (53200) before anything is read.
  const reservation = exec === undefined ? null : queryMemory(exec).pool.register('read_csv', false);
  const kernelBytes = cols.some((c) => numberKernelType(fields[c]!.type)) ? NUMBER_KERNEL_BYTES : 0;
  reservation?.grow(3 * (TAIL_RESERVE + o.bufferSize) + INDEX_BYTES + PLAIN_KERNEL_BYTES + kernelBytes + BATCH_SIZE * (cols.length * 9 + 16), 'read buffers');
  try {
    yield* readCsvBody(files, fields, cols, o, ctx, signal, onReject);
  } finally {
    reservation?.free();
  }
}

async function* readCsvBody(
  files: readonly string[],
  fields: readonly Field[],
  cols: readonly number[],
  o: CsvOptions,
  ctx: Pick<EvalContext, 'timezone'>,
  signal: AbortSignal | undefined,
  onReject: ((file: string, r: Reject) => void) | null,
): AsyncGenerator<Batch> {
  const ncol = fields.length;
  const outs = cols.map((c) => new ColumnOut(fields[c]!.type, BATCH_SIZE));
  const bad = new Uint8Array(BATCH_SIZE);
  const nullBytes = Buffer.from(o.dialect.nullString, 'utf8');
  // The number kernel reads int and float8 columns; not with a NULL string a number could equal
  // (it would read that field as the number).
  const numberColumns = cols.some((c) => numberKernelType(fields[c]!.type));
  const numbers = numberColumns && !/[0-9.]/.test(o.dialect.nullString) ? csvNumberKernel() : null;
  const dialect = byteDialect(o.dialect);
  let filled = 0;
  const flush = (): Batch => {
    const b: Batch = { columns: outs.map((x) => x.finish(filled)), length: filled };
    filled = 0;
    return b;
  };
  for (const file of files) {
    const scanner = new CsvScanner(dialect, ncol, BATCH_SIZE, o.maxLineSize);
    scanner.skipRecords = o.skip;
    let headerPending = o.header;
    let anyBad = false;
    const reject = (row: number, column: number | null, e: unknown, raw?: string): void => {
      // A dropped row (the header, or one already rejected) fails nothing more.
      if (bad[row] === 1) return;
      const line = scanner.rowLines[row]!;
      if (onReject === null || !(e instanceof QuireError)) {
        throw column === null ? withContext(e, file, line, raw) : withContext(e, file, line, raw, fields[column]!.name);
      }
      onReject(file, { line, column: column === null ? null : fields[column]!.name, code: e.code, message: e.message, record: scanner.rowText(row) });
      bad[row] = 1;
      anyBad = true;
    };
    const env: ConvertEnv = {
      scanner,
      nullBytes,
      parseCtx: { timezone: ctx.timezone },
      ascii: true,
      emptyIsNull: !o.copyStrict,
      numbers: null,
      fail: (row, column, e, text) => reject(row, column, e, text),
    };
    /** Rows whose bytes are not valid UTF-8 (or hold NUL, which PostgreSQL text cannot). */
    const checkEncoding = (): void => {
      const from = scanner.scannedFrom;
      const to = scanner.scannedTo;
      const region = scanner.buf.subarray(from, to);
      env.ascii = isAscii(region);
      if (env.ascii ? region.indexOf(0) === -1 : isUtf8(region) && region.indexOf(0) === -1) return;
      let r = 0;
      let at = from;
      for (;;) {
        const p = findInvalidUtf8(scanner.buf, at, to);
        if (p === -1) return;
        while (r < scanner.rows - 1 && scanner.rowEnds[r]! < p) r++;
        if (scanner.rows === 0 || p < scanner.rowStarts[r]! || p > scanner.rowEnds[r]!) {
          // In a skipped record or a line ending: still bad input.
          throw withContext(invalidUtf8Error(scanner.buf, p, to), file, scanner.rows > 0 ? scanner.rowLines[r]! : scanner.lineNumber);
        }
        reject(r, null, invalidUtf8Error(scanner.buf, p, to));
        at = scanner.rowEnds[r]! + 1;
      }
    };
    function* drain(): Generator<Batch> {
      for (;;) {
        let status;
        try {
          status = scanner.scan(BATCH_SIZE - filled);
        } catch (e) {
          if (onReject !== null && e instanceof QuireError && e.code === '22P04') {
            // An unterminated quote swallows the rest of the file: one rejected record, then done.
            onReject(file, { line: scanner.lineNumber, column: null, code: e.code, message: e.message, record: '' });
            return;
          }
          throw withContext(e, file, scanner.lineNumber);
        }
        const rows = scanner.rows;
        if (o.copyStrict) checkCopyRules(scanner, rows);
        if (rows > 0) {
          anyBad = false;
          bad.fill(0, 0, rows);
          checkEncoding();
          let r0 = 0;
          if (headerPending) {
            headerPending = false;
            bad[0] = 1;
            anyBad = true;
            r0 = 1;
          }
          const counts = scanner.counts;
          for (let r = r0; r < rows; r++) {
            const n = counts[r]!;
            if (n === ncol || bad[r] === 1) continue;
            const e =
              n > ncol ? new QuireError('22P04', 'extra data after last expected column') : new QuireError('22P04', `missing data for column "${fields[n]!.name}"`);
            reject(r, null, e, scanner.rowText(r));
          }
          env.numbers = numbers !== null && numbers.load(scanner, rows) ? numbers : null;
          for (let j = 0; j < cols.length; j++) convertColumn(env, cols[j]!, outs[j]!, filled, rows);
          if (anyBad) {
            let w = filled;
            for (let r = 0; r < rows; r++) {
              if (bad[r] === 1) continue;
              if (w !== filled + r) for (const out of outs) out.move(filled + r, w);
              w++;
            }
            // Slots freed by dropped rows are written again by the next scan; clear their NULL marks.
            for (const out of outs) if (out.nulls !== null) out.nulls.fill(0, w, filled + rows);
            filled = w;
          } else filled += rows;
          if (filled === BATCH_SIZE) yield flush();
        }
        if (status !== SCAN_FULL) return;
      }
    }
    let bomChecked = false;
    const fresh = (): void => {
      if (bomChecked) return;
      // A byte order mark is not data; with tiny chunks it may arrive in pieces.
      if (scanner.pendingBytes < 3) return;
      if (o.copyStrict) {
        // COPY reads a byte order mark as data.
        const t = scanner.tail();
        if (t[0] === 0xef && t[1] === 0xbb && t[2] === 0xbf) throw new CopyNeedsLineReader('a byte order mark');
      }
      scanner.dropBom();
      bomChecked = true;
    };
    if (gzipped(file, o)) {
      for await (const chunk of readFileChunks(file, signal, 'read_csv', { chunkBytes: o.bufferSize, gzip: true })) {
        scanner.push(chunk);
        fresh();
        if (bomChecked) yield* drain();
      }
    } else {
      const reader = new PrefetchReader(file, o.bufferSize, TAIL_RESERVE, signal, 'read_csv');
      try {
        for (;;) {
          const next = await reader.next(scanner.tail());
          if (next === null) break;
          scanner.setBuffer(next.buf, next.start, next.end);
          fresh();
          if (bomChecked) yield* drain();
        }
      } finally {
        await reader.close();
      }
    }
    scanner.finish();
    if (!bomChecked) {
      if (o.copyStrict && scanner.pendingBytes > 0) throw new CopyNeedsLineReader('a file shorter than three bytes');
      scanner.dropBom();
    }
    yield* drain();
  }
  if (filled > 0) yield flush();
}

function rejectBatches(files: readonly string[], fields: readonly Field[], o: CsvOptions, ctx: EvalContext, signal?: AbortSignal, exec?: ExecContext): AsyncGenerator<Batch> {
  return (async function* () {
    const pending: { file: string; r: Reject }[] = [];
    const emit = (): Batch => {
      const bs = REJECT_FIELDS.map((f) => new ColumnBuilder(f.type, pending.length));
      for (const { file, r } of pending) {
        bs[0]!.push(file);
        bs[1]!.push(r.line);
        bs[2]!.push(r.column);
        bs[3]!.push(r.code);
        bs[4]!.push(r.message);
        bs[5]!.push(r.record);
      }
      const b: Batch = { columns: bs.map((x) => x.finish()), length: pending.length };
      pending.length = 0;
      return b;
    };
    const all = fields.map((_, i) => i);
    for await (const _ of readCsvFiles(files, fields, all, o, ctx, signal, (file, r) => pending.push({ file, r }), exec)) {
      if (pending.length >= BATCH_SIZE) yield emit();
    }
    if (pending.length > 0) yield emit();
  })();
}

interface CsvSpec {
  files: string[];
  fields: Field[];
  cols: number[];
  o: CsvOptions;
  estimatedRows: number | undefined;
}

/**
 * Raised by the COPY reading of a CSV file for input whose PostgreSQL meaning the byte scanner does
 * not reproduce (an end-of-data marker, empty lines, mixed line endings, a byte order mark) and for
 * any record the fast path cannot read: COPY then reads the file with its line reader, which gives
 * PostgreSQL's results and error messages.
 */
export class CopyNeedsLineReader extends Error {
  constructor(readonly reason: string) {
    super(`COPY needs the line reader: ${reason}`);
  }
}

/** What the byte scanner accepts and COPY does not read the same way (see CopyNeedsLineReader). */
function checkCopyRules(scanner: CsvScanner, rows: number): void {
  if (scanner.emptyRecords > 0) throw new CopyNeedsLineReader('an empty line');
  if ((scanner.lfEnds > 0 ? 1 : 0) + (scanner.crEnds > 0 ? 1 : 0) + (scanner.crlfEnds > 0 ? 1 : 0) > 1) throw new CopyNeedsLineReader('mixed line endings');
  const { counts, starts, ends, flags, buf, width } = scanner;
  for (let r = 0; r < rows; r++) {
    if (counts[r] !== 1) continue;
    const slot = r * width;
    const s = starts[slot]!;
    if (ends[slot]! - s === 2 && flags[slot] === 0 && buf[s] === 0x5c && buf[s + 1] === 0x2e) throw new CopyNeedsLineReader('an end-of-data marker');
  }
}

/** The CSV options of a COPY FROM that the byte scanner can read. */
export interface CopyCsvDialect extends CsvDialect {
  readonly header: boolean;
}

/**
 * COPY … FROM a CSV file through the byte scanner and column converters: PostgreSQL's CSV rules
 * (only an unquoted NULL string is NULL, the header line is dropped unread, one line ending per
 * file); anything else throws CopyNeedsLineReader before a row is stored.
 */
export async function* readCsvForCopy(
  file: string,
  fields: readonly Field[],
  d: CopyCsvDialect,
  ctx: Pick<EvalContext, 'timezone'>,
  exec: ExecContext,
): AsyncGenerator<Batch> {
  const o: CsvOptions = {
    header: false,
    dialect: { delimiter: d.delimiter, quote: d.quote, escape: d.escape, nullString: d.nullString },
    columns: null,
    types: null,
    sampleSize: 0,
    skip: d.header ? 1 : 0,
    allVarchar: false,
    compression: 'none',
    ignoreErrors: false,
    maxLineSize: 16 << 20,
    bufferSize: 1 << 18,
    copyStrict: true,
  };
  try {
    yield* readCsvFiles([file], fields, fields.map((_, i) => i), o, ctx, exec.signal, null, exec);
  } catch (e) {
    if (e instanceof CopyNeedsLineReader) throw e;
    // Cancels, timeouts and memory refusals are the statement's answer; any other failure is a
    // record the line reader reports in PostgreSQL's words.
    if (e instanceof QuireError && (e.code === '57014' || e.code === '53200')) throw e;
    throw new CopyNeedsLineReader(e instanceof Error ? e.message : String(e));
  }
}

function makeBinding(spec: CsvSpec): TableFunctionBinding {
  const { files, fields, cols, o } = spec;
  const binding: TableFunctionBinding = {
    schema: cols.map((c) => fields[c]!),
    argTypes: [T.text],
    execute: (_args, ctx, signal, exec) => readCsvFiles(files, fields, cols, o, ctx, signal, o.ignoreErrors ? () => {} : null, exec),
    withProjection: (keep) => makeBinding({ ...spec, cols: keep.map((c) => cols[c]!) }),
    describe: () => (cols.length < fields.length ? `columns: [${cols.map((c) => fields[c]!.name).join(', ')}]` : ''),
  };
  if (spec.estimatedRows !== undefined) binding.estimatedRows = spec.estimatedRows;
  return binding;
}

function bindCsv(name: string, argTypes: readonly DataType[], constArgs: readonly (Value | undefined)[], ctx: EvalContext, namedArgs: ReadonlyMap<string, Value>): CsvSpec {
  if (argTypes.length !== 1) {
    throw new QuireError('42883', `function ${name}(${argTypes.map((t) => t.name).join(', ')}) does not exist`, {
      hint: `${name} takes one positional argument (the file path or glob) and named options.`,
    });
  }
  const p = constArgs[0];
  if (typeof p !== 'string') throw new QuireError('22023', `${name} path must be a constant string`);
  let o = parseOptions(namedArgs);
  const files = filesToRead(p, ctx.files);
  if (o.sniffDelimiter === true) o = { ...o, dialect: { ...o.dialect, delimiter: sniffDelimiter(files[0]!, o) } };
  let fields: Field[];
  let estimatedRows: number | undefined;
  if (o.columns !== null) {
    fields = o.columns;
    // Still opens the first file so a missing file fails at bind time, like the inferring path.
    readFileHead(files[0]!, 1);
  } else {
    const inf = inferSchema(files[0]!, o);
    fields = inf.fields;
    if (o.types !== null) {
      for (const t of o.types) {
        const i = fields.findIndex((f) => f.name === t.name);
        if (i < 0) throw optionError(`read_csv types names column "${t.name}", which the file does not have`);
        fields[i] = { name: fields[i]!.name, type: t.type };
      }
    }
    if (inf.bytesPerRow > 0) {
      let total = 0;
      for (const f of files) total += fileSize(f) * (gzipped(f, o) ? 4 : 1);
      estimatedRows = Math.ceil(total / inf.bytesPerRow);
    }
  }
  return { files, fields, cols: fields.map((_, i) => i), o, estimatedRows };
}

export const readCsv: TableFunction = {
  name: 'read_csv',
  bind(argTypes, constArgs, ctx, namedArgs): TableFunctionBinding {
    return makeBinding(bindCsv('read_csv', argTypes, constArgs, ctx, namedArgs));
  },
};

export const readCsvRejects: TableFunction = {
  name: 'read_csv_rejects',
  bind(argTypes, constArgs, ctx, namedArgs): TableFunctionBinding {
    const spec = bindCsv('read_csv_rejects', argTypes, constArgs, ctx, namedArgs);
    return {
      schema: REJECT_FIELDS,
      argTypes: [T.text],
      execute: (_args, ctx, signal, exec) => rejectBatches(spec.files, spec.fields, spec.o, ctx, signal, exec),
    };
  },
};

function fileSize(f: string): number {
  try {
    return statSync(f).size;
  } catch {
    return 0;
  }
}
