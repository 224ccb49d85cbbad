/**
 * PostgreSQL's own grammar (libpg-query, compiled to WASM). Syntax errors become 42601 with the
 * character position PostgreSQL would report.
 */
import { loadModule, parseSync } from 'libpg-query';
import type { Node } from '@pgsql/types';
import { QuireError } from '../common/errors.js';
import { learnInsertValues, parseInsertValues } from './parse-insert-values.js';

let loaded: Promise<void> | null = null;

/** The WASM module loads once per process; every Database awaits it in create(). */
export function ensureParser(): Promise<void> {
  if (loaded === null) loaded = loadModule().then(() => undefined);
  return loaded;
}

export interface ParsedStatement {
  stmt: Node;
  /** Character offsets of the statement within the whole text. */
  start: number;
  end: number;
  text: string;
}

/** libpg-query reports byte offsets; positions in errors are characters. */
export function byteToCharOffset(text: string, byteOffset: number): number {
  if (byteOffset <= 0) return 0;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    if (bytes >= byteOffset) return i;
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return text.length;
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * The grammar reports no SQLSTATE, only a message. Almost every grammar error is a syntax error; the
 * frame checks gram.y makes itself are windowing errors in PostgreSQL.
 */
function grammarErrorCode(message: string): string {
  return /^frame (start|end|starting) /.test(message) ? '42P20' : '42601';
}

/** The table function that reads a file, by its extension (DuckDB's `FROM 'file.csv'`). */
function readerFor(path: string): string | null {
  const p = path.toLowerCase().replace(/\.(gz|gzip)$/, '');
  if (/\.(csv|tsv|txt)$/.test(p)) return 'read_csv';
  if (/\.(json|jsonl|ndjson)$/.test(p)) return 'read_json';
  if (/\.parquet$/.test(p)) return 'read_parquet';
  if (/\.(arrow|feather|ipc)$/.test(p)) return 'read_arrow';
  return null;
}

/**
 * DuckDB's habit of naming a file where a table goes (`SELECT * FROM 'events.csv'`) is a syntax error
 * in PostgreSQL's grammar. Only when the text does not parse, each quoted file name after FROM or JOIN
 * becomes the matching read_* call; the rewrite is used if it parses.
 */
function withFileReaders(text: string): string | null {
  let changed = false;
  const out = text.replace(/\b(from|join)(\s+)'((?:[^']|'')*)'/gi, (m, kw: string, ws: string, lit: string) => {
    const f = readerFor(lit.replace(/''/g, "'"));
    if (f === null) return m;
    changed = true;
    return `${kw}${ws}${f}('${lit}')`;
  });
  return changed ? out : null;
}

/**
 * Parse trees of recently seen statement texts, kept as JSON. Servers see the same texts over and over
 * (a monitor's `select 1`, an application's queries, a pager's next page); the grammar costs 10–20 µs
 * a statement, reading a tree back from its JSON a tenth of that for short statements. Each caller gets
 * a fresh tree, so code that rewrites a tree in place cannot change what the next statement gets.
 */
const PARSE_CACHE_ENTRIES = 512;
const PARSE_CACHE_MAX_TEXT = 8192;
/** Trees kept, in JSON characters at most (about 16 MB): long statements have big trees. */
const PARSE_CACHE_MAX_CHARS = 8 << 20;
let parseCacheChars = 0;
interface CachedParse {
  readonly json: string[];
  /** start, end and text of each statement (the text may be a rewrite of the input, see withFileReaders). */
  readonly spans: readonly (readonly [number, number, string])[];
}
/** Texts seen once map to null: a tree is kept from the second sighting, so texts that never repeat
 * (literals spliced in) pay only for a map entry, not for serialising their tree. */
const parseCache = new Map<string, CachedParse | null>();

export function parseStatements(text: string): ParsedStatement[] {
  const cached = parseCache.get(text);
  if (cached !== undefined && cached !== null) {
    // Most recently used last: the first key is the one to evict.
    parseCache.delete(text);
    parseCache.set(text, cached);
    return cached.json.map((j, i) => {
      const [start, end, stmtText] = cached.spans[i]!;
      return { stmt: JSON.parse(j) as Node, start, end, text: stmtText };
    });
  }
  const insert = parseInsertValues(text);
  if (insert !== null) return [{ stmt: insert, start: 0, end: text.length, text }];
  const out = parseWithGrammar(text);
  learnInsertValues(text, out);
  if (text.length <= PARSE_CACHE_MAX_TEXT) {
    // A text seen once is counted already; it is counted again below with its tree.
    if (parseCache.delete(text)) parseCacheChars -= text.length;
    const entry = cached === undefined ? null : { json: out.map((p) => JSON.stringify(p.stmt)), spans: out.map((p) => [p.start, p.end, p.text] as const) };
    parseCache.set(text, entry);
    parseCacheChars += text.length + (entry === null ? 0 : entry.json.reduce((n, j) => n + j.length, 0));
    while (parseCache.size > PARSE_CACHE_ENTRIES || parseCacheChars > PARSE_CACHE_MAX_CHARS) {
      const [oldText, old] = parseCache.entries().next().value!;
      parseCache.delete(oldText);
      parseCacheChars -= oldText.length + (old === null ? 0 : old.json.reduce((n, j) => n + j.length, 0));
    }
  }
  return out;
}

function parseWithGrammar(text: string): ParsedStatement[] {
  let result: { stmts?: { stmt?: Node; stmt_location?: number; stmt_len?: number }[] };
  try {
    result = parseSync(text) as typeof result;
  } catch (e) {
    const rewritten = withFileReaders(text);
    if (rewritten !== null) {
      try {
        parseSync(rewritten);
        return parseStatements(rewritten);
      } catch {
        // not that: report the original error
      }
    }
    const details = (e as { sqlDetails?: { message?: string; cursorPosition?: number } }).sqlDetails;
    const message = details?.message ?? (e instanceof Error ? e.message : String(e));
    const pos = details?.cursorPosition;
    const charPos = pos === undefined ? 0 : (isAscii(text) ? pos : byteToCharOffset(text, pos)) + 1;
    // The grammar's own recursion limit, or the JavaScript one while reading its parse tree: the
    // statement is too complex, not wrong (PostgreSQL: 54001).
    if (/stack depth limit exceeded|call stack size exceeded/i.test(message)) {
      throw new QuireError('54001', 'stack depth limit exceeded', { hint: 'The statement is nested too deeply or has too many terms; simplify it or split it up.' });
    }
    throw new QuireError(grammarErrorCode(message), message, { position: charPos });
  }
  const ascii = isAscii(text);
  const out: ParsedStatement[] = [];
  for (const s of result.stmts ?? []) {
    if (!s.stmt) continue;
    const bStart = s.stmt_location ?? 0;
    const start = ascii ? bStart : byteToCharOffset(text, bStart);
    const end = s.stmt_len === undefined || s.stmt_len === 0 ? text.length : ascii ? bStart + s.stmt_len : byteToCharOffset(text, bStart + s.stmt_len);
    out.push({ stmt: s.stmt, start, end, text: text.slice(start, end) });
  }
  return out;
}
