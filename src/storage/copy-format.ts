/**
 * PostgreSQL COPY text and CSV formats, both directions, with PostgreSQL 18's semantics and messages
 * (copy.c ProcessCopyOptions, copyfromparse.c, copyto.c):
 *
 *  - text: delimiter (tab), NULL string (\N) compared against the raw field before de-escaping,
 *    backslash escapes (\b \f \n \r \t \v, octal \NNN, hex \xHH, any other char literal), `\.` alone
 *    on a line ends the data, newline style fixed by the first line.
 *  - csv: delimiter (,), quote ("), escape (= quote), NULL ('' unquoted); quoted "" is the empty
 *    string; quoted fields may span lines; FORCE_NULL / FORCE_NOT_NULL / FORCE_QUOTE.
 *
 * Errors carry PostgreSQL's error context line ("COPY t, line 3, column b: \"x\"") in `detail`.
 */
import { QuireError, positionOf } from '../common/errors.js';
import { formatValue } from '../common/format-value.js';
import { parseValue } from '../common/parse-value.js';
import type { Field, Value } from '../common/types.js';
import { BATCH_SIZE, ColumnBuilder, getValue, type Batch } from '../common/column.js';
import { LineReader, Utf8Decoder, findInvalidUtf8, invalidUtf8Error, splitCsvLine, type CsvDialect } from './csv.js';

export type CopyFormat = 'text' | 'csv' | 'binary';
/** A column list, or '*' for all columns. */
export type CopyColumnSet = readonly string[] | '*';

export interface CopyOptions {
  readonly format: CopyFormat;
  readonly delimiter: string;
  readonly null: string;
  readonly header: boolean | 'match';
  /** CSV only (empty in text mode). */
  readonly quote: string;
  readonly escape: string;
  readonly forceQuote: CopyColumnSet | null;
  readonly forceNotNull: CopyColumnSet | null;
  readonly forceNull: CopyColumnSet | null;
  readonly onError: 'stop' | 'ignore';
  readonly rejectLimit: number | null;
  readonly logVerbosity: 'default' | 'verbose' | 'silent';
  readonly freeze: boolean;
  readonly encoding: string | null;
}

export interface CopyContext {
  /** Relation name for error context lines ("COPY t, line 2: ..."). */
  readonly table?: string;
  /** Session TimeZone for timestamptz input and output. */
  readonly timezone?: string;
  readonly signal?: AbortSignal;
  /**
   * All column names of the table, when `fields` is a COPY column list: FORCE_* names that are
   * table columns outside the list then fail with PostgreSQL's 42P10 instead of 42703.
   */
  readonly tableColumns?: readonly string[];
  /** Receives PostgreSQL's NOTICE texts (ON_ERROR ignore row counts). */
  readonly notice?: (message: string) => void;
}

export function defaultCopyOptions(format: CopyFormat = 'text'): CopyOptions {
  const csv = format === 'csv';
  return {
    format,
    delimiter: csv ? ',' : '\t',
    null: csv ? '' : '\\N',
    header: false,
    quote: csv ? '"' : '',
    escape: csv ? '"' : '',
    forceQuote: null,
    forceNotNull: null,
    forceNull: null,
    onError: 'stop',
    rejectLimit: null,
    logVerbosity: 'default',
    freeze: false,
    encoding: null,
  };
}

// ---- option parsing ----------------------------------------------------------------------------

interface DefElemLike {
  defname: string;
  arg?: Record<string, unknown>;
  location?: number;
}

function asDefElem(o: unknown): DefElemLike {
  const r = o as Record<string, unknown>;
  const d = (r.DefElem ?? r) as DefElemLike;
  if (typeof d.defname !== 'string') throw new QuireError('XX000', 'COPY option is not a DefElem node');
  return d;
}

function syntaxError(message: string, d?: DefElemLike): QuireError {
  return new QuireError('42601', message, d === undefined ? {} : { position: positionOf(d.location) });
}

