/**
 * Per-partition Top-N on text partition keys, which take ids from a typed open-addressing string table
 * (topn-ranking-string-ids.ts): stored and computed text keys with multibyte characters and NULLs,
 * several thousand keys over many batches (long probe chains, table growth), text with an int as a
 * two-column key; row_number / rank / dense_rank with k = 1, 3, 10. Each query is checked against PGlite
 * and against Quire with the rewrite off. The table itself is checked with a hash under which every key
 * collides, so equal hashes must still be told apart by the strings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeText, pgliteAndQuire, quireConnection, type SqlConnection } from '../harness/connection.js';
import { Database, formatValue } from '../../src/index.js';
import { makeColumn, type Batch } from '../../src/common/column.js';
import { T } from '../../src/common/types.js';
import { StringIds, stringHash } from '../../src/physical/operators/topn-ranking-string-ids.js';
import { PartitionIds } from '../../src/physical/operators/topn-ranking.js';

const ROWS = 12_000;

/** h is a scrambled 0..1000002; t has ~2,500 distinct values per prefix, about 1 row in 15 NULL. */
const SETUP = [
  `CREATE TABLE tk AS SELECT i AS id,
     CASE WHEN i % 15 = 0 THEN NULL ELSE (ARRAY['ä', '日本', 'Ω𝄞', 'x', ''])[1 + (h % 5)] || ((h / 7) % 2500)::text END AS t,
     ((h % 97) - 40)::float8 / 4 AS v,
     (h % 13) AS o
   FROM (SELECT i, (i * 7919) % 1000003 AS h FROM generate_series(1, ${ROWS}) i) s`,
];

const PARTS = ['t', "t || ':' || (id % 3)::text", "coalesce(t, '∅') || (o % 2)::text", 't, id % 4', 'o, t'];
const ORDERS = ['v', 'v DESC NULLS LAST', 'o, v DESC', 'id DESC'];
const FNS = ['row_number', 'rank', 'dense_rank'];
const KS = [1, 3, 10];

describe('per-partition Top-N on text partition keys', () => {
  let pg: SqlConnection;
  let q: SqlConnection;
  beforeAll(async () => {
    ({ pg, q } = await pgliteAndQuire(SETUP, quireConnection(await Database.create(), formatValue)));
  }, 120_000);
  afterAll(async () => {
    await pg.close?.();
  });

  it('agrees with the rule disabled and with PostgreSQL', async () => {
    const failures: string[] = [];
    let n = 0;
    for (const part of PARTS) {
      for (const order of ORDERS) {
        for (const fn of FNS) {
          const k = KS[n++ % KS.length]!;
          // row_number over ties keeps arbitrary rows: id, unique, makes PostgreSQL's answer the only one.
          const o = fn === 'row_number' ? `${order}, id` : order;
          const sql = `SELECT id, rn FROM (SELECT *, ${fn}() OVER (PARTITION BY ${part} ORDER BY ${o}) AS rn FROM tk) x WHERE rn <= ${k} ORDER BY id`;
          await q.query("SET quire.disabled_rules = 'derive-topn-from-window'");
          const off = await outcomeText(q, sql);
          await q.query('RESET quire.disabled_rules');
          await q.query("SET quire.derive_topn = 'on'");
          const on = await outcomeText(q, sql);
          const plan = (await q.query(`EXPLAIN (FORMAT QUIRE) ${sql}`)).rows.map((r) => r[0]).join('\n');
          await q.query('RESET quire.derive_topn');
          const want = await outcomeText(pg, sql);
          if (!plan.includes('TopNRanking')) failures.push(`no TopNRanking: ${sql}`);
          if (on !== want) failures.push(`[postgres] ${sql}\n  pg:    ${want.slice(0, 200)}\n  quire: ${on.slice(0, 200)}`);
          if (off !== want) failures.push(`[rule off] ${sql}\n  pg:    ${want.slice(0, 200)}\n  quire: ${off.slice(0, 200)}`);
          if (on.startsWith('ERROR') || on.length < 100) failures.push(`too few rows: ${sql}: ${on.slice(0, 200)}`);
        }
      }
    }
    expect(failures.slice(0, 6), failures.slice(0, 6).join('\n\n')).toEqual([]);
  }, 600_000);

  it('counts one partition per distinct computed key', async () => {
    const sql = "SELECT t, rn FROM (SELECT t, row_number() OVER (PARTITION BY t || '|' || (id % 2)::text ORDER BY v, id) AS rn FROM tk) x WHERE rn = 1";
    await q.query("SET quire.derive_topn = 'on'");
    const a = (await q.query(`EXPLAIN (FORMAT QUIRE, ANALYZE) ${sql}`)).rows.map((r) => r[0]).join('\n');
    await q.query('RESET quire.derive_topn');
    const want = (await pg.query(`SELECT count(DISTINCT t || '|' || (id % 2)::text) + 1 FROM tk`)).rows[0]![0];
    const m = /partitions=(\d+)/.exec(a);
    expect(m, a).not.toBeNull();
    // NULL || text is NULL: every NULL key is one more partition.
    expect(Number(m![1])).toBe(Number(want));
  }, 60_000);
});

describe('StringIds', () => {
  const keys: string[] = [];
  for (let i = 0; i < 5000; i++) keys.push(['', 'ä', '日本', 'Ω𝄞', 'x'][i % 5]! + String(Math.floor(i / 5)));

  for (const [name, hash] of [
    ['its own hash', stringHash],
    ['a hash under which every key collides', (): number => 7],
  ] as const) {
    it(`gives equal strings one id and different strings different ids (${name})`, () => {
      const ids = new StringIds(hash);
      const n = name.startsWith('a hash') ? 600 : keys.length;
      const first: number[] = [];
      for (let i = 0; i < n; i++) expect(ids.idOf(keys[i]!, 1000 + i)).toBe(1000 + i);
      // Strings built afresh (not the same objects) find the same ids.
      for (let i = n - 1; i >= 0; i--) first.push(ids.idOf(keys[i]!.split('').join(''), -1));
      expect(first.reverse()).toEqual(Array.from({ length: n }, (_, i) => 1000 + i));
      expect(ids.size).toBe(n);
      expect(ids.bytes).toBeGreaterThan(0);
    });
  }

  it('hashes by code units: strings differing only in a surrogate half or in order differ', () => {
    expect(stringHash('ab')).not.toBe(stringHash('ba'));
    expect(stringHash('\ud834\udd1e')).not.toBe(stringHash('\ud834\udd1f'));
    expect(stringHash('')).toBe(stringHash(''));
  });

  it('assigns ids for a text column under colliding hashes, sharing one id space with NULL', () => {
    const pids = new PartitionIds([0], [T.text], () => 0);
    const data = ['a', 'b', null, 'a', 'ä', 'b', null, 'ä', 'a'];
    const nulls = Uint8Array.from(data, (x) => (x === null ? 1 : 0));
    const b: Batch = { columns: [makeColumn(T.text, data.map((x) => x ?? ''), nulls)], length: data.length };
    const got = Array.from(pids.assign(b).subarray(0, data.length));
    expect(got).toEqual([0, 1, 2, 0, 3, 1, 2, 3, 0]);
    expect(pids.count).toBe(4);
  });
});
