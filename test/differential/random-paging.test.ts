/**
 * Differential paging: seeded random queries (keyless duplicates under the query's own LIMIT / OFFSET,
 * partial orders, timestamps across PostgreSQL's whole range as keys) are paged with db.paginate at
 * several fetch sizes, down to 1; the concatenated pages must equal PostgreSQL's unpaged result, in order
 * when the query's ORDER BY is total and as a multiset otherwise. Replay another seed with
 * DIFF_SEED=n, more queries with PAGING_COUNT=n.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, formatValue } from '../../src/index.js';
import { newPglite, type SqlConnection } from '../harness/connection.js';
import { pagingQuery, setupSql } from '../harness/query-gen.js';

const SEED = Number(process.env.DIFF_SEED ?? 20261202);
const COUNT = Number(process.env.PAGING_COUNT ?? 60);
const FETCH_SIZES = [1, 2, 3, 5];

async function pagedText(db: Database, sql: string, fetchSize: number): Promise<string[]> {
  const out: string[] = [];
  let page = await db.paginate(sql, { fetchSize });
  for (let guard = 0; ; guard++) {
    if (guard > 10_000) throw new Error('paging did not end');
    if (page.rows.length === 0 && page.cursor !== null) throw new Error('an empty page carried a cursor');
    for (const r of page.rows) out.push(JSON.stringify(r.map((v, i) => formatValue(v, page.columns[i]!.type, { timezone: 'UTC' }))));
    if (page.cursor === null) return out;
    page = await db.resume(page.cursor);
  }
}

describe('differential: paged random queries vs PostgreSQL', () => {
  let pg: SqlConnection;
  let db: Database;
  beforeAll(async () => {
    pg = await newPglite();
    db = await Database.create();
    for (const s of setupSql(SEED)) {
      await pg.query(s);
      await db.query(s);
    }
  }, 120_000);
  afterAll(async () => {
    await pg.close?.();
  });

  it(`pages of ${COUNT} queries at fetch sizes ${FETCH_SIZES.join(', ')} equal the unpaged result (seed ${SEED})`, { timeout: 180_000 }, async () => {
    const failures: string[] = [];
    for (let i = 0; i < COUNT; i++) {
      const q = pagingQuery(SEED, i);
      const expected = (await pg.query(q.sql)).rows.map((r) => JSON.stringify(r));
      if (!q.ordered) expected.sort();
      for (const fetchSize of FETCH_SIZES) {
        let got: string[];
        try {
          got = await pagedText(db, q.sql, fetchSize);
        } catch (e) {
          failures.push(`#${i} fetch ${fetchSize}: ${q.sql}\n  error: ${(e as Error).message}`);
          continue;
        }
        if (!q.ordered) got.sort();
        if (JSON.stringify(got) !== JSON.stringify(expected)) {
          failures.push(`#${i} fetch ${fetchSize}: ${q.sql}\n  postgres: ${expected.slice(0, 12).join(' ')}\n  quire:    ${got.slice(0, 12).join(' ')}`);
          break;
        }
      }
    }
    expect(failures.length, `${failures.length} paged queries differ (seed ${SEED})\n\n${failures.slice(0, 8).join('\n\n')}`).toBe(0);
  });
});
