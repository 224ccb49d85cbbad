/**
 * Columns a query computes die young. V8 may decide, per allocation site, to allocate an object straight
 * in the old generation once most of its objects survived; stored columns are long-lived, so a site
 * shared with them gets that decision, and a column born old keeps the values it points to (a string
 * per row) alive through every young-generation collection until the next full one. Measured here as
 * the old generation's growth over one query that builds a string per row and keeps none of them.
 */
import { describe, expect, it } from 'vitest';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Database } from '../../src/index.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const oldSpace = (): number => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!.space_used_size;

describe('transient columns', () => {
  it('a string per row computed and dropped by a query does not grow the old generation', async () => {
    const n = 400_000;
    const db = await Database.create();
    const id = new Int32Array(n);
    const g = new Int32Array(n);
    const v = new Float64Array(n);
    const k = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      id[i] = i;
      g[i] = i % 1000;
      v[i] = i / 7;
      k[i] = (i * 7919) % 10000;
    }
    // Several stored columns: enough long-lived columns for the allocation-site statistics to see them survive.
    db.registerColumns('t', { id, g, v, k }, { id: 'integer', g: 'integer', v: 'double precision', k: 'integer' });
    const sql = "SELECT count(x) FROM (SELECT 'k' || CAST(id AS text) AS x FROM t) s";
    for (let i = 0; i < 3; i++) expect((await db.query(sql)).rows).toEqual([[n]]);
    gc();
    const before = oldSpace();
    expect((await db.query(sql)).rows).toEqual([[n]]);
    const grown = oldSpace() - before;
    // The strings alone are about 24 bytes a row; promoted, they grew the old generation by most of that.
    expect(grown).toBeLessThan(n * 4);
  }, 120_000);
});