/** PostgreSQL's defGetString: the option argument as text. */
function defString(d: DefElemLike): string {
  const a = d.arg;
  if (a === undefined || a === null) throw syntaxError(`${d.defname} requires a parameter`);
  if ('String' in a) return ((a.String as { sval?: string }).sval ?? '') as string;
  if ('Integer' in a) return String((a.Integer as { ival?: number }).ival ?? 0);
  if ('Float' in a) return String((a.Float as { fval?: string }).fval ?? '0');
  if ('Boolean' in a) return (a.Boolean as { boolval?: boolean }).boolval === true ? 'true' : 'false';
  if ('A_Star' in a) return '*';
  throw syntaxError(`${d.defname} requires a parameter`);
}

function defInteger(d: DefElemLike): number | null {
  const a = d.arg;
  if (a !== undefined && a !== null && 'Integer' in a) return (a.Integer as { ival?: number }).ival ?? 0;
  return null;
}

function defBoolean(d: DefElemLike): boolean {
  if (d.arg === undefined || d.arg === null) return true;
  const i = defInteger(d);
  if (i !== null) {
    if (i === 0) return false;
    if (i === 1) return true;
  } else {
    const s = defString(d).toLowerCase();
    if (s === 'true' || s === 'on') return true;
    if (s === 'false' || s === 'off') return false;
  }
  throw syntaxError(`${d.defname} requires a Boolean value`);
}

function defColumns(d: DefElemLike): CopyColumnSet {
  const a = d.arg;
  if (a !== undefined && a !== null) {
    if ('A_Star' in a) return '*';
    if ('List' in a) {
      const items = ((a.List as { items?: unknown[] }).items ?? []) as Record<string, unknown>[];
      return items.map((it) => ((it.String as { sval?: string } | undefined)?.sval ?? '') as string);
    }
  }
  throw new QuireError('22023', `argument to option "${d.defname}" must be a list of column names`, { position: positionOf(d.location) });
}

const UTF8_NAMES = new Set(['utf8', 'utf-8', 'unicode', 'sql_ascii']);
const OTHER_ENCODINGS = new Set(
  'big5 euc_cn euc_jp euc_jis_2004 euc_kr euc_tw gb18030 gbk iso_8859_5 iso_8859_6 iso_8859_7 iso_8859_8 johab koi8r koi8u latin1 latin2 latin3 latin4 latin5 latin6 latin7 latin8 latin9 latin10 mule_internal sjis shift_jis_2004 uhc win866 win874 win1250 win1251 win1252 win1253 win1254 win1255 win1256 win1257 win1258'.split(
    ' ',
  ),
);

/**
 * COPY options from libpg-query's CopyStmt `options` (DefElem nodes), validated as PostgreSQL's
 * ProcessCopyOptions does (same checks, order, SQLSTATEs and messages). Both the parenthesised
 * syntax and the old `CSV HEADER DELIMITER ','` one arrive as DefElems.
 */
