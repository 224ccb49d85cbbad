/**
 * read_csv(path [, header => true, delim => ',', quote => '"', escape => '"', nullstr => '',
 *          columns => 'a int, b text', sample_size => 20480, skip => 0, all_varchar => false])
 *
 * `path` may be a glob; all matching files are read in name order with the first file's schema.
 * Without `columns`, column types are inferred from a sample of the first file (the first MiB, at most
 * sample_size rows): bool (true/false/t/f), int4, int8, numeric (integers beyond int8), float8,
 * date (YYYY-MM-DD), timestamp / timestamptz (ISO, with a zone suffix for timestamptz), else text.
 * Integers with leading zeros stay text (identifiers such as zip codes would lose them). An unquoted
 * empty field is NULL, a quoted empty one is '' in text columns and NULL in others.
 */
import { statSync } from 'node:fs';
import { filesToRead } from '../file-access.js';
import { QuireError } from '../../common/errors.js';
import { encodeNumericTypmod } from '../../common/numeric.js';
import { parseValue } from '../../common/parse-value.js';
import { T, type, type DataType, type Field, type TypeName, type Value } from '../../common/types.js';
import { BATCH_SIZE, ColumnBuilder, type Batch } from '../../execution/column.js';
import type { EvalContext } from '../../functions/eval-context.js';
import { LineReader, Utf8Decoder, readFileChunks, readFileHead, splitCsvLine, type CsvDialect } from '../csv.js';
import { limitPrintout } from '../copy-format.js';
import type { TableFunction, TableFunctionBinding } from './table-function.js';

const SAMPLE_BYTES = 1 << 20;

