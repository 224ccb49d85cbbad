/**
 * `INSERT INTO t [(cols)] VALUES (literal, …)[, …]` without the grammar: the statement every durable
 * autocommit write sends, where parsing costs as much as the rest of the statement.
 *
 * The part before the rows (`INSERT INTO t (a, b) VALUES`, exactly as written) is parsed once by the
 * grammar, which also decides whether its names are valid there; later statements with the same text
 * up to VALUES take that part from a cache and build the rows from their literals here. Literals are
 * NULL, TRUE, FALSE, numbers with an optional minus sign and standard '…' strings, read as
 * PostgreSQL's lexer reads them (integers that fit int4 are ival, other numbers fval text). Anything
 * else (DEFAULT, expressions, casts, E'' strings, comments, RETURNING, ON CONFLICT, non-ASCII text)
 * goes to the grammar. The first statement of each prefix is built both ways and compared: a prefix
 * whose rows would come out differently is never taken from the cache.
 *
 * The rows are read into plain literals (kind, value, position); the statement's tree is built from
 * them only when something asks for it, so an INSERT that its prefix's cached plan takes whole
 * (src/api/insert-literal.ts) never builds one.
 */
import type { Node } from '@pgsql/types';

/** The statement as the grammar gives it, minus the rows: InsertStmt fields and the SelectStmt's. */
export interface Prefix {
  insert: Record<string, unknown>;
  select: Record<string, unknown>;
  /** Both as JSON: each statement gets its own copy (parsing small JSON beats structuredClone). */
  json: string;
}

/** A literal's kind, as the lexer classifies it. */
export const LIT_NULL = 0;
/** An integer that fits int4 (the grammar's ival): `value` is the number. */
export const LIT_INT = 1;
/** Any other number (the grammar's fval): `value` is its text, with its sign. */
export const LIT_NUMBER = 2;
export const LIT_BOOL = 3;
/** A '…' string: `value` is its contents. */
export const LIT_STRING = 4;

/** One row's literals: kinds, values and 0-based character positions, side by side. */
export interface LiteralRow {
  kinds: number[];
  values: (number | string | boolean | null)[];
  locations: number[];
}

/** What this path read of a statement: the prefix (the same object for every statement with its text) and the rows. */
export interface LiteralInsert {
  readonly prefix: Prefix;
  readonly rows: readonly LiteralRow[];
}

const PREFIX = /^(\s*insert\s+into\s+[a-z_][a-z0-9_$]*(?:\s*\.\s*[a-z_][a-z0-9_$]*)?\s*(?:\(\s*[a-z_][a-z0-9_$]*(?:\s*,\s*[a-z_][a-z0-9_$]*)*\s*\)\s*)?values)\s*\(/i;
const MAX_PREFIXES = 256;
const prefixes = new Map<string, Prefix | null>();

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || isDigit(c) || c === 95 || c === 36;
}

/** A literal as the grammar's A_Const node. */
function constNode(kind: number, value: number | string | boolean | null, location: number): Node {
  let v: Record<string, unknown>;
  switch (kind) {
    case LIT_NULL:
      v = { isnull: true };
      break;
    case LIT_INT:
      // Zero is protobuf's default: the grammar's output leaves it out.
      v = { ival: value === 0 ? {} : { ival: value } };
      break;
    case LIT_NUMBER:
      v = { fval: { fval: value } };
      break;
    case LIT_BOOL:
      v = { boolval: value === true ? { boolval: true } : {} };
      break;
    default:
      v = { sval: { sval: value } };
  }
  return { A_Const: { ...v, location } } as unknown as Node;
}

function rowNodes(rows: readonly LiteralRow[]): Node[] {
  return rows.map((r) => ({ List: { items: r.kinds.map((k, i) => constNode(k, r.values[i]!, r.locations[i]!)) } }) as unknown as Node);
}

/** The first position at or after `p` that is not white space (a function, not a closure made per statement). */
function skipSpace(text: string, p: number): number {
  const n = text.length;
  // The white space test spelled out, not a function per character: this runs interpreted through
  // an autocommit loop's first thousands of statements, a few times per literal.
  for (; p < n; p++) {
    const c = text.charCodeAt(p);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12) break;
  }
  return p;
}

/** One row's literals as readRows reads them, before they are copied into the row. */
const KINDS: number[] = [];
const VALUES: (number | string | boolean | null)[] = [];
const LOCATIONS: number[] = [];

/** The rows after VALUES, from `pos` (at the first "("); null when they are not literal rows. */
function readRows(text: string, pos: number): LiteralRow[] | null {
  const rows = readLiteralRows(text, pos);
  // A row given up half-way leaves its strings in VALUES.
  if (rows === null) VALUES.fill(null);
  return rows;
}

