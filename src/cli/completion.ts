/**
 * Tab completion for the REPL (node:readline's completer): backslash commands at the start of a
 * line, table and view names where a relation goes (after FROM, JOIN, INTO, UPDATE, TABLE, \d),
 * columns of the relations the line names (or of every relation when it names none) and SQL
 * keywords elsewhere. Keywords keep the case of what was typed, upper case when nothing was, as
 * psql's default COMP_KEYWORD_CASE (preserve-upper) does.
 */

export interface CompletionCatalog {
  relations(): string[];
  columns(relation: string): string[];
}

const KEYWORDS = [
  'ALL', 'AND', 'AS', 'ASC', 'BEGIN', 'BETWEEN', 'BY', 'CASE', 'CAST', 'COMMIT', 'COPY', 'COUNT', 'CREATE', 'CROSS', 'DELETE', 'DESC', 'DISTINCT',
  'DROP', 'ELSE', 'END', 'EXCEPT', 'EXISTS', 'EXPLAIN', 'FALSE', 'FETCH', 'FROM', 'FULL', 'GROUP', 'HAVING', 'ILIKE', 'IN', 'INNER', 'INSERT',
  'INTERSECT', 'INTO', 'IS', 'JOIN', 'LEFT', 'LIKE', 'LIMIT', 'NOT', 'NULL', 'NULLS', 'OFFSET', 'ON', 'OR', 'ORDER', 'OUTER', 'OVER',
  'PARTITION', 'PREPARE', 'RETURNING', 'RIGHT', 'ROLLBACK', 'SELECT', 'SET', 'SHOW', 'TABLE', 'THEN', 'TRUE', 'TRUNCATE', 'UNION', 'UPDATE',
  'USING', 'VALUES', 'VIEW', 'WHEN', 'WHERE', 'WINDOW', 'WITH',
];

const META_COMMANDS = [
  '\\?', '\\a', '\\copy', '\\d', '\\d+', '\\df', '\\di', '\\dn', '\\dt', '\\dt+', '\\dv', '\\dv+', '\\echo', '\\f', '\\g', '\\h', '\\i', '\\ir', '\\l', '\\o', '\\pset',
  '\\q', '\\r', '\\set', '\\t', '\\timing', '\\unset', '\\x',
];

/** Words after which a relation name goes. */
const RELATION_CONTEXT = new Set(['from', 'join', 'into', 'update', 'table', '\\d', '\\d+', '\\copy']);

/** [candidates, the word they complete] for the text left of the cursor. */
export function complete(line: string, catalog: CompletionCatalog): [string[], string] {
  const word = /[\\]?[A-Za-z0-9_.+?]*$/.exec(line)?.[0] ?? '';
  const before = line.slice(0, line.length - word.length);
  if (word.startsWith('\\') && before.trim() === '') return [META_COMMANDS.filter((c) => c.startsWith(word)), word];
  const prev = /([\\]?[A-Za-z_+]+)\s*$/.exec(before)?.[1]?.toLowerCase() ?? '';
  const relations = catalog.relations();
  const lower = word.toLowerCase();
  if (RELATION_CONTEXT.has(prev)) return [relations.filter((r) => r.startsWith(lower)), word];
  // "t." completes t's columns.
  const dot = /^([A-Za-z0-9_]+)\.([A-Za-z0-9_]*)$/.exec(word);
  if (dot !== null) {
    const rel = relations.find((r) => r === dot[1]!.toLowerCase());
    const cols = rel === undefined ? [] : catalog.columns(rel);
    return [cols.filter((c) => c.startsWith(dot[2]!.toLowerCase())).map((c) => `${dot[1]}.${c}`), word];
  }
  const named = relations.filter((r) => new RegExp(`\\b${r.replace(/[^A-Za-z0-9_]/g, '')}\\b`, 'i').test(line));
  const columns = [...new Set((named.length > 0 ? named : relations).flatMap((r) => catalog.columns(r)))];
  const upper = word === '' || word !== lower;
  const keywords = KEYWORDS.filter((k) => k.startsWith(word.toUpperCase())).map((k) => (upper ? k : k.toLowerCase()));
  const names = [...columns, ...relations].filter((n) => n.startsWith(lower));
  return [[...new Set([...names, ...keywords])].sort(), word];
}
