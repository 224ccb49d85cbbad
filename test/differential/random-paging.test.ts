/**
 * Differential paging: seeded random queries (keyless duplicates under the query's own LIMIT / OFFSET,
 * partial orders, timestamps across PostgreSQL's whole range as keys) are paged at several fetch sizes,
 * down to 1; the concatenated pages must equal PostgreSQL's unpaged result, in order when the query's
 * ORDER BY is total and as a multiset otherwise (the ORDER BY columns, if any, still in PostgreSQL's
 * sequence), and the pages must have paging's shape. Replay another seed with DIFF_SEED=n, more queries
 * with PAGING_COUNT=n.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { Pager } from '../../src/cursor/pager.js';
import { newPglite, type SqlConnection } from '../harness/connection.js';
import { run } from '../harness/differential.js';
import { multiset, pageAll, pageShapeProblem, pageText, rowKey } from '../harness/paging.js';
import { pagingQuery, setupSql, type GeneratedQuery } from '../harness/query-gen.js';

const SEED = Number(process.env.DIFF_SEED ?? 20261202);
const COUNT = Number(process.env.PAGING_COUNT ?? 120);
const FETCH_SIZES = [1, 2, 3, 5];

type Row = (string | null)[];

/** null when the paged rows are PostgreSQL's unpaged rows, as the query's ORDER BY defines them. */
function compareRows(q: GeneratedQuery, got: Row[], want: Row[]): string | null {
  if (got.length !== want.length) return `${got.length} rows, PostgreSQL ${want.length}`;
  const a = q.ordered ? got.map(rowKey) : multiset(got);
  const b = q.ordered ? want.map(rowKey) : multiset(want);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return `${q.ordered ? 'row' : 'sorted row'} ${i + 1}: ${a[i]} vs ${b[i]}`;
  if (!q.ordered && q.orderCols) {
    const pick = (r: Row): string => rowKey(q.orderCols!.map((c) => r[c] ?? null));
    for (let i = 0; i < got.length; i++) if (pick(got[i]!) !== pick(want[i]!)) return `ORDER BY columns of row ${i + 1}: ${pick(got[i]!)} vs ${pick(want[i]!)}`;
  }
  return null;
}

describe('differential: paged random queries vs PostgreSQL', () => {
  let pg: SqlConnection;
  let db: Database;
  const refused: string[] = [];
  beforeAll(async () => {
    pg = await newPglite();
    db = await Database.create();
    for (const s of setupSql(SEED)) {
      await pg.query(s);
      // A statement Quire refuses costs only its rows (see query-gen's header); it is reported below.
      await db.query(s).catch((e: unknown) => refused.push(`${s}: ${(e as Error).message}`));
    }
  }, 120_000);
  afterAll(async () => {
    await pg.close?.();
    await db.close();
  });

  it(`pages of ${COUNT} queries at fetch sizes ${FETCH_SIZES.join(', ')} equal the unpaged result (seed ${SEED})`, { timeout: 180_000 }, async () => {
    const failures: string[] = [];
    const pager = new Pager(db);
    for (let i = 0; i < COUNT; i++) {
      const q = pagingQuery(SEED, i);
      const o = await run(pg, q.sql);
      if (!o.ok) {
        failures.push(`#${i}: PostgreSQL refused ${q.sql}: ${o.message}`);
        continue;
      }
      const want = o.result.rows;
      for (const fetchSize of FETCH_SIZES) {
        let problem: string | null;
        let got: Row[] = [];
        try {
          const { pages } = await pageAll(pager, q.sql, fetchSize);
          got = pageText(pages);
          problem = compareRows(q, got, want) ?? pageShapeProblem(pages, want.length, fetchSize);
        } catch (e) {
          problem = `error: ${(e as Error).message}`;
        }
        if (problem !== null) {
          failures.push(`#${i} fetch ${fetchSize}: ${q.sql}\n  ${problem}\n  postgres: ${want.slice(0, 12).map(rowKey).join(' ')}\n  quire:    ${got.slice(0, 12).map(rowKey).join(' ')}`);
          break;
        }
      }
    }
    const setupNote = refused.length > 0 ? `Quire refused ${refused.length} setup statement(s) PostgreSQL accepts:\n${refused.slice(0, 3).join('\n')}\n\n` : '';
    expect(refused.length + failures.length, `${setupNote}${failures.length} paged queries differ (seed ${SEED})\n\n${failures.slice(0, 8).join('\n\n')}`).toBe(0);
  });
});