function readLiteralRows(text: string, pos: number): LiteralRow[] | null {
  const n = text.length;
  const rows: LiteralRow[] = [];
  let p = pos;
  for (;;) {
    p = skipSpace(text, p);
    if (text.charCodeAt(p) !== 40 /* ( */) return null;
    p++;
    let width = 0;
    for (;;) {
      p = skipSpace(text, p);
      const start = p;
      const c = text.charCodeAt(p);
      let kind: number;
      let value: number | string | boolean | null;
      if (c === 39 /* ' */) {
        let s = '';
        p++;
        for (;;) {
          const q = text.indexOf("'", p);
          if (q < 0) return null;
          s += text.slice(p, q);
          p = q + 1;
          if (text.charCodeAt(p) === 39) {
            s += "'";
            p++;
            continue;
          }
          break;
        }
        kind = LIT_STRING;
        value = s;
      } else if (c === 45 /* - */ || c === 46 /* . */ || isDigit(c)) {
        const negative = c === 45;
        if (negative) p++;
        // Digits alone (an id, a count) that fit int4: their value as read, without the regular expression.
        let q = p;
        let int = 0;
        for (; q < n && int <= 2147483647; q++) {
          const digit = text.charCodeAt(q) - 48;
          if (digit < 0 || digit > 9) break;
          int = int * 10 + digit;
        }
        if (q > p && int <= 2147483647 && (q >= n || !(isWordChar(text.charCodeAt(q)) || text.charCodeAt(q) === 46))) {
          kind = LIT_INT;
          value = negative && int !== 0 ? -int : int;
          p = q;
        } else {
          // The lexer's number, /(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/, read in place: no
          // match array and no second expression to tell an integer (this runs for every decimal
          // literal, interpreted through a loop's first thousands of statements).
          q = p;
          while (q < n && isDigit(text.charCodeAt(q))) q++;
          let integer = q > p;
          if (q < n && text.charCodeAt(q) === 46 /* . */) {
            let r = q + 1;
            while (r < n && isDigit(text.charCodeAt(r))) r++;
            // "5." and ".5" are numbers, "." alone is not.
            if (q > p || r > q + 1) {
              q = r;
              integer = false;
            }
          }
          if (q === p) return null;
          const e = text.charCodeAt(q);
          if (q < n && (e === 101 || e === 69) /* e E */) {
            let r = q + 1;
            const sign = text.charCodeAt(r);
            if (r < n && (sign === 43 || sign === 45)) r++;
            const digitsFrom = r;
            while (r < n && isDigit(text.charCodeAt(r))) r++;
            if (r > digitsFrom) {
              q = r;
              integer = false;
            }
          }
          // Very long numbers are the grammar's business.
          if (q - p >= 400) return null;
          const digits = text.slice(p, q);
          p = q;
          // "1abc", "1_000", "0x1f", "1e": the lexer's business.
          if (p < n && (isWordChar(text.charCodeAt(p)) || text.charCodeAt(p) === 46)) return null;
          const whole = integer ? Number(digits) : Infinity;
          if (whole <= 2147483647) {
            kind = LIT_INT;
            value = negative ? -whole : whole;
            if (value === 0) value = 0;
          } else {
            kind = LIT_NUMBER;
            value = negative ? `-${digits}` : digits;
          }
        }
      } else {
        let e = p;
        while (e < n && isWordChar(text.charCodeAt(e))) e++;
        const word = text.slice(p, e).toLowerCase();
        if (word === 'null') {
          kind = LIT_NULL;
          value = null;
        } else if (word === 'true' || word === 'false') {
          kind = LIT_BOOL;
          value = word === 'true';
        } else return null;
        p = e;
      }
      KINDS[width] = kind;
      VALUES[width] = value;
      LOCATIONS[width] = start;
      width++;
      p = skipSpace(text, p);
      const d = text.charCodeAt(p);
      p++;
      if (d === 44 /* , */) continue;
      if (d === 41 /* ) */) break;
      return null;
    }
    // Copied out at their length: pushing into new arrays allocated room for 17 values each.
    rows.push({ kinds: KINDS.slice(0, width), values: VALUES.slice(0, width), locations: LOCATIONS.slice(0, width) });
    // No string of this statement stays reachable from here.
    VALUES.fill(null, 0, width);
    p = skipSpace(text, p);
    if (text.charCodeAt(p) === 44) {
      p++;
      continue;
    }
    break;
  }
  p = skipSpace(text, p);
  if (p !== n) return null;
  return rows;
}

/**
 * Statements this path built carry their prefix and literal rows under this key (literals only, so no
 * parameter references to look for). A property, not a WeakMap entry: the young generation's
 * collector kept every statement a WeakMap held until the next full collection.
 */
const BUILT: unique symbol = Symbol('literal insert');
interface BuiltStatement {
  [BUILT]?: LiteralInsert;
}

/** Whether the statement came from this path (it has no $n parameters). */
export function isLiteralInsert(stmt: Node): boolean {
  return (stmt as BuiltStatement)[BUILT] !== undefined;
}