interface CsvOptions {
  header: boolean;
  dialect: CsvDialect;
  columns: Field[] | null;
  sampleSize: number;
  skip: number;
  allVarchar: boolean;
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
  let delimiter = ',';
  let quote = '"';
  let escape: string | null = null;
  let nullString = '';
  let columns: Field[] | null = null;
  let sampleSize = 20480;
  let skip = 0;
  let allVarchar = false;
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
      case 'sample_size':
        sampleSize = Math.max(1, intOpt(k, v));
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
  if (delimiter === quote) throw optionError('read_csv delimiter and quote must be different');
  if (delimiter === '\n' || delimiter === '\r') throw optionError('read_csv delimiter cannot be newline or carriage return');
  return { header, dialect: { delimiter, quote, escape: escape ?? quote, nullString }, columns, sampleSize, skip, allVarchar };
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

function classify(s: string): Kind {
  if (BOOL_RE.test(s)) return 'bool';
  if (INT_RE.test(s)) {
    const n = Number(s);
    if (n >= -2147483648 && n <= 2147483647) return 'int4';
    const b = BigInt(s);
    return b >= -(2n ** 63n) && b < 2n ** 63n ? 'int8' : 'numeric';
  }
  if (FLOAT_RE.test(s)) return 'float8';
  if (DATE_RE.test(s)) return parses(s, T.date) ? 'date' : 'text';
  if (TS_RE.test(s)) return parses(s, T.timestamp) ? 'timestamp' : 'text';
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

function inferSchema(file: string, o: CsvOptions): Inferred {
  const head = readFileHead(file, SAMPLE_BYTES);
  const text = head.text.charCodeAt(0) === 0xfeff ? head.text.slice(1) : head.text;
  const reader = new LineReader({ mode: 'csv', quote: o.dialect.quote, escape: o.dialect.escape, strict: false });
  reader.push(text);
  // An incomplete sample ends mid-record: leave the reader unfinished so that record is not used.
  if (head.complete) reader.finish();
  const out: (string | null)[] = [];
  const quoted: number[] = [];
  let names: string[] | null = null;
  let kinds: Kind[] = [];
  let rows = 0;
  let skipped = 0;
  for (;;) {
    let line: string | null;
    try {
      line = reader.next();
    } catch {
      break;
    }
    if (line === null) break;
    if (skipped < o.skip) {
      skipped++;
      continue;
    }
    if (line === '') continue;
    let n: number;
    try {
      n = splitCsvLine(line, o.dialect, out, quoted);
    } catch (e) {
      if (!head.complete) break;
      throw withContext(e, file, reader.lineNo, line);
    }
    if (o.header && names === null) {
      names = out.slice(0, n).map((s) => s ?? '');
      continue;
    }
    if (rows >= o.sampleSize) break;
    rows++;
    for (let i = 0; i < n; i++) {
      const s = out[i];
      const k: Kind = s === null ? 'null' : s === '' ? (quoted[i] === 1 ? 'text' : 'null') : o.allVarchar ? 'text' : classify(s);
      kinds[i] = i < kinds.length && kinds[i] !== undefined ? join(kinds[i]!, k) : k;
    }
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
  return { fields, bytesPerRow: rows > 0 ? Buffer.byteLength(text) / (rows + (o.header ? 1 : 0)) : 0 };
}

function withContext(e: unknown, file: string, line: number, raw?: string, column?: string): unknown {
  if (!(e instanceof QuireError) || e.detail !== undefined) return e;
  let detail = `read_csv "${file}", line ${line}`;
  if (column !== undefined) detail += `, column ${column}`;
  if (raw !== undefined) detail += `: "${limitPrintout(raw)}"`;
  const o: { detail: string; hint?: string } = { detail };
  if (e.hint !== undefined) o.hint = e.hint;
  return new QuireError(e.code, e.message, o);
}

// ---- execution -----------------------------------------------------------------------------------

async function* readCsvFiles(files: readonly string[], fields: readonly Field[], o: CsvOptions, ctx: EvalContext, signal?: AbortSignal): AsyncGenerator<Batch> {
  const ncol = fields.length;
  const parseCtx = { timezone: ctx.timezone };
  const isText = fields.map((f) => f.type.name === 'text' || (f.type.typmod < 0 && (f.type.name === 'varchar' || f.type.name === 'bpchar')));
  const out: (string | null)[] = [];
  const quoted: number[] = [];
  let builders = fields.map((f) => new ColumnBuilder(f.type, BATCH_SIZE));
  let rows = 0;
  const flush = (): Batch => {
    const b: Batch = { columns: builders.map((x) => x.finish()), length: rows };
    builders = fields.map((f) => new ColumnBuilder(f.type, BATCH_SIZE));
    rows = 0;
    return b;
  };
  for (const file of files) {
    const reader = new LineReader({ mode: 'csv', quote: o.dialect.quote, escape: o.dialect.escape, strict: false });
    const decoder = new Utf8Decoder(false);
    let headerPending = o.header;
    let toSkip = o.skip;
    function* drain(): Generator<Batch> {
      for (;;) {
        let line: string | null;
        try {
          line = reader.next();
        } catch (e) {
          throw withContext(e, file, reader.lineNo);
        }
        if (line === null) return;
        if (toSkip > 0) {
          toSkip--;
          continue;
        }
        if (line === '') continue;
        let n: number;
        try {
          n = splitCsvLine(line, o.dialect, out, quoted);
          if (headerPending) {
            headerPending = false;
            continue;
          }
          if (n > ncol) throw new QuireError('22P04', 'extra data after last expected column');
          if (n < ncol) throw new QuireError('22P04', `missing data for column "${fields[n]!.name}"`);
        } catch (e) {
          throw withContext(e, file, reader.lineNo, line);
        }
        for (let c = 0; c < ncol; c++) {
          const s = out[c]!;
          const b = builders[c]!;
          if (s === null) b.push(null);
          else if (isText[c]) b.push(s);
          else if (s === '') b.push(null);
          else {
            try {
              b.push(parseValue(s, fields[c]!.type, parseCtx));
            } catch (e) {
              throw withContext(e, file, reader.lineNo, s, fields[c]!.name);
            }
          }
        }
        rows++;
        if (rows === BATCH_SIZE) yield flush();
      }
    }
    for await (const chunk of readFileChunks(file, signal, 'read_csv')) {
      reader.push(decoder.decode(chunk));
      yield* drain();
    }
    reader.push(decoder.decode(new Uint8Array(0), true));
    reader.finish();
    yield* drain();
  }
  if (rows > 0) yield flush();
}

export const readCsv: TableFunction = {
  name: 'read_csv',
  bind(argTypes: readonly DataType[], constArgs: readonly (Value | undefined)[], ctx: EvalContext, namedArgs: ReadonlyMap<string, Value>): TableFunctionBinding {
    if (argTypes.length !== 1) {
      throw new QuireError('42883', `function read_csv(${argTypes.map((t) => t.name).join(', ')}) does not exist`, {
        hint: 'read_csv takes one positional argument (the file path or glob) and named options.',
      });
    }
    const p = constArgs[0];
    if (typeof p !== 'string') throw new QuireError('22023', 'read_csv path must be a constant string');
    const o = parseOptions(namedArgs);
    const files = filesToRead(p, ctx.files);
    let fields: Field[];
    let estimatedRows: number | undefined;
    if (o.columns !== null) {
      fields = o.columns;
      // Still opens the first file so a missing file fails at bind time, like the inferring path.
      readFileHead(files[0]!, 1);
    } else {
      const inf = inferSchema(files[0]!, o);
      fields = inf.fields;
      if (inf.bytesPerRow > 0) {
        let total = 0;
        for (const f of files) total += fileSize(f);
        estimatedRows = Math.ceil(total / inf.bytesPerRow);
      }
    }
    const binding: TableFunctionBinding = {
      schema: fields,
      argTypes: [T.text],
      execute: (_args, ctx, signal) => readCsvFiles(files, fields, o, ctx, signal),
    };
    if (estimatedRows !== undefined) binding.estimatedRows = estimatedRows;
    return binding;
  },
};

function fileSize(f: string): number {
  try {
    return statSync(f).size;
  } catch {
    return 0;
  }
}
