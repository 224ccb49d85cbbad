/**
 * Differential test: a few hundred seeded random queries run on Quire and on PGlite (PostgreSQL 17) must
 * print the same results. Replay another seed with DIFF_SEED=n, more queries with DIFF_COUNT=n.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPglite, newQuire, type SqlConnection } from '../harness/connection.js';
import { differential, formatMismatch, referenceOutcomes, setup, type Outcome } from '../harness/differential.js';
import type { GeneratedQuery } from '../harness/query-gen.js';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const quireExists = existsSync(join(root, 'src', 'api', 'database.ts')) && existsSync(join(root, 'src', 'index.ts'));

const SEED = Number(process.env.DIFF_SEED ?? 20261202);
const COUNT = Number(process.env.DIFF_COUNT ?? 400);

describe('differential: random queries vs PostgreSQL', () => {
  let pg: SqlConnection;
  // PostgreSQL's answers are computed once and shared by both checks.
  let reference: { query: GeneratedQuery; outcome: Outcome }[];
  beforeAll(async () => {
    pg = await newPglite();
    const refused = await setup(pg, SEED);
    if (refused.length > 0) throw new Error(`PostgreSQL refused the generated data set:\n${refused.join('\n')}`);
    reference = await referenceOutcomes(pg, SEED, COUNT);
  }, 180_000);
  afterAll(async () => {
    await pg.close?.();
  });

  it('every generated query is valid PostgreSQL', async () => {
    // Guards the generator itself: a query PostgreSQL rejects tests nothing useful.
    const r = await differential(null, reference, SEED, COUNT);
    const bad = r.postgresErrors.slice(0, 5).map((e) => `#${e.index}: ${e.sql}\n  ${e.message}`);
    expect(r.postgresErrors.length, bad.join('\n')).toBe(0);
  });

  it.skipIf(!quireExists)(`Quire matches PostgreSQL on ${COUNT} queries (seed ${SEED})`, { timeout: 180_000 }, async () => {
    const quire = await newQuire();
    try {
      const refused = await setup(quire, SEED);
      const r = await differential(quire, reference, SEED, COUNT);
      const shown = r.mismatches.slice(0, 10).map(formatMismatch).join('\n\n');
      const setupNote = refused.length > 0 ? `Quire refused ${refused.length} setup statement(s) PostgreSQL accepts:\n${refused.slice(0, 5).join('\n')}\n\n` : '';
      expect(refused.length + r.mismatches.length, `${setupNote}${r.mismatches.length}/${r.queries} mismatches (seed ${SEED})\n\n${shown}`).toBe(0);
    } finally {
      await quire.close?.();
    }
  });
});
