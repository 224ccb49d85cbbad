/** PostgreSQL (PGlite) loaded with the demo database, as the reference for the demo tests. */
import type { PGlite } from '@electric-sql/pglite';
import { demoStatements } from '../../src/demo/index.js';
import { newPGlite } from '../common/pglite.js';

export const SEED_QUERY =
  "SELECT customer_name, customer_gender FROM customer_dimension WHERE occupation='Dancer' AND customer_city = 'San Francisco' ORDER BY customer_name OFFSET 8;";

export const SEED_ROWS = [
  ['Kevin . Campbell', 'Male'],
  ['Raja Y. Wilson', 'Male'],
  ['Samantha O. Brown', 'Female'],
  ['Steve H. Gauthier', 'Male'],
  ['William . Nielson', 'Male'],
  ['William Z. Roy', 'Male'],
];

/** Queries whose text output must agree between PostgreSQL and Quire on the demo data. */
export const CHECKS = [
  SEED_QUERY,
  'SELECT count(*) FROM customer_dimension',
  "SELECT count(*) FROM customer_dimension WHERE occupation = 'Dancer' AND customer_city = 'San Francisco'",
  'SELECT key, str1, num0, time1, date0, bool0 FROM calcs ORDER BY key',
  'SELECT count(*), count(DISTINCT event_id), count(DISTINCT user_id), count(DISTINCT category), min(ts), max(ts), min(amount), max(amount), sum(amount), count(score) FROM events',
  'SELECT * FROM events ORDER BY event_id LIMIT 5',
  'SELECT user_id, count(*) AS n FROM events GROUP BY user_id ORDER BY n DESC, user_id LIMIT 5',
  'SELECT category, count(*) FROM events GROUP BY category ORDER BY category',
];

/** Every type the demo uses, parsed as its text output instead of a JavaScript value. */
const TEXT_OIDS = [16, 20, 21, 23, 25, 700, 701, 1043, 1082, 1114, 1184, 1186, 1700];
const asText = Object.fromEntries(TEXT_OIDS.map((oid) => [oid, (s: string) => s]));

export async function pgDemo(): Promise<PGlite> {
  const pg = newPGlite();
  await pg.exec("SET TimeZone = 'UTC'");
  for (const sql of demoStatements()) await pg.exec(sql);
  return pg;
}

/** PostgreSQL's text output of every cell. */
export async function pgText(pg: PGlite, sql: string): Promise<(string | null)[][]> {
  const r = await pg.query<unknown[]>(sql, [], { rowMode: 'array', parsers: asText });
  return r.rows.map((row) => row.map((v) => (v === null ? null : String(v))));
}
