/**
 * The demo database (`quire --demo`, `npm start`): three tables built with plain SQL, so loading
 * them also exercises the engine's DDL, INSERT and CREATE TABLE AS paths.
 *
 *   calcs               17 rows x 27 columns of the OpenSearch/Tableau test data (paging examples)
 *   customer_dimension  514 customers (Spark's OFFSET example: the San Francisco dancers)
 *   events              200,000 events for ranking, top-N and window queries
 *
 * Everything is deterministic: the same SQL, hence the same rows, on every machine.
 */
import { CALCS_COLUMNS, CALCS_ROWS } from './calcs-data.js';
import { CUSTOMER_COLUMNS, customerRows } from './customers.js';

/** The part of Database that loading needs (db.query runs every statement in its text). */
export interface DemoTarget {
  query(sql: string): Promise<unknown>;
}

export function sqlLiteral(v: string | number | boolean | null): string {
  if (v === null) return 'NULL';
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (typeof v === 'number') return String(v);
  return `'${v.replace(/'/g, "''")}'`;
}

function createTable(name: string, columns: readonly (readonly [string, string])[]): string {
  return `CREATE TABLE ${name} (\n${columns.map(([n, t]) => `  ${n} ${t}`).join(',\n')}\n);`;
}

function insertValues(name: string, rows: readonly (readonly (string | number | boolean | null)[])[]): string {
  return `INSERT INTO ${name} VALUES\n${rows.map((r) => `  (${r.map(sqlLiteral).join(', ')})`).join(',\n')};`;
}

export function calcsSql(): string[] {
  return [createTable('calcs', CALCS_COLUMNS), insertValues('calcs', CALCS_ROWS)];
}

export function customerSql(): string[] {
  return [createTable('customer_dimension', CUSTOMER_COLUMNS), insertValues('customer_dimension', customerRows())];
}

export const EVENT_COUNT = 200_000;
export const EVENT_USERS = 5_000;

export const EVENT_CATEGORIES: readonly string[] = [
  'books',
  'electronics',
  'games',
  'garden',
  'grocery',
  'health',
  'home',
  'jewelry',
  'kids',
  'movies',
  'music',
  'office',
  'outdoors',
  'pets',
  'shoes',
  'sports',
  'tools',
  'toys',
  'travel',
  'clothing',
];

/** MINSTD (Park-Miller) modulus and multiplier: x -> x * 48271 mod (2^31 - 1). */
const MINSTD_M = 2147483647n;
const MINSTD_A = 48271n;

/** 48271^k mod M, so that (g * minstd(k)) mod M is the k-th MINSTD step from seed g. */
function minstd(k: number): bigint {
  let x = 1n;
  for (let i = 0; i < k; i++) x = (x * MINSTD_A) % MINSTD_M;
  return x;
}

/**
 * events: every column is a function of the row number g alone, so no random() and no
 * dependence on evaluation order. x_k = g * 48271^k mod (2^31-1) is the k-th MINSTD step from
 * seed g; being linear in g it would make neighbouring rows form arithmetic progressions, so each
 * column squares the low 26 bits of its x_k (mod 2^31-1), which breaks the pattern while keeping
 * every intermediate below 2^53.
 *   event_id  g (unique, in time order)
 *   user_id   1..5000, about 40 events each
 *   category  one of 20
 *   ts        every ~157 s through 2026 with jitter (g*157 + r < 31,536,000 s = one year)
 *   amount    0.01 .. 999.99 with two decimals
 *   score     0..100 (many ties), NULL for about 1 row in 23
 */
export function eventsSql(): string[] {
  const x = (k: number): string => `s.g::bigint * ${minstd(k)} % ${MINSTD_M} AS x${k}`;
  const h = (k: number): string => `((x${k} % 67108864) * (x${k} % 67108864) % ${MINSTD_M})`;
  const cases = EVENT_CATEGORIES.map((c, i) => `WHEN ${i} THEN '${c}'`).join(' ');
  return [
    `CREATE TABLE events AS
SELECT
  g::bigint AS event_id,
  (${h(3)} % ${EVENT_USERS} + 1)::integer AS user_id,
  (CASE ${h(5)} % ${EVENT_CATEGORIES.length} ${cases} END)::text AS category,
  TIMESTAMP '2026-01-01 00:00:00' + (g * 157 + ${h(7)} % 157) * INTERVAL '1 second' AS ts,
  ((${h(11)} % 99999 + 1) * 0.01)::numeric(10,2) AS amount,
  (CASE WHEN ${h(13)} % 23 = 0 THEN NULL ELSE ${h(13)} % 101 END)::integer AS score
FROM (
  SELECT s.g, ${x(3)}, ${x(5)}, ${x(7)}, ${x(11)}, ${x(13)}
  FROM generate_series(1, ${EVENT_COUNT}) AS s(g)
) AS t;`,
  ];
}

/** Every statement of the demo database, in load order. */
export function demoStatements(): string[] {
  return [...calcsSql(), ...customerSql(), ...eventsSql()];
}

/** A failed demo statement, with its text so the error position can be shown in it. */
export class DemoLoadError extends Error {
  constructor(
    readonly sql: string,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'DemoLoadError';
  }
}

export async function loadDemo(db: DemoTarget): Promise<void> {
  for (const sql of demoStatements()) {
    try {
      await db.query(sql);
    } catch (e) {
      throw new DemoLoadError(sql, e);
    }
  }
}
