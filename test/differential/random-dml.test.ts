/**
 * Differential test of DML: seeded random UPDATE [… FROM], DELETE [… USING], INSERT … SELECT [ON CONFLICT]
 * with RETURNING, and recursive and data-modifying WITH queries, run in sequence on Quire and on PGlite
 * (PostgreSQL 17); after each statement its outcome and both tables' rows must match. Replay other
 * seeds with DIFF_DML_SEED=n (first seed) and DIFF_DML_SEEDS=n (how many), statements per seed with
 * DIFF_DML_COUNT=n.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPglite, newQuire, type SqlConnection } from '../harness/connection.js';
import { dmlDifferential, formatMismatch, type Mismatch } from '../harness/differential.js';

const FIRST = Number(process.env.DIFF_DML_SEED ?? 20261204);
const SEEDS = Number(process.env.DIFF_DML_SEEDS ?? 20);
const COUNT = Number(process.env.DIFF_DML_COUNT ?? 12);

describe('differential: random DML vs PostgreSQL', () => {
  let pg: SqlConnection;
  let quire: SqlConnection;
  beforeAll(async () => {
    pg = await newPglite();
    quire = await newQuire();
  }, 180_000);
  afterAll(async () => {
    await pg?.close?.();
    await quire?.close?.();
  });

  it(`Quire matches PostgreSQL on ${SEEDS} runs of ${COUNT} statements`, { timeout: 600_000 }, async () => {
    const mismatches: Mismatch[] = [];
    const pgErrors: string[] = [];
    let statements = 0;
    for (let k = 0; k < SEEDS; k++) {
      const r = await dmlDifferential(quire, pg, FIRST + k, COUNT);
      statements += r.statements;
      mismatches.push(...r.mismatches);
      pgErrors.push(...r.postgresErrors);
    }
    expect(pgErrors.length, `PostgreSQL rejected generated statements:\n${pgErrors.slice(0, 5).join('\n')}`).toBe(0);
    expect(mismatches.length, `${mismatches.length} of ${SEEDS} runs diverged (${statements} statements)\n\n${mismatches.slice(0, 8).map(formatMismatch).join('\n\n')}`).toBe(0);
    expect(statements).toBe(SEEDS * COUNT);
  });
});
