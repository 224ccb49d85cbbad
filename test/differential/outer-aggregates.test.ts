/**
 * Differential test: seeded random queries with aggregates over an enclosing query's columns written
 * inside sub-SELECTs (grouped and ungrouped owners, FILTER, HAVING EXISTS, misplaced ones that must fail)
 * must give PostgreSQL's rows or SQLSTATE. DIFF_SEED=n / DIFF_COUNT=n replay other seeds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPglite, newQuire, type SqlConnection } from '../harness/connection.js';
import { compareOutcomes, run, setup, showOutcome } from '../harness/differential.js';
import { outerAggregateQuery } from '../harness/query-gen.js';

const SEED = Number(process.env.DIFF_SEED ?? 20261204);
const COUNT = Number(process.env.DIFF_COUNT ?? 150);

describe('differential: aggregates of an enclosing query vs PostgreSQL', () => {
  let pg: SqlConnection;
  let quire: SqlConnection;
  beforeAll(async () => {
    pg = await newPglite();
    quire = await newQuire();
    const refusedPg = await setup(pg, SEED);
    const refusedQuire = await setup(quire, SEED);
    if (refusedPg.length + refusedQuire.length > 0) throw new Error(`setup refused:\n${[...refusedPg, ...refusedQuire].join('\n')}`);
  }, 180_000);
  afterAll(async () => {
    await pg.close?.();
    await quire.close?.();
  });

  it(`Quire matches PostgreSQL on ${COUNT} queries (seed ${SEED})`, { timeout: 180_000 }, async () => {
    const mismatches: string[] = [];
    let failedOnBoth = 0;
    for (let i = 0; i < COUNT; i++) {
      const q = outerAggregateQuery(SEED, i);
      const p = await run(pg, q.sql);
      const m = await run(quire, q.sql);
      if (!p.ok && !m.ok) failedOnBoth++;
      const reason = compareOutcomes(q, m, p);
      if (reason !== null) mismatches.push(`#${i}: ${q.sql}\n  ${reason}\n  quire: ${showOutcome(m)}\n  postgres: ${showOutcome(p)}`);
    }
    expect(mismatches.length, mismatches.slice(0, 8).join('\n\n')).toBe(0);
    // Most queries must run: the shapes are meant to test results, the misplaced ones only sometimes.
    expect(failedOnBoth).toBeLessThan(COUNT / 4);
  });
});
