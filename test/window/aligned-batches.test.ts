/**
 * A Sort below a Window ends its output batches between two partitions (Sort's groupPrefix), so the
 * Window finds partitions whole instead of copying the one that straddles two batches. Checked twice:
 * on the operator (same rows in the same order as without alignment; batches end on partition
 * changes wherever a partition ends in the last three quarters of a batch; a partition up to four
 * batches long that starts in a batch comes out whole in one stretched batch; larger partitions still
 * come out in full batches), and through SQL against PostgreSQL with partitions of one
 * row, of about a quarter batch, and larger than a batch, keyed by int with NULLs, float8 and
 * (int, timestamp).
 */
import { describe, expect, it } from 'vitest';
import { T, type Field, type Value } from '../../src/common/types.js';
import { batchRows, BATCH_SIZE, ColumnBuilder, type Batch } from '../../src/common/column.js';
import { ExternalSort } from '../../src/physical/operators/external-sort.js';
import type { SortKey } from '../../src/physical/sort-key.js';
import { makeCtx, rng, Source } from '../operators/helpers.js';
import { agreementSuite } from '../harness/agree.js';

const FIELDS: Field[] = [
  { name: 'g', type: T.int4 },
  { name: 'ts', type: T.timestamp },
  { name: 'v', type: T.float8 },
];

/** n rows: g drawn from `groups` values (sizes n / groups on average) with NULLs, timestamps, doubles. */
function input(n: number, groups: number, seed: number): Batch[] {
  const r = rng(seed);
  const out: Batch[] = [];
  for (let s = 0; s < n; s += 3000) {
    const m = Math.min(3000, n - s);
    const bs = FIELDS.map((f) => new ColumnBuilder(f.type, m));
    for (let i = 0; i < m; i++) {
      bs[0]!.push(r() < 0.03 ? null : Math.floor(r() * groups));
      bs[1]!.push((1.6e9 + Math.floor(r() * 1e5)) * 1e6);
      bs[2]!.push(r() * 100);
    }
    out.push({ columns: bs.map((b) => b.finish()), length: m });
  }
  return out;
}

const KEYS: SortKey[] = [
  { col: 0, type: T.int4, desc: false, nullsFirst: false },
  { col: 1, type: T.timestamp, desc: true, nullsFirst: false },
];

async function sorted(batches: Batch[], groupPrefix: number): Promise<Batch[]> {
  const out: Batch[] = [];
  for await (const b of new ExternalSort(new Source(FIELDS, batches), KEYS, 0, groupPrefix).execute(makeCtx())) out.push(b);
  return out;
}

const g0 = (b: Batch, i: number): Value => batchRows(b)[i]![0]!;

describe('Sort output batches aligned to partitions', () => {
  for (const [name, rows, groups] of [
    ['partitions of ~400 rows', 80_000, 200],
    ['partitions of ~2 rows', 20_000, 10_000],
    ['partitions larger than a batch', 60_000, 6],
    ['partitions larger than four batches', 60_000, 2],
  ] as const) {
    it(`${name}: same rows, batches end between partitions`, async () => {
      const data = input(rows, groups, rows + groups);
      const plain = await sorted(data, 0);
      const aligned = await sorted(data, 1);
      expect(aligned.flatMap((b) => batchRows(b))).toEqual(plain.flatMap((b) => batchRows(b)));
      let ends = 0;
      for (let k = 0; k + 1 < aligned.length; k++) {
        const b = aligned[k]!;
        const next = aligned[k + 1]!;
        // Stretched to end with a partition, a batch holds at most four batches' rows.
        expect(b.length).toBeLessThanOrEqual(BATCH_SIZE * 4);
        if (g0(b, b.length - 1) !== g0(next, 0)) ends++;
        // A batch cut short or stretched must end on a partition change.
        else expect(b.length).toBe(BATCH_SIZE);
      }
      if (groups === 6) {
        // Partitions of ~10,000 rows (and the NULL one): each comes out whole, as one batch.
        expect(ends).toBe(aligned.length - 1);
        for (const b of aligned) expect(g0(b, 0)).toBe(g0(b, b.length - 1));
        expect(aligned.some((b) => b.length > BATCH_SIZE)).toBe(true);
      } else if (groups === 2) {
        // Partitions of ~30,000 rows: full batches, except where a change lay in the last three quarters.
        expect(aligned.filter((b) => b.length === BATCH_SIZE).length).toBeGreaterThan(aligned.length - 4);
      } else {
        // Partitions smaller than a quarter batch: every batch but the last ends on a change.
        expect(ends).toBe(aligned.length - 1);
        expect(aligned.length).toBeGreaterThan(plain.length - 1);
      }
    });
  }
});

function setupSql(): string[] {
  const r = rng(77);
  const vals: string[] = [];
  for (let i = 1; i <= 30_000; i++) {
    // Sizes vary along the table: one-row partitions, ~1,000-row partitions, and two of ~6,000 rows.
    const g = i <= 3000 ? i : i <= 18_000 ? 3000 + Math.floor(r() * 15) : i <= 24_000 ? (r() < 0.05 ? 'NULL' : '9001') : '9002';
    const f = `${Math.floor(r() * 40) / 4}`;
    const ts = `timestamp '2022-01-01' + interval '${Math.floor(r() * 500)} hours'`;
    vals.push(`(${i}, ${g}, ${f}, ${ts}, ${Math.floor(r() * 1000)})`);
  }
  return ['CREATE TABLE ab (id int, g int, f float8, ts timestamp, x int)', `INSERT INTO ab VALUES ${vals.join(', ')}`];
}

describe('windows over partition-aligned sort output vs PostgreSQL', () => {
  const { agree } = agreementSuite(setupSql);
  it('row_number, rank, lag, sums and counts over int, float and (int, timestamp) partitions', async () => {
    await agree([
      'SELECT id, row_number() OVER w, rank() OVER (PARTITION BY g ORDER BY x), lag(x) OVER w, sum(x) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING), count(*) OVER (PARTITION BY g) FROM ab WINDOW w AS (PARTITION BY g ORDER BY id) ORDER BY id',
      'SELECT id, dense_rank() OVER (PARTITION BY f ORDER BY x), sum(x) OVER (PARTITION BY f ORDER BY x, id ROWS BETWEEN 10 PRECEDING AND CURRENT ROW), first_value(id) OVER (PARTITION BY f ORDER BY id) FROM ab ORDER BY id',
      'SELECT id, row_number() OVER (PARTITION BY g % 7, ts ORDER BY id), count(*) OVER (PARTITION BY g % 7, ts), max(x) OVER (PARTITION BY g % 7, ts) FROM ab ORDER BY id',
      'SELECT count(*), sum(rn), sum(c) FROM (SELECT row_number() OVER (PARTITION BY g ORDER BY ts DESC, id) AS rn, count(*) OVER (PARTITION BY g ORDER BY ts DESC) AS c FROM ab) s',
    ]);
  }, 300_000);
});
