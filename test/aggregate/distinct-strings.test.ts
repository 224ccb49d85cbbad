/**
 * Aggregates with DISTINCT over values whose key is a string (group-value-set.ts numbers each distinct
 * string once and keeps (group, number) pairs in a typed table): text computed per row, stored text,
 * bpchar (trailing spaces equal), numerics past 15 digits (their key is a string, beside the ones held
 * as doubles), and int8 values past 2^53 (bigint keys, kept in a set per group); with NULLs, FILTER,
 * many groups, a value first seen in one group and later in others, and aggregates that pass the kept
 * values on (string_agg, array_agg). Compared with PostgreSQL (PGlite). Past the dictionary's limit
 * (a Map holds at most 2^24 entries) strings go to a set per group: that path, with a lowered limit,
 * against a plain model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import { Database } from '../../src/index.js';
import { makeColumn } from '../../src/common/column.js';
import { T } from '../../src/common/types.js';
import { GroupValueSet } from '../../src/physical/group-value-set.js';
import { newPGlite } from '../common/pglite.js';
import { runOnBoth, textRowsOfBoth } from '../common/pg-text-rows.js';

let pg: PGlite;
let db: Database;

async function both(sql: string): Promise<void> {
  await runOnBoth(db, pg, sql);
}

async function same(sql: string): Promise<void> {
  const { ours, theirs } = await textRowsOfBoth(db, pg, sql);
  expect(ours.length, sql).toBeGreaterThan(0);
  expect(ours, sql).toEqual(theirs);
}

beforeAll(async () => {
  pg = await newPGlite();
  db = await Database.create();
  await both('CREATE TABLE t (i int4, g int4, s text, c char(6), n numeric, b int8)');
  // 30,000 rows in several batches: s repeats every 700 rows with a NULL every 11th; c has 40 values
  // padded to 6; n mixes short numerics with 18-digit ones (1.0 and 1.00 equal); b passes 2^53.
  await both(
    `INSERT INTO t SELECT i, i % 37,
       CASE WHEN i % 11 = 0 THEN NULL ELSE 'v' || (i % 700) END,
       'c' || (i % 40),
       CASE WHEN i % 3 = 0 THEN (i % 500)::numeric / 10 WHEN i % 3 = 1 THEN ((i % 500)::numeric / 10)::numeric(10,2) ELSE 123456789012345678 + (i % 250) END,
       9007199254740993 + (i % 300) * 2
     FROM generate_series(1, 30000) i`,
  );
}, 120_000);

afterAll(async () => {
  await pg?.close();
  await db?.close();
});

describe('DISTINCT over string keys', () => {
  it('text computed per row, grouped and not', async () => {
    await same("SELECT g % 10 AS b, count(DISTINCT CASE WHEN i % 10 = 0 THEN NULL ELSE s || '.' || (i % 7)::text END) FROM t GROUP BY 1 ORDER BY 1");
    await same("SELECT count(DISTINCT s || '.' || (i % 7)::text), count(DISTINCT lower(s)) FROM t");
    await same('SELECT g, count(DISTINCT s), count(s) FROM t GROUP BY g ORDER BY g');
    await same("SELECT g, count(DISTINCT s) FILTER (WHERE i % 2 = 0), count(DISTINCT s) FILTER (WHERE s > 'v5') FROM t GROUP BY g ORDER BY g");
  });

  it('one value in many groups is new to each', async () => {
    // Every group meets 'v1' (and the rest) at its own time; the dictionary numbers it once.
    await same("SELECT g, count(DISTINCT s), min(s), max(s) FROM t WHERE s IN ('v1', 'v2', 'v699') GROUP BY g ORDER BY g");
    await same('SELECT i % 2, count(DISTINCT s) FROM t GROUP BY 1 ORDER BY 1');
  });

  it('bpchar, numerics past 15 digits and int8 past 2^53', async () => {
    await same('SELECT g, count(DISTINCT c) FROM t GROUP BY g ORDER BY g');
    // Equal numerics of different scales (1.0, 1.00) are one value; which one a DISTINCT keeps is
    // PostgreSQL's sort's choice, and a sum's scale shows it: summed where equal values share a scale.
    await same('SELECT g, count(DISTINCT n), sum(DISTINCT n) FILTER (WHERE i % 3 <> 1) FROM t GROUP BY g ORDER BY g');
    await same('SELECT count(DISTINCT n), count(DISTINCT b), sum(DISTINCT b) FROM t');
    await same('SELECT g, count(DISTINCT b) FROM t GROUP BY g ORDER BY g');
  });

  it('aggregates that pass the kept values on', async () => {
    await same("SELECT g, string_agg(DISTINCT s, ',' ORDER BY s) FROM t WHERE i < 3000 GROUP BY g ORDER BY g");
    await same('SELECT g, array_length(array_agg(DISTINCT s), 1) FROM t GROUP BY g ORDER BY g');
  });
});

/**
 * Batches of `rows` rows through `set`, each row's group and string (null: NULL) from row(batch, k),
 * every row checked against a model: kept exactly when its (group, value) is new.
 */