export function parseCopyOptions(options: readonly unknown[] | undefined, isFrom = true): CopyOptions {
  let format: CopyFormat = 'text';
  let formatSet = false;
  let delimiter: string | null = null;
  let nullString: string | null = null;
  let header: boolean | 'match' | null = null;
  let quote: string | null = null;
  let escape: string | null = null;
  let forceQuote: CopyColumnSet | null = null;
  let forceNotNull: CopyColumnSet | null = null;
  let forceNull: CopyColumnSet | null = null;
  let onError: 'stop' | 'ignore' | null = null;
  let rejectLimit: number | null = null;
  let logVerbosity: 'default' | 'verbose' | 'silent' | null = null;
  let freeze: boolean | null = null;
  let encoding: string | null = null;
  const conflict = (d: DefElemLike): never => {
    throw syntaxError('conflicting or redundant options', d);
  };
  for (const o of options ?? []) {
    const d = asDefElem(o);
    switch (d.defname) {
      case 'format': {
        const f = defString(d);
        if (formatSet) conflict(d);
        formatSet = true;
        if (f === 'text' || f === 'csv' || f === 'binary') format = f;
        else throw new QuireError('22023', `COPY format "${f}" not recognized`, { position: positionOf(d.location) });
        break;
      }
      case 'freeze':
        if (freeze !== null) conflict(d);
        freeze = defBoolean(d);
        break;
      case 'delimiter':
        if (delimiter !== null) conflict(d);
        delimiter = defString(d);
        break;
      case 'null':
        if (nullString !== null) conflict(d);
        nullString = defString(d);
        break;
      case 'default':
        throw new QuireError('0A000', 'COPY DEFAULT is not supported', { position: positionOf(d.location) });
      case 'header': {
        if (header !== null) conflict(d);
        header = headerChoice(d, isFrom);
        break;
      }
      case 'quote':
        if (quote !== null) conflict(d);
        quote = defString(d);
        break;
      case 'escape':
        if (escape !== null) conflict(d);
        escape = defString(d);
        break;
      case 'force_quote':
        if (forceQuote !== null) conflict(d);
        forceQuote = defColumns(d);
        break;
      case 'force_not_null':
        if (forceNotNull !== null) conflict(d);
        forceNotNull = defColumns(d);
        break;
      case 'force_null':
        if (forceNull !== null) conflict(d);
        forceNull = defColumns(d);
        break;
      case 'convert_selectively':
        break;
      case 'encoding': {
        if (encoding !== null) conflict(d);
        const e = defString(d);
        const lower = e.toLowerCase();
        if (UTF8_NAMES.has(lower)) encoding = 'UTF8';
        else if (OTHER_ENCODINGS.has(lower.replace(/-/g, '_'))) throw new QuireError('0A000', `COPY encoding "${e}" is not supported`, { position: positionOf(d.location) });
        else throw new QuireError('22023', 'argument to option "encoding" must be a valid encoding name', { position: positionOf(d.location) });
        break;
      }
      case 'on_error': {
        if (onError !== null) conflict(d);
        if (!isFrom) throw new QuireError('22023', 'COPY ON_ERROR cannot be used with COPY TO', { position: positionOf(d.location) });
        const v = d.arg === undefined ? 'stop' : defString(d).toLowerCase();
        if (v !== 'stop' && v !== 'ignore') throw new QuireError('22023', `COPY ON_ERROR "${defString(d)}" not recognized`, { position: positionOf(d.location) });
        onError = v;
        break;
      }
      case 'log_verbosity': {
        if (logVerbosity !== null) conflict(d);
        const v = defString(d).toLowerCase();
        if (v !== 'default' && v !== 'verbose' && v !== 'silent') throw new QuireError('22023', `COPY LOG_VERBOSITY "${defString(d)}" not recognized`, { position: positionOf(d.location) });
        logVerbosity = v;
        break;
      }
      case 'reject_limit': {
        if (rejectLimit !== null) conflict(d);
        const n = defInteger(d) ?? Number(defString(d));
        if (!Number.isInteger(n) || n <= 0) throw new QuireError('22023', `REJECT_LIMIT (${n}) must be greater than zero`);
        rejectLimit = n;
        break;
      }
      default:
        throw syntaxError(`option "${d.defname}" not recognized`, d);
    }
  }
  const binary = format === 'binary';
  const csv = format === 'csv';
  if (binary && delimiter !== null) throw syntaxError('cannot specify DELIMITER in BINARY mode');
  if (binary && nullString !== null) throw syntaxError('cannot specify NULL in BINARY mode');
  const delim = delimiter ?? (csv ? ',' : '\t');
  const nul = nullString ?? (csv ? '' : '\\N');
  if (csv) {
    quote ??= '"';
    escape ??= quote;
  }
  // "One-byte": a single character below U+0080 (UTF-8 is the only encoding).
  const oneByte = (s: string): boolean => s.length === 1 && s.charCodeAt(0) < 0x80;
  if (!oneByte(delim)) throw new QuireError('0A000', 'COPY delimiter must be a single one-byte character');
  if (delim === '\r' || delim === '\n') throw new QuireError('22023', 'COPY delimiter cannot be newline or carriage return');
  if (nul.includes('\r') || nul.includes('\n')) throw new QuireError('22023', 'COPY null representation cannot use newline or carriage return');
  if (!csv && '\\.abcdefghijklmnopqrstuvwxyz0123456789'.includes(delim)) throw new QuireError('22023', `COPY delimiter cannot be "${delim}"`);
  if (binary && header !== null && header !== false) throw new QuireError('0A000', 'cannot specify HEADER in BINARY mode');
  if (!csv && quote !== null) throw new QuireError('0A000', 'COPY QUOTE requires CSV mode');
  if (csv && !oneByte(quote!)) throw new QuireError('0A000', 'COPY quote must be a single one-byte character');
  if (csv && delim === quote) throw new QuireError('22023', 'COPY delimiter and quote must be different');
  if (!csv && escape !== null) throw new QuireError('0A000', 'COPY ESCAPE requires CSV mode');
  if (csv && !oneByte(escape!)) throw new QuireError('0A000', 'COPY escape must be a single one-byte character');
  if (!csv && forceQuote !== null) throw new QuireError('0A000', 'COPY FORCE_QUOTE requires CSV mode');
  if (forceQuote !== null && isFrom) throw new QuireError('0A000', 'COPY FORCE_QUOTE cannot be used with COPY FROM');
  if (!csv && forceNotNull !== null) throw new QuireError('0A000', 'COPY FORCE_NOT_NULL requires CSV mode');
  if (forceNotNull !== null && !isFrom) throw new QuireError('22023', 'COPY FORCE_NOT_NULL cannot be used with COPY TO');
  if (!csv && forceNull !== null) throw new QuireError('0A000', 'COPY FORCE_NULL requires CSV mode');
  if (forceNull !== null && !isFrom) throw new QuireError('22023', 'COPY FORCE_NULL cannot be used with COPY TO');
  if (nul.includes(delim)) throw new QuireError('22023', 'COPY delimiter character must not appear in the NULL specification');
  if (csv && nul.includes(quote!)) throw new QuireError('22023', 'CSV quote character must not appear in the NULL specification');
  if (freeze === true && !isFrom) throw new QuireError('22023', 'COPY FREEZE cannot be used with COPY TO');
  if (binary && onError === 'ignore') throw syntaxError('only ON_ERROR STOP is allowed in BINARY mode');
  if (rejectLimit !== null && onError !== 'ignore') throw new QuireError('22023', 'COPY REJECT_LIMIT requires ON_ERROR to be set to IGNORE');
  return {
    format,
    delimiter: delim,
    null: nul,
    header: header ?? false,
    quote: quote ?? '',
    escape: escape ?? '',
    forceQuote,
    forceNotNull,
    forceNull,
    onError: onError ?? 'stop',
    rejectLimit,
    logVerbosity: logVerbosity ?? 'default',
    freeze: freeze ?? false,
    encoding,
  };
}

