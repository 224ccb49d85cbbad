/**
 * \h: a short synopsis of each SQL command Quire runs, in psql's "Command / Description / Syntax"
 * layout. The syntax lines describe what this engine accepts, not all of PostgreSQL's.
 */
export interface SqlHelp {
  description: string;
  syntax: string;
}

export const SQL_HELP: Readonly<Record<string, SqlHelp>> = {
  ATTACH: { description: 'attach another database (PostgreSQL server or directory)', syntax: "ATTACH 'connection string or path' AS name [ ( TYPE postgres ) ]" },
  BEGIN: { description: 'start a transaction block', syntax: 'BEGIN [ WORK | TRANSACTION ]' },
  COMMIT: { description: 'commit the current transaction', syntax: 'COMMIT [ WORK | TRANSACTION ]' },
  COPY: { description: 'copy data between a file and a table', syntax: "COPY table [ ( column [, ...] ) ] FROM { 'filename' | STDIN } [ [ WITH ] ( option [, ...] ) ]\nCOPY { table [ ( column [, ...] ) ] | ( query ) } TO { 'filename' | STDOUT } [ [ WITH ] ( option [, ...] ) ]\n\nwhere option is one of: FORMAT { csv | text | parquet | json }, HEADER [ boolean ], DELIMITER 'c', NULL 'string', QUOTE 'c', ESCAPE 'c'" },
  'CREATE TABLE': { description: 'define a new table', syntax: 'CREATE [ TEMP ] TABLE [ IF NOT EXISTS ] name ( column type [ NOT NULL | PRIMARY KEY | UNIQUE | DEFAULT expr ] [, ...] )\nCREATE TABLE name AS query' },
  'CREATE VIEW': { description: 'define a new view', syntax: 'CREATE [ OR REPLACE ] VIEW name [ ( column [, ...] ) ] AS query' },
  DEALLOCATE: { description: 'deallocate a prepared statement', syntax: 'DEALLOCATE [ PREPARE ] { name | ALL }' },
  DELETE: { description: 'delete rows of a table', syntax: 'DELETE FROM table [ WHERE condition ] [ RETURNING output [, ...] ]' },
  'DROP TABLE': { description: 'remove a table', syntax: 'DROP TABLE [ IF EXISTS ] name [, ...]' },
  'DROP VIEW': { description: 'remove a view', syntax: 'DROP VIEW [ IF EXISTS ] name [, ...]' },
  EXECUTE: { description: 'execute a prepared statement', syntax: 'EXECUTE name [ ( parameter [, ...] ) ]' },
  EXPLAIN: { description: 'show the execution plan of a statement', syntax: 'EXPLAIN [ ANALYZE ] statement' },
  INSERT: { description: 'create new rows in a table', syntax: 'INSERT INTO table [ ( column [, ...] ) ]\n    { VALUES ( expression [, ...] ) [, ...] | query }\n    [ ON CONFLICT [ ( column [, ...] ) ] DO { NOTHING | UPDATE SET ... } ]\n    [ RETURNING output [, ...] ]' },
  PREPARE: { description: 'prepare a statement for execution', syntax: 'PREPARE name [ ( type [, ...] ) ] AS statement' },
  RESET: { description: 'restore a setting to its default value', syntax: 'RESET { name | ALL }' },
  ROLLBACK: { description: 'abort the current transaction', syntax: 'ROLLBACK [ WORK | TRANSACTION ]' },
  SELECT: { description: 'retrieve rows from a table or view', syntax: '[ WITH [ RECURSIVE ] name AS ( query ) [, ...] ]\nSELECT [ ALL | DISTINCT [ ON ( expression [, ...] ) ] ]\n    [ * | expression [ [ AS ] output_name ] [, ...] ]\n    [ FROM from_item [, ...] ]\n    [ WHERE condition ]\n    [ GROUP BY expression [, ...] ]\n    [ HAVING condition ]\n    [ WINDOW name AS ( window_definition ) [, ...] ]\n    [ { UNION | INTERSECT | EXCEPT } [ ALL ] select ]\n    [ ORDER BY expression [ ASC | DESC ] [ NULLS { FIRST | LAST } ] [, ...] ]\n    [ LIMIT count ] [ OFFSET start ]' },
  SET: { description: 'change a run-time setting', syntax: "SET [ SESSION | LOCAL ] name { TO | = } { value | 'value' | DEFAULT }\nSET TIME ZONE { value | LOCAL | DEFAULT }" },
  SHOW: { description: 'show the value of a run-time setting', syntax: 'SHOW { name | ALL }' },
  'TRUNCATE': { description: 'empty a table', syntax: 'TRUNCATE [ TABLE ] name [, ...]' },
  UPDATE: { description: 'update rows of a table', syntax: 'UPDATE table SET column = expression [, ...]\n    [ FROM from_item [, ...] ]\n    [ WHERE condition ]\n    [ RETURNING output [, ...] ]' },
  VALUES: { description: 'compute a set of rows', syntax: 'VALUES ( expression [, ...] ) [, ...]\n    [ ORDER BY sort_expression [ ASC | DESC ] [, ...] ]\n    [ LIMIT count ] [ OFFSET start ]' },
};

/** \h [NAME]: the list of commands, or the synopsis of the commands NAME starts (psql matches prefixes). */
export function sqlHelp(topic: string): { text: string; found: boolean } {
  const names = Object.keys(SQL_HELP).sort();
  const t = topic.trim().replace(/\s+/g, ' ').replace(/;$/, '').toUpperCase();
  if (t === '' || t === '*') {
    const width = Math.max(...names.map((n) => n.length)) + 2;
    const rows: string[] = [];
    for (let i = 0; i < names.length; i += 3) rows.push('  ' + names.slice(i, i + 3).map((n) => n.padEnd(width)).join('').trimEnd());
    return { text: `Available help:\n${rows.join('\n')}\n`, found: true };
  }
  // "\h CREATE" shows every CREATE …; "\h select *" shows SELECT: the longest matching command wins.
  const exact = names.filter((n) => t === n || t.startsWith(`${n} `)).sort((a, b) => b.length - a.length)[0];
  const matches = exact !== undefined ? [exact] : names.filter((n) => n.startsWith(t));
  if (matches.length === 0) return { text: `No help available for "${topic.trim()}".\nTry \\h with no arguments to see available help.\n`, found: false };
  return { text: matches.map((n) => `Command:     ${n}\nDescription: ${SQL_HELP[n]!.description}\nSyntax:\n${SQL_HELP[n]!.syntax}\n`).join('\n'), found: true };
}