/** The prefix and literal rows of a statement this path built. */
export function literalInsertOf(stmt: Node): LiteralInsert | undefined {
  return (stmt as BuiltStatement)[BUILT];
}

function buildBody(prefix: Prefix, rows: Node[]): Record<string, unknown> {
  const { insert, select } = JSON.parse(prefix.json) as Prefix;
  return { ...insert, selectStmt: { SelectStmt: { valuesLists: rows, ...select } } };
}

function build(prefix: Prefix, rows: Node[]): Node {
  return { InsertStmt: buildBody(prefix, rows) } as unknown as Node;
}

/**
 * The InsertStmt of a statement this path built, made from its literals on first access and then kept
 * as a plain property. One getter for all statements (it finds the rows through `this`): a closure per
 * statement, like a WeakMap entry, made the young generation's collector keep every statement's rows.
 */
function insertStmtOnFirstAccess(this: BuiltStatement): Record<string, unknown> {
  const { prefix, rows } = this[BUILT]!;
  const body = buildBody(prefix, rowNodes(rows));
  Object.defineProperty(this, 'InsertStmt', { value: body, enumerable: true, configurable: true, writable: true });
  return body;
}

/** The statement with its InsertStmt built on first access (an own, enumerable property either way). */
function lazyStatement(built: LiteralInsert): Node {
  const stmt: BuiltStatement = {};
  // Not enumerable: the statement compares equal to the grammar's tree.
  Object.defineProperty(stmt, BUILT, { value: built });
  Object.defineProperty(stmt, 'InsertStmt', { enumerable: true, configurable: true, get: insertStmtOnFirstAccess });
  return stmt as Node;
}

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * A regular expression rather than a loop over the characters: it runs as compiled code from the first
 * statement on, where the loop ran interpreted through an autocommit loop's first thousands of INSERTs.
 */
function isAscii(s: string): boolean {
  return !NON_ASCII.test(s);
}

/**
 * The prefix and literal rows of `text`, or null when this path does not take it: what the library's
 * autocommit INSERT runs from, with no statement node made (src/api/database.ts).
 */
export function literalInsertText(text: string): LiteralInsert | null {
  let prefix: Prefix | null | undefined;
  let at: number;
  const last = lastPrefix;
  if (last !== null && text.startsWith(last.text) && prefixes.get(last.text) === last.prefix && (at = skipSpace(text, last.text.length)) < text.length && text.charCodeAt(at) === 40) {
    // The prefix of the statement before (an autocommit loop's): PREFIX would match exactly it, as
    // the text after VALUES cannot extend a name or a column list.
    prefix = last.prefix;
  } else {
    const m = PREFIX.exec(text);
    if (m === null) return null;
    prefix = prefixes.get(m[1]!);
    if (prefix === undefined || prefix === null) return null;
    at = m[0].length - 1;
    lastPrefix = { text: m[1]!, prefix };
  }
  if (!isAscii(text)) return null;
  const rows = readRows(text, at);
  return rows === null ? null : { prefix, rows };
}

/** The cached prefix the last statement read here had, and its text. */
let lastPrefix: { text: string; prefix: Prefix } | null = null;

/** The statement parsed without the grammar, or null when this path does not take it. */
export function parseInsertValues(text: string): Node | null {
  const lit = literalInsertText(text);
  return lit === null ? null : lazyStatement(lit);
}

/** JSON with keys in sorted order: the grammar's key order is not the point of the comparison. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * After the grammar parsed `text`: if it is one INSERT of literal rows spanning the whole text and
 * this path rebuilds it identically, its prefix is cached for the statements that follow.
 */
export function learnInsertValues(text: string, parsed: readonly { stmt: Node; start: number; end: number }[]): void {
  const m = PREFIX.exec(text);
  if (m === null || prefixes.has(m[1]!) || !isAscii(text)) return;
  const rows = readRows(text, m[0].length - 1);
  // Not literal rows (RETURNING, DEFAULT, an expression): nothing to learn from this one.
  if (rows === null) return;
  if (prefixes.size >= MAX_PREFIXES) prefixes.clear();
  let learned: Prefix | null = null;
  const one = parsed.length === 1 && parsed[0]!.start === 0 && parsed[0]!.end === text.length ? parsed[0]!.stmt : null;
  const ins = (one as { InsertStmt?: Record<string, unknown> } | null)?.InsertStmt;
  const sel = (ins?.selectStmt as { SelectStmt?: Record<string, unknown> } | undefined)?.SelectStmt;
  if (ins !== undefined && sel !== undefined) {
    const { selectStmt: _s, ...insert } = ins;
    const { valuesLists: _v, ...select } = sel;
    const candidate: Prefix = { insert, select, json: JSON.stringify({ insert, select }) };
    if (canonical(build(candidate, rowNodes(rows))) === canonical(one)) learned = candidate;
  }
  prefixes.set(m[1]!, learned);
}