function headerChoice(d: DefElemLike, isFrom: boolean): boolean | 'match' {
  if (d.arg === undefined || d.arg === null) return true;
  const i = defInteger(d);
  if (i !== null) {
    if (i === 0) return false;
    if (i === 1) return true;
  } else {
    const s = defString(d);
    const l = s.toLowerCase();
    if (l === 'true' || l === 'on') return true;
    if (l === 'false' || l === 'off') return false;
    if (l === 'match') {
      if (!isFrom) throw new QuireError('0A000', `cannot use "${s}" with HEADER in COPY TO`);
      return 'match';
    }
  }
  throw syntaxError(`${d.defname} requires a Boolean value or "match"`);
}

// ---- helpers -----------------------------------------------------------------------------------

/** PostgreSQL's CopyLimitPrintoutLength: at most 100 bytes (on a character boundary), then "...". */
export function limitPrintout(s: string): string {
  if (s.length <= 25 || Buffer.byteLength(s) <= 100) return s;
  let bytes = 0;
  let i = 0;
  for (const ch of s) {
    const b = Buffer.byteLength(ch);
    if (bytes + b > 100) break;
    bytes += b;
    i += ch.length;
  }
  return s.slice(0, i) + '...';
}

function withDetail(e: unknown, detail: string): unknown {
  if (!(e instanceof QuireError) || e.detail !== undefined) return e;
  const opts: { detail: string; hint?: string } = { detail };
  if (e.hint !== undefined) opts.hint = e.hint;
  return new QuireError(e.code, e.message, opts);
}

