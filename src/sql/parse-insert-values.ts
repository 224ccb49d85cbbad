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
 */
import type { Node } from '@pgsql/types';

/** The statement as the grammar gives it, minus the rows: InsertStmt fields and the SelectStmt's. */
interface Prefix {
  insert: Record<string, unknown>;
  select: Record<string, unknown>;
  /** Both as JSON: each statement gets its own copy (parsing small JSON beats structuredClone). */
  json: string;
}

const PREFIX = /^(\s*insert\s+into\s+[a-z_][a-z0-9_$]*(?:\s*\.\s*[a-z_][a-z0-9_$]*)?\s*(?:\(\s*[a-z_][a-z0-9_$]*(?:\s*,\s*[a-z_][a-z0-9_$]*)*\s*\)\s*)?values)\s*\(/i;
const MAX_PREFIXES = 256;
/** A number's digits, read in place (sticky) rather than from a copy of the text after it. */
const NUMBER = /(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/y;
const prefixes = new Map<string, Prefix | null>();

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 12;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || isDigit(c) || c === 95 || c === 36;
}

/** A number's A_Const value as the lexer and gram.y's doNegate make it. */
function numberConst(text: string, negative: boolean): Record<string, unknown> | null {
  if (/^[0-9]+$/.test(text)) {
    const v = Number(text);
    if (v <= 2147483647) {
      const iv = negative ? -v : v;
      // Zero is protobuf's default: the grammar's output leaves it out.
      return { ival: iv === 0 ? {} : { ival: iv } };
    }
  }
  return { fval: { fval: negative ? `-${text}` : text } };
}

/** The rows after VALUES, from `pos` (at the first "("); null when they are not literal rows. */
function readRows(text: string, pos: number): { rows: Node[]; end: number } | null {
  const n = text.length;
  const rows: Node[] = [];
  let p = pos;
  const skip = (): void => {
    while (p < n && isSpace(text.charCodeAt(p))) p++;
  };
  for (;;) {
    skip();
    if (text.charCodeAt(p) !== 40 /* ( */) return null;
    p++;
    const items: Node[] = [];
    for (;;) {
      skip();
      const start = p;
      const c = text.charCodeAt(p);
      let value: Record<string, unknown> | null = null;
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
        value = { sval: { sval: s } };
      } else if (c === 45 /* - */ || c === 46 /* . */ || isDigit(c)) {
        const negative = c === 45;
        if (negative) p++;
        NUMBER.lastIndex = p;
        const m = NUMBER.exec(text);
        // Very long numbers are the grammar's business.
        if (m === null || m[0].length >= 400) return null;
        p += m[0].length;
        // "1abc", "1_000", "0x1f", "1e": the lexer's business.
        if (p < n && (isWordChar(text.charCodeAt(p)) || text.charCodeAt(p) === 46)) return null;
        value = numberConst(m[0], negative);
        if (value === null) return null;
      } else {
        let e = p;
        while (e < n && isWordChar(text.charCodeAt(e))) e++;
        const word = text.slice(p, e).toLowerCase();
        if (word === 'null') value = { isnull: true };
        else if (word === 'true') value = { boolval: { boolval: true } };
        else if (word === 'false') value = { boolval: {} };
        else return null;
        p = e;
      }
      items.push({ A_Const: { ...value, location: start } } as unknown as Node);
      skip();
      const d = text.charCodeAt(p);
      p++;
      if (d === 44 /* , */) continue;
      if (d === 41 /* ) */) break;
      return null;
    }
    rows.push({ List: { items } } as unknown as Node);
    skip();
    if (text.charCodeAt(p) === 44) {
      p++;
      continue;
    }
    break;
  }
  skip();
  if (p !== n) return null;
  return { rows, end: n };
}

/** Statements this path built: literals only, so no parameter references to look for. */
const built = new WeakSet<Node>();

/** Whether the statement came from this path (it has no $n parameters). */
export function isLiteralInsert(stmt: Node): boolean {
  return built.has(stmt);
}

function build(prefix: Prefix, rows: Node[]): Node {
  const { insert, select } = JSON.parse(prefix.json) as Prefix;
  return { InsertStmt: { ...insert, selectStmt: { SelectStmt: { valuesLists: rows, ...select } } } } as unknown as Node;
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** The statement parsed without the grammar, or null when this path does not take it. */
export function parseInsertValues(text: string): Node | null {
  const m = PREFIX.exec(text);
  if (m === null) return null;
  const prefix = prefixes.get(m[1]!);
  if (prefix === undefined || prefix === null) return null;
  if (!isAscii(text)) return null;
  const r = readRows(text, m[0].length - 1);
  if (r === null) return null;
  const stmt = build(prefix, r.rows);
  built.add(stmt);
  return stmt;
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
  const r = readRows(text, m[0].length - 1);
  // Not literal rows (RETURNING, DEFAULT, an expression): nothing to learn from this one.
  if (r === null) return;
  if (prefixes.size >= MAX_PREFIXES) prefixes.clear();
  let learned: Prefix | null = null;
  const one = parsed.length === 1 && parsed[0]!.start === 0 && parsed[0]!.end === text.length ? parsed[0]!.stmt : null;
  const ins = (one as { InsertStmt?: Record<string, unknown> } | null)?.InsertStmt;
  const sel = (ins?.selectStmt as { SelectStmt?: Record<string, unknown> } | undefined)?.SelectStmt;
  if (ins !== undefined && sel !== undefined) {
    const { selectStmt: _s, ...insert } = ins;
    const { valuesLists: _v, ...select } = sel;
    const candidate: Prefix = { insert, select, json: JSON.stringify({ insert, select }) };
    if (canonical(build(candidate, r.rows)) === canonical(one)) learned = candidate;
  }
  prefixes.set(m[1]!, learned);
}
