/**
 * OpenSearch names a result column by its select item as written in the query (`count(*)`,
 * `a + 1`, `t.x`) and reports an alias separately (`{"name": "count(*)", "alias": "c"}`), where
 * PostgreSQL names it by the alias or a derived word (`count`, `?column?`). The REST port follows
 * OpenSearch; the PostgreSQL port keeps PostgreSQL's names.
 *
 * libpg-query gives each select item's start; its end is found by scanning the text for the first
 * comma, closing parenthesis or clause keyword outside brackets, strings, quoted names and comments.
 */
import type { Node, ResTarget, SelectStmt } from '@pgsql/types';
import { nodeBody, nodeTag } from '../../sql/ast.js';
import { byteToCharOffset } from '../../sql/parse.js';

export interface ColumnName {
  name: string;
  alias?: string;
}

const CLAUSE_END = new Set(['from', 'where', 'group', 'having', 'window', 'order', 'limit', 'offset', 'fetch', 'for', 'union', 'intersect', 'except', 'into', 'as']);

/**
 * Names for the `count` output columns of `stmt` (parsed from `sql`); null where the item's text
 * cannot be told (a `*` expands to several columns, VALUES has no items).
 */
export function selectItemNames(sql: string, stmt: SelectStmt, count: number): (ColumnName | null)[] {
  let s = stmt;
  // A set operation's columns are named by its first branch.
  while (s.larg && s.op !== undefined && s.op !== 'SETOP_NONE') s = s.larg;
  const targets = (s.targetList ?? []).map((n) => nodeBody<ResTarget>(n as Node));
  const out: (ColumnName | null)[] = Array.from({ length: count }, () => null);
  const star = (t: ResTarget): boolean => {
    if (t.val === undefined || nodeTag(t.val) !== 'ColumnRef') return false;
    const fields = nodeBody<{ fields?: Node[] }>(t.val).fields ?? [];
    return fields.some((f) => nodeTag(f) === 'A_Star');
  };
  const firstStar = targets.findIndex(star);
  if (firstStar < 0 && targets.length !== count) return out;
  const lastStar = firstStar < 0 ? -1 : targets.length - 1 - [...targets].reverse().findIndex(star);
  targets.forEach((t, i) => {
    let col: number;
    if (firstStar < 0 || i < firstStar) col = i;
    else if (i > lastStar) col = count - (targets.length - i);
    else return;
    if (col < 0 || col >= count) return;
    out[col] = itemName(sql, t);
  });
  return out;
}

function itemName(sql: string, t: ResTarget): ColumnName | null {
  if (t.location === undefined || t.location < 0) return null;
  const start = byteToCharOffset(sql, t.location);
  const [end, textEnd] = itemEnd(sql, start);
  let text = sql.slice(start, textEnd).trim();
  if (t.name !== undefined && !/^as\b/i.test(sql.slice(end))) {
    // An alias without AS ends the text: `count(*) c`.
    const bare = new RegExp(`\\s+(?:"${escapeRe(t.name.replace(/"/g, '""'))}"|${escapeRe(t.name)})$`, 'i');
    text = text.replace(bare, '').trim();
  }
  if (text === '') return null;
  if (/^"(?:[^"]|"")*"$/.test(text)) text = text.slice(1, -1).replace(/""/g, '"');
  return t.name !== undefined ? { name: text, alias: t.name } : { name: text };
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * Where the select item starting at `i` ends (exclusive): the index of what stops it, and the end of
 * its last token (comments and blanks before the stop are not part of its text).
 */
function itemEnd(sql: string, from: number): [number, number] {
  let i = from;
  let last = from;
  const stop = (at: number): [number, number] => [at, last];
  let depth = 0;
  let prevWord = '';
  let prevPrevWord = '';
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (c === "'" || c === '"') {
      // E'…' strings also escape a quote with a backslash.
      const escapes = c === "'" && /[eE]/.test(sql[i - 1] ?? '') && !/[\w$]/.test(sql[i - 2] ?? '');
      let j = i + 1;
      for (;;) {
        while (j < sql.length && sql[j] !== c) j += escapes && sql[j] === '\\' ? 2 : 1;
        if (j >= sql.length) return stop(sql.length);
        if (sql[j + 1] === c) j += 2;
        else break;
      }
      i = j + 1;
      last = i;
    } else if (c === '-' && next === '-') {
      const j = sql.indexOf('\n', i);
      if (j < 0) return stop(i);
      i = j + 1;
    } else if (c === '/' && next === '*') {
      const j = sql.indexOf('*/', i + 2);
      if (j < 0) return stop(i);
      i = j + 2;
    } else if (c === '$' && /[A-Za-z_$]/.test(next ?? '') && /^\$[A-Za-z_]*\$/.test(sql.slice(i))) {
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i))![0];
      const j = sql.indexOf(tag, i + tag.length);
      if (j < 0) return stop(sql.length);
      i = j + tag.length;
      last = i;
    } else if (c === '(' || c === '[') {
      depth++;
      last = ++i;
    } else if (c === ')' || c === ']') {
      if (depth === 0) return stop(i);
      depth--;
      last = ++i;
    } else if ((c === ',' || c === ';') && depth === 0) {
      return stop(i);
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < sql.length && /[\w$]/.test(sql[j]!)) j++;
      const word = sql.slice(i, j).toLowerCase();
      // IS [NOT] DISTINCT FROM is an operator, not the FROM clause.
      const operatorFrom = word === 'from' && prevWord === 'distinct' && (prevPrevWord === 'is' || prevPrevWord === 'not');
      if (depth === 0 && CLAUSE_END.has(word) && !operatorFrom) return stop(i);
      prevPrevWord = prevWord;
      prevWord = word;
      last = i = j;
    } else {
      i++;
      if (!/\s/.test(c)) last = i;
    }
  }
  return stop(sql.length);
}