function columnFlags(set: CopyColumnSet | null, fields: readonly Field[], ctx: CopyContext, option: string): Uint8Array | null {
  if (set === null) return null;
  const flags = new Uint8Array(fields.length);
  if (set === '*') {
    flags.fill(1);
    return flags;
  }
  for (const name of set) {
    const i = fields.findIndex((f) => f.name === name);
    if (i === -1) {
      if (ctx.tableColumns?.includes(name)) throw new QuireError('42P10', `${option} column "${name}" not referenced by COPY`);
      throw new QuireError('42703', `column "${name}" of relation "${ctx.table ?? ''}" does not exist`);
    }
    flags[i] = 1;
  }
  return flags;
}

const OCTAL = /[0-7]/;
const HEX = /[0-9a-fA-F]/;

/**
 * De-escapes one raw text-format field (CopyReadAttributesText). Escapes that produce a NUL or a
 * high-bit byte switch to byte assembly so that e.g. \xc3\xa9 becomes "é", and the result is then
 * verified as UTF-8 like PostgreSQL's pg_verifymbstr.
 */
export function deEscapeText(raw: string): string {
  let i = raw.indexOf('\\');
  if (i === -1) return raw;
  let out = raw.slice(0, i);
  let bytes: number[] | null = null;
  const lit = (s: string): void => {
    if (bytes === null) out += s;
    else for (const b of Buffer.from(s, 'utf8')) bytes.push(b);
  };
  const byte = (b: number): void => {
    if (bytes === null) {
      if (b !== 0 && b < 0x80) {
        out += String.fromCharCode(b);
        return;
      }
      bytes = [...Buffer.from(out, 'utf8')];
    }
    bytes.push(b);
  };
  const n = raw.length;
  let runStart = i;
  while (i < n) {
    const c = raw[i]!;
    if (c !== '\\') {
      i++;
      continue;
    }
    lit(raw.slice(runStart, i));
    i++;
    if (i >= n) {
      runStart = i;
      break;
    }
    const e = raw[i++]!;
    switch (e) {
      case 'b':
        byte(8);
        break;
      case 'f':
        byte(12);
        break;
      case 'n':
        byte(10);
        break;
      case 'r':
        byte(13);
        break;
      case 't':
        byte(9);
        break;
      case 'v':
        byte(11);
        break;
      case 'x':
        if (i < n && HEX.test(raw[i]!)) {
          let v = parseInt(raw[i++]!, 16);
          if (i < n && HEX.test(raw[i]!)) v = v * 16 + parseInt(raw[i++]!, 16);
          byte(v & 0xff);
        } else lit('x');
        break;
      default:
        if (OCTAL.test(e)) {
          let v = e.charCodeAt(0) - 48;
          if (i < n && OCTAL.test(raw[i]!)) {
            v = v * 8 + raw.charCodeAt(i++) - 48;
            if (i < n && OCTAL.test(raw[i]!)) v = v * 8 + raw.charCodeAt(i++) - 48;
          }
          byte(v & 0xff);
        } else lit(e);
    }
    runStart = i;
  }
  lit(raw.slice(runStart, i));
  if (bytes === null) return out;
  const arr = Uint8Array.from(bytes as number[]);
  const bad = findInvalidUtf8(arr);
  if (bad !== -1) throw invalidUtf8Error(arr, bad);
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(arr);
}