function checkBatches(set: GroupValueSet, batches: number, rows: number, row: (batch: number, k: number) => [number, string | null]): void {
  const seen = new Set<string>();
  for (let batch = 0; batch < batches; batch++) {
    const n = rows;
    const data: (string | null)[] = [];
    const nulls = new Uint8Array(n);
    const gids = new Int32Array(n);
    for (let k = 0; k < n; k++) {
      const [g, v] = row(batch, k);
      gids[k] = g;
      data.push(v);
      if (v === null) nulls[k] = 1;
    }
    const out = new Int32Array(n);
    const kept = set.filter(makeColumn(T.text, data, nulls), gids, n, out);
    let expected = 0;
    for (let k = 0; k < n; k++) {
      const key = `${gids[k]}:${data[k] ?? '\u0000null'}`;
      const first = !seen.has(key);
      seen.add(key);
      if (out[k] !== (first ? gids[k] : -1)) expect(out[k], `batch ${batch} row ${k}`).toBe(first ? gids[k] : -1);
      if (first) expected++;
    }
    expect(kept).toBe(expected);
  }
}

describe('strings the dictionary stops numbering', () => {
  it('when nine in ten were new at its check: later strings go to the sets, earlier ones stay numbered', () => {
    const set = new GroupValueSet(T.text, 16_000_000, 64);
    // Batch 0: 200 new strings over 5 groups; then batches that repeat them (numbered or not) among new ones.
    checkBatches(set, 6, 200, (batch, k) => {
      const i = batch === 0 ? k : (k * 37 + batch * 11) % (200 + batch * 40);
      return [i % 5, i % 17 === 0 && batch > 0 ? null : `u${i}`];
    });
    expect(set.stringsNumbered).toBe(64);
  });

  it('not while strings repeat', () => {
    const set = new GroupValueSet(T.text, 16_000_000, 64);
    // 150 strings, each met in several groups before the 64th is new.
    checkBatches(set, 8, 300, (batch, k) => {
      const i = batch * 300 + k;
      return [i % 9, `r${Math.floor(i / 9) % 150}`];
    });
    expect(set.stringsNumbered).toBe(150);
  });
});

describe('strings past the dictionary limit', () => {
  it('go to their groups\' sets, and each (group, string) is kept once either way', () => {
    const set = new GroupValueSet(T.text, 50);
    // 300 rows a batch: 120 strings over 7 groups, NULL every 13th; later batches repeat earlier ones.
    checkBatches(set, 4, 300, (batch, k) => {
      const i = k * 7 + batch * 31;
      return [i % 7, i % 13 === 0 ? null : `s${i % 120}`];
    });
    // The first 50 strings numbered, the other 70 held by the groups' sets.
    expect(set.stringsNumbered).toBe(50);
  });
});
