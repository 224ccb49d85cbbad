import type { Database } from '../index.js';

/**
 * \dt, \dv and \di rows: [schema, name, type], and for an index the table it is on. Quire has a
 * single, unnamed schema, shown as psql's "public".
 */
export function relationLister(db: Database): () => Promise<string[][]> {
  return async () => [
    ...db.listTables().map((t) => ['public', t.name, t.kind]),
    ...db.listIndexes().map((i) => ['public', i.name, 'index', i.table]),
  ];
}