/** Splits one text-format line (raw fields, NULL matched on the raw text, then de-escaped). */
function splitTextLine(line: string, delim: string, nullString: string, out: (string | null)[]): number {
  let n = 0;
  if (line.indexOf('\\') === -1) {
    let start = 0;
    for (;;) {
      const i = line.indexOf(delim, start);
      const raw = i === -1 ? line.slice(start) : line.slice(start, i);
      out[n++] = raw === nullString ? null : raw;
      if (i === -1) return n;
      start = i + 1;
    }
  }
  let start = 0;
  let i = 0;
  const len = line.length;
  for (;;) {
    // A backslash protects the next character (so \<delim> is data).
    while (i < len && line[i] !== delim) i += line[i] === '\\' ? 2 : 1;
    const end = Math.min(i, len);
    const raw = line.slice(start, end);
    out[n++] = raw === nullString ? null : deEscapeText(raw);
    if (i >= len) return n;
    i++;
    start = i;
  }
}

// ---- COPY FROM -----------------------------------------------------------------------------------

/**
 * Parses COPY input (text or CSV) into batches of `fields` (the COPY column list, in order), values
 * converted with each column type's input function.
 */
export async function* decodeCopy(
  input: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  fields: readonly Field[],
  opts: CopyOptions,
  ctx: CopyContext = {},
): AsyncGenerator<Batch> {
  if (opts.format === 'binary') throw new QuireError('0A000', 'COPY BINARY is not supported');
  const table = ctx.table ?? 'stdin';
  const csv = opts.format === 'csv';
  const forceNotNull = columnFlags(opts.forceNotNull, fields, ctx, 'FORCE_NOT_NULL');
  const forceNull = columnFlags(opts.forceNull, fields, ctx, 'FORCE_NULL');
  const reader = new LineReader({ mode: opts.format, quote: opts.quote, escape: opts.escape, strict: true });
  const decoder = new Utf8Decoder(true);
  const dialect: CsvDialect = { delimiter: opts.delimiter, quote: opts.quote, escape: opts.escape, nullString: opts.null };
  const ncol = fields.length;
  const parseCtx = ctx.timezone === undefined ? {} : { timezone: ctx.timezone };
  // Columns whose input function is the identity skip the call.
  const identity = fields.map((f) => f.type.name === 'text' || (f.type.typmod < 0 && (f.type.name === 'varchar' || f.type.name === 'bpchar')));
  let builders = fields.map((f) => new ColumnBuilder(f.type, BATCH_SIZE));
  let rows = 0;
  let headerPending = opts.header !== false;
  let skipped = 0;
  const raw: (string | null)[] = [];
  const quoted: number[] = [];
  const row: Value[] = new Array(ncol);

  const flush = (): Batch => {
    const b: Batch = { columns: builders.map((x) => x.finish()), length: rows };
    builders = fields.map((f) => new ColumnBuilder(f.type, BATCH_SIZE));
    rows = 0;
    return b;
  };

  function* drain(): Generator<Batch> {
    for (;;) {
      let line: string | null;
      try {
        line = reader.next();
      } catch (e) {
        throw withDetail(e, `COPY ${table}, line ${reader.lineNo}`);
      }
      if (line === null) return;
      if (headerPending && opts.header !== 'match') {
        // PostgreSQL discards a plain header line unparsed (only its line ending is checked).
        headerPending = false;
        continue;
      }
      let n: number;
      try {
        n = csv ? splitCsvLine(line, dialect, raw, quoted) : splitTextLine(line, opts.delimiter, opts.null, raw);
        if (headerPending) {
          headerPending = false;
          checkHeader(n);
          continue;
        }
        if (n > ncol) throw new QuireError('22P04', 'extra data after last expected column');
        if (n < ncol) throw new QuireError('22P04', `missing data for column "${fields[n]!.name}"`);
      } catch (e) {
        throw withDetail(e, `COPY ${table}, line ${reader.lineNo}: "${limitPrintout(line)}"`);
      }
      let ok = true;
      for (let c = 0; c < ncol; c++) {
        let s: string | null = raw[c] ?? null;
        if (csv) {
          if (s === null && forceNotNull !== null && forceNotNull[c] === 1) s = opts.null;
          else if (s !== null && forceNull !== null && forceNull[c] === 1 && s === opts.null) s = null;
        }
        if (s === null) {
          row[c] = null;
          continue;
        }
        if (identity[c]) {
          row[c] = s;
          continue;
        }
        try {
          row[c] = parseValue(s, fields[c]!.type, parseCtx);
        } catch (e) {
          if (opts.onError === 'ignore' && e instanceof QuireError) {
            skipped++;
            if (opts.logVerbosity === 'verbose') {
              ctx.notice?.(`skipping row due to data type incompatibility at line ${reader.lineNo} for column "${fields[c]!.name}": "${limitPrintout(s)}"`);
            }
            if (opts.rejectLimit !== null && skipped > opts.rejectLimit) {
              throw new QuireError('22P02', `skipped more than REJECT_LIMIT (${opts.rejectLimit}) rows due to data type incompatibility`, {
                detail: `COPY ${table}, line ${reader.lineNo}: "${limitPrintout(line)}"`,
              });
            }
            ok = false;
            break;
          }
          throw withDetail(e, `COPY ${table}, line ${reader.lineNo}, column ${fields[c]!.name}: "${limitPrintout(s)}"`);
        }
      }
      if (!ok) continue;
      for (let c = 0; c < ncol; c++) builders[c]!.push(row[c]!);
      rows++;
      if (rows === BATCH_SIZE) yield flush();
    }
  }

  function checkHeader(n: number): void {
    if (n !== ncol) throw new QuireError('22P04', `wrong number of fields in header line: got ${n}, expected ${ncol}`);
    for (let c = 0; c < ncol; c++) {
      const name = raw[c];
      if (name === null) {
        throw new QuireError('22P04', `column name mismatch in header line field ${c + 1}: got null value ("${opts.null}"), expected "${fields[c]!.name}"`);
      }
      if (name !== fields[c]!.name) {
        throw new QuireError('22P04', `column name mismatch in header line field ${c + 1}: got "${name}", expected "${fields[c]!.name}"`);
      }
    }
  }

  const decode = (chunk: string | Uint8Array, final: boolean): string => {
    try {
      return decoder.decode(chunk, final);
    } catch (e) {
      throw withDetail(e, `COPY ${table}, line ${reader.lineNo + 1}`);
    }
  };
  for await (const chunk of input) {
    if (ctx.signal?.aborted) throw new QuireError('57014', 'canceling statement due to user request');
    reader.push(decode(chunk, false));
    yield* drain();
    if (reader.done) break;
  }
  if (!reader.done) {
    reader.push(decode(new Uint8Array(0), true));
    reader.finish();
    yield* drain();
  }
  if (rows > 0) yield flush();
  if (skipped > 0 && opts.logVerbosity !== 'silent') {
    ctx.notice?.(skipped === 1 ? '1 row was skipped due to data type incompatibility' : `${skipped} rows were skipped due to data type incompatibility`);
  }
}

