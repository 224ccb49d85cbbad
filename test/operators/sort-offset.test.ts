/**
 * ORDER BY … OFFSET m without LIMIT: the Sort drops its first m rows itself (no Limit above it, the
 * skipped rows never gathered). Checked against PostgreSQL (PGlite) across batch boundaries, offsets at
 * and past the end, text keys with multibyte characters and NULLs, computed keys, DESC and NULLS
 * FIRST/LAST, LIMIT ALL and an OFFSET known only at run time; and through ExternalSort's spilled merge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchRows } from '../../src/common/column.js';
import type { Value } from '../../src/common/types.js';
import type { ExecContext } from '../../src/execution/context.js';
import { PhysicalOperator } from '../../src/physical/operator.js';
import { ExternalSort } from '../../src/physical/operators/external-sort.js';
import { Sort } from '../../src/physical/operators/sort.js';
import type { SortKey } from '../../src/physical/sort-key.js';
import { outcomeText as outcome, pgliteAndQuire, type SqlConnection } from '../harness/connection.js';
import { FUZZ_FIELDS, fuzzBatches, rowKey, spillCtx, tempDir } from '../spill/helpers.js';
import { rng, Source } from './helpers.js';

const WORDS = ['', 'a', 'A', 'ab', 'b', 'é', 'ß', '日本', '日本語', '😀', 'a😀', 'zz', 'a b', "o'k", 'x'.repeat(40), 'x'.repeat(40) + 'é'];
const ROWS = 9000;
const q = (s: string): string => `'${s.replace(/'/g, "''")}'`;

let pg: SqlConnection;
let quire: SqlConnection;

beforeAll(async () => {
  const r = rng(17);
  const setup = ['CREATE TABLE s (id int, t text, v int, f float8)'];
  for (let c = 0; c < ROWS; c += 1000) {
    const vals: string[] = [];
    for (let i = c; i < c + 1000; i++) {
      const t = r() < 0.1 ? 'NULL' : q(WORDS[Math.floor(r() * WORDS.length)]! + (r() < 0.5 ? String(Math.floor(r() * 30)) : ''));
      const v = r() < 0.1 ? 'NULL' : String(Math.floor(r() * 200) - 100);
      vals.push(`(${i}, ${t}, ${v}, ${(r() * 100).toFixed(3)})`);
    }
    setup.push(`INSERT INTO s VALUES ${vals.join(', ')}`);
  }
  ({ pg, q: quire } = await pgliteAndQuire(setup));
}, 300_000);

afterAll(async () => {
  await pg.close?.();
  await quire.close?.();
});

async function agree(sqls: readonly string[]): Promise<void> {
  for (const sql of sqls) {
    const want = await outcome(pg, sql);
    expect(want.startsWith('ERROR'), `${sql}\n${want}`).toBe(false);
    expect(await outcome(quire, sql), sql).toBe(want);
  }
}

const OFFSETS = [0, 1, 4095, 4096, 4097, 8999, 9000, 12000];

describe('ORDER BY … OFFSET (Sort drops the offset rows)', () => {
  it('text keys, every direction and NULL placement, offsets across batch boundaries and past the end', async () => {
    const sqls: string[] = [];
    for (const dir of ['ASC NULLS FIRST', 'ASC NULLS LAST', 'DESC NULLS FIRST', 'DESC NULLS LAST']) {
      for (const off of OFFSETS) sqls.push(`SELECT t, id FROM s ORDER BY t ${dir}, id OFFSET ${off}`);
    }
    await agree(sqls);
  }, 300_000);

  it('computed keys (extra sort columns dropped after the sort), numeric keys, LIMIT ALL', async () => {
    const sqls: string[] = [];
    for (const off of [0, 5, 4100, 8995]) {
      sqls.push(`SELECT id FROM s ORDER BY 'k' || CAST(id * 7919 % ${ROWS} AS text), id OFFSET ${off}`);
      sqls.push(`SELECT t, id FROM (SELECT CASE WHEN v % 10 = 0 THEN NULL ELSE t END AS t, id FROM s) x ORDER BY t NULLS FIRST, id OFFSET ${off}`);
      sqls.push(`SELECT v, id FROM s ORDER BY v DESC, id OFFSET ${off}`);
      sqls.push(`SELECT f FROM s ORDER BY f LIMIT ALL OFFSET ${off}`);
      sqls.push(`SELECT v, count(*) FROM s GROUP BY v ORDER BY v NULLS FIRST OFFSET ${off % 150}`);
    }
    await agree(sqls);
  }, 300_000);

  it('OFFSET known only at run time and a negative OFFSET', async () => {
    await agree(['SELECT t, id FROM s ORDER BY t, id OFFSET (SELECT 4500)', 'SELECT t, id FROM s ORDER BY t DESC, id LIMIT ALL OFFSET (SELECT max(v) FROM s)']);
    const bad = 'SELECT id FROM s ORDER BY id OFFSET -1';
    expect(await outcome(quire, bad)).toBe(await outcome(pg, bad));
  }, 300_000);

  it('EXPLAIN shows the offset on the Sort, with no Limit above it', async () => {
    const plan = await outcome(quire, 'EXPLAIN (FORMAT QUIRE) SELECT t, id FROM s ORDER BY t, id OFFSET 7');
    expect(plan).toMatch(/^Sort \(keys: \[t ASC, id ASC\], offset: 7\)/);
    expect(plan).not.toMatch(/Limit/);
  });
});


async function rowsOf(op: PhysicalOperator, ctx: ExecContext): Promise<Value[][]> {
  const out: Value[][] = [];
  for await (const b of op.execute(ctx)) for (const row of batchRows(b)) out.push(row);
  return out;
}

describe('ExternalSort with an offset', () => {
  it('spilled merge and in-memory sort drop the same leading rows as slicing the full sort', async () => {
    const batches = fuzzBatches(21, 12_000, FUZZ_FIELDS, 700);
    const keys: SortKey[] = [
      { col: 3, type: FUZZ_FIELDS[3]!.type, desc: false, nullsFirst: true },
      { col: 0, type: FUZZ_FIELDS[0]!.type, desc: true, nullsFirst: false },
    ];
    const full = (await rowsOf(new Sort(new Source(FUZZ_FIELDS, batches), keys), spillCtx({}))).map(rowKey);
    for (const off of [0, 1, 699, 4096, 11_999, 12_000, 20_000]) {
      const d = tempDir();
      try {
        const spilled = new ExternalSort(new Source(FUZZ_FIELDS, batches), keys, off);
        const got = await rowsOf(spilled, spillCtx({ memory_limit: '1MB', temp_directory: d.dir }));
        expect(spilled.metrics.extra['sort method']).toBe('external merge');
        expect(got.map(rowKey), `offset ${off} spilled`).toEqual(full.slice(off));
        expect(d.files()).toEqual([]);
      } finally {
        d.remove();
      }
      const mem = await rowsOf(new ExternalSort(new Source(FUZZ_FIELDS, batches), keys, off), spillCtx({}));
      expect(mem.map(rowKey), `offset ${off} in memory`).toEqual(full.slice(off));
    }
  }, 120_000);
});