// ---- COPY TO -------------------------------------------------------------------------------------

function textEscaper(delim: string): (s: string) => string {
  const special = new RegExp('[\\\\\\x00-\\x1f' + (delim.charCodeAt(0) >= 0x20 ? '\\u' + delim.charCodeAt(0).toString(16).padStart(4, '0') : '') + ']');
  const all = new RegExp(special.source, 'g');
  return (s: string): string => {
    if (!special.test(s)) return s;
    return s.replace(all, (c) => {
      switch (c) {
        case '\b':
          return '\\b';
        case '\f':
          return '\\f';
        case '\n':
          return '\\n';
        case '\r':
          return '\\r';
        case '\t':
          return '\\t';
        case '\v':
          return '\\v';
        case '\\':
          return '\\\\';
        default:
          // Other control characters go out raw unless they are the delimiter.
          return c === delim ? '\\' + c : c;
      }
    });
  };
}

function csvQuoter(opts: CopyOptions, singleColumn: boolean): (s: string, force: boolean) => string {
  const q = opts.quote;
  const esc = opts.escape;
  const hex = (c: string): string => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0');
  const needs = new RegExp('[' + [opts.delimiter, q, '\n', '\r'].map(hex).join('') + ']');
  const escRe = new RegExp('[' + [...new Set([q, esc])].map(hex).join('') + ']', 'g');
  return (s: string, force: boolean): string => {
    const quote = force || s === opts.null || (singleColumn && s === '\\.') || needs.test(s);
    if (!quote) return s;
    return q + s.replace(escRe, (c) => esc + c) + q;
  };
}

/** COPY TO output: one string per batch (plus the header line first), as PostgreSQL writes it. */
export async function* encodeCopy(
  batches: AsyncIterable<Batch> | Iterable<Batch>,
  fields: readonly Field[],
  opts: CopyOptions,
  ctx: CopyContext = {},
): AsyncGenerator<string> {
  if (opts.format === 'binary') throw new QuireError('0A000', 'COPY BINARY is not supported');
  const csv = opts.format === 'csv';
  const forceQuote = columnFlags(opts.forceQuote, fields, ctx, 'FORCE_QUOTE');
  const escText = textEscaper(opts.delimiter);
  const quoteCsv = csvQuoter(opts, fields.length === 1);
  const fmtCtx = ctx.timezone === undefined ? {} : { timezone: ctx.timezone };
  const delim = opts.delimiter;
  if (opts.header === true) {
    yield fields.map((f) => (csv ? quoteCsv(f.name, false) : escText(f.name))).join(delim) + '\n';
  }
  const ncol = fields.length;
  for await (const b of batches) {
    if (ctx.signal?.aborted) throw new QuireError('57014', 'canceling statement due to user request');
    const n = b.length;
    if (n === 0) continue;
    const cols: string[][] = new Array(ncol);
    for (let c = 0; c < ncol; c++) {
      const col = b.columns[c]!;
      const t = fields[c]!.type;
      const force = forceQuote !== null && forceQuote[c] === 1;
      const out: string[] = new Array(n);
      for (let i = 0; i < n; i++) {
        const s = formatValue(getValue(col, i), t, fmtCtx);
        out[i] = s === null ? opts.null : csv ? quoteCsv(s, force) : escText(s);
      }
      cols[c] = out;
    }
    const lines: string[] = new Array(n);
    for (let i = 0; i < n; i++) {
      let line = ncol > 0 ? cols[0]![i]! : '';
      for (let c = 1; c < ncol; c++) line += delim + cols[c]![i]!;
      lines[i] = line;
    }
    yield lines.join('\n') + '\n';
  }
}

/** Convenience for tests and small inputs: the whole COPY TO output as one string. */
export async function encodeCopyToString(batches: AsyncIterable<Batch> | Iterable<Batch>, fields: readonly Field[], opts: CopyOptions, ctx: CopyContext = {}): Promise<string> {
  let s = '';
  for await (const part of encodeCopy(batches, fields, opts, ctx)) s += part;
  return s;
}
