/**
 * avg, variance and stddev of float8 keep PostgreSQL's float8_accum state {N, Sx, Sxx} step by step. The
 * grouped accumulator commits the common step (finite results, a group that already has rows) after one
 * test and sends every other step to the full rule; these tests hold it to float8_accum as PostgreSQL
 * writes it: bit for bit against a reference written here (through update and updateSel, with NULLs,
 * NaN, ±Infinity, -0, huge values and the first row of each group), and against PGlite for results and
 * the overflow error through SQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { T } from '../../src/common/types.js';
import { makeColumn } from '../../src/common/column.js';
import { lookupAggregate } from '../../src/functions/aggregate/registry.js';
import { QuireError } from '../../src/common/errors.js';
import { SqlDiff } from '../functions/sql-diff.js';
import { rng } from '../common/pg-helper.js';

/** float8_accum and the final functions as PostgreSQL's float.c writes them, one row at a time. */
class Reference {
  n: number[] = [];
  sx: number[] = [];
  sxx: number[] = [];
  add(g: number, v: number): void {
    const n0 = this.n[g] ?? 0;
    const sx0 = this.sx[g] ?? 0;
    let sxx = this.sxx[g] ?? 0;
    const n1 = n0 + 1;
    const sx1 = sx0 + v;
    if (n0 > 0) {
      const tmp = v * n1 - sx1;
      sxx += (tmp * tmp) / (n1 * n0);
      if (!Number.isFinite(sx1) || !Number.isFinite(sxx)) {
        if (Number.isFinite(sx0) && Number.isFinite(v)) throw new Error('overflow');
        sxx = NaN;
      }
    } else if (!Number.isFinite(v)) sxx = NaN;
    this.n[g] = n1;
    this.sx[g] = sx1;
    this.sxx[g] = sxx;
  }
}

const VALUES = [NaN, Infinity, -Infinity, -0, 0, 1e200, -1e200, 1e-300, 5e307];

function value(r: () => number, special: number): number {
  const x = r();
  if (x < special) return VALUES[Math.floor(r() * VALUES.length)]!;
  // Fractions with every mantissa bit in use, so a changed rounding anywhere shows.
  return (r() - 0.5) * 10 ** Math.floor(r() * 12 - 4);
}

type Mode = 'update' | 'updateSel' | 'updateGroup' | 'updateGroupSel';

function run(kind: string, mode: Mode, seed: number, special: number, groupCount: number): { ours: unknown[] | string; ref: unknown[] | string } {
  const r = rng(seed);
  const useSel = mode === 'updateSel' || mode === 'updateGroupSel';
  // the one-group forms feed group 0 only
  const groups = mode === 'updateGroup' || mode === 'updateGroupSel' ? 1 : groupCount;
  const impl = lookupAggregate(kind)!.resolve([T.float8])!;
  const acc = impl.grouped();
  acc.grow(groups);
  const ref = new Reference();
  let refError: string | null = null;
  let ourError: string | null = null;
  for (let b = 0; b < 6; b++) {
    const len = 1 + Math.floor(r() * 700);
    const data = new Float64Array(len);
    const nulls = new Uint8Array(len);
    let anyNull = false;
    for (let i = 0; i < len; i++) {
      data[i] = value(r, special);
      if (b % 2 === 1 && r() < 0.1) {
        nulls[i] = 1;
        anyNull = true;
      }
    }
    const col = makeColumn(T.float8, data, anyNull ? nulls : null);
    const sel = new Uint32Array(len);
    let m = 0;
    for (let i = 0; i < len; i++) if (!useSel || r() < 0.6) sel[m++] = i;
    const gids = new Int32Array(m);
    for (let k = 0; k < m; k++) gids[k] = Math.floor(r() * groups);
    if (refError === null) {
      try {
        for (let k = 0; k < m; k++) if (nulls[sel[k]!] === 0) ref.add(gids[k]!, data[sel[k]!]!);
      } catch {
        refError = 'overflow';
      }
    }
    if (ourError === null) {
      try {
        if (mode === 'updateSel') acc.updateSel!(gids, sel, m, [col]);
        else if (mode === 'updateGroupSel') acc.updateGroupSel!(0, sel, m, [col]);
        else {
          const taken = new Float64Array(m);
          const tn = new Uint8Array(m);
          for (let k = 0; k < m; k++) {
            taken[k] = data[sel[k]!]!;
            tn[k] = nulls[sel[k]!]!;
          }
          const args = [makeColumn(T.float8, taken, anyNull ? tn : null)];
          if (mode === 'update') acc.update(gids, m, args);
          else acc.updateGroup!(0, m, args);
        }
      } catch (e) {
        if (!(e instanceof QuireError) || e.code !== '22003') throw e;
        ourError = 'overflow';
      }
    }
  }
  if (refError !== null || ourError !== null) return { ours: ourError ?? 'no error', ref: refError ?? 'no error' };
  const ours: unknown[] = [];
  const want: unknown[] = [];
  for (let g = 0; g < groups; g++) {
    ours.push(acc.result(g));
    const n = ref.n[g] ?? 0;
    const sx = ref.sx[g] ?? 0;
    const sxx = ref.sxx[g] ?? 0;
    want.push(kind === 'avg' ? (n === 0 ? null : sx / n) : n === 0 ? null : sxx / n);
  }
  return { ours, ref: want };
}

describe('grouped float8_accum against a reference', () => {
  it('avg and var_pop agree bit for bit, per group and in one group, with and without a selection, with special values or none', () => {
    let overflows = 0;
    let clean = 0;
    for (let seed = 1; seed <= 120; seed++) {
      for (const kind of ['avg', 'var_pop']) {
        for (const mode of ['update', 'updateSel', 'updateGroup', 'updateGroupSel'] as const) {
          // Plain values only, a few special ones, many: the last overflows most of the time.
          const special = [0, 0.002, 0.05][seed % 3]!;
          const { ours, ref } = run(kind, mode, seed, special, 1 + (seed % 40));
          if (typeof ref === 'string') {
            if (ref === 'overflow') overflows++;
          } else clean++;
          // Object.is: -0 and NaN must come out as the reference has them.
          expect(ours.length === ref.length && (typeof ours === 'string' ? ours === ref : (ours as unknown[]).every((x, i) => Object.is(x, (ref as unknown[])[i]))), `${kind} ${mode} seed=${seed}: ${String(ours).slice(0, 200)} vs ${String(ref).slice(0, 200)}`).toBe(true);
        }
      }
    }
    // Both outcomes were exercised.
    expect(overflows).toBeGreaterThan(40);
    expect(clean).toBeGreaterThan(200);
  });
});

describe('float8 avg / variance through SQL, against PostgreSQL', () => {
  let sql: SqlDiff;
  beforeAll(async () => {
    const r = rng(7);
    const vals: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const g = Math.floor(r() * 30);
      const x = r();
      // Groups 20..29 get NaN, ±Infinity and -0 now and then, some as their first value.
      const v = x < 0.05 ? 'NULL' : g >= 20 && x > 0.96 ? `'${['NaN', 'Infinity', '-Infinity', '-0'][Math.floor(r() * 4)]}'` : String((r() - 0.5) * 10 ** Math.floor(r() * 8 - 2));
      vals.push(`(${i}, ${g}, ${v})`);
    }
    const setup = [
      'CREATE TABLE fa (k int, g int, v float8)',
      `INSERT INTO fa VALUES ${vals.join(', ')}`,
      // first values that are not finite
      "CREATE TABLE fb (k int, g int, v float8)",
      "INSERT INTO fb VALUES (1, 1, 'NaN'), (2, 1, 2), (3, 2, 'Infinity'), (4, 2, 1), (5, 3, '-Infinity'), (6, 3, 'Infinity'), (7, 4, '-0'), (8, 4, '-0'), (9, 5, 3), (10, 5, 'NaN')",
      // Sxx overflows (an error) while the sum does not; and a sum that overflows
      'CREATE TABLE fc (k int, g int, v float8)',
      'INSERT INTO fc VALUES (1, 1, 1), (2, 1, 2), (3, 2, 1e200), (4, 2, -1e200), (5, 3, 1e308), (6, 3, 1e308)',
    ].join(';\n');
    sql = await SqlDiff.start(setup);
  }, 120_000);
  afterAll(async () => {
    await sql.close();
  });

  it('per group, filtered and not, in scan order', async () => {
    const qs: string[] = [];
    for (const t of ['fa', 'fb']) {
      for (const w of ['', 'WHERE k % 3 <> 1', 'WHERE k < 0']) {
        qs.push(`SELECT g, count(*), avg(v), var_pop(v), var_samp(v), stddev_pop(v) FROM ${t} ${w} GROUP BY g ORDER BY g`);
        qs.push(`SELECT avg(v), variance(v), stddev(v) FROM ${t} ${w}`);
      }
    }
    expect(await sql.mismatches(qs)).toEqual([]);
  });

  it('the overflow error of Sxx and of the sum, and groups that do not overflow', async () => {
    const qs = [
      'SELECT g, avg(v) FROM fc GROUP BY g ORDER BY g',
      'SELECT g, avg(v) FROM fc WHERE g <> 3 GROUP BY g ORDER BY g',
      'SELECT g, var_pop(v) FROM fc WHERE g = 3 GROUP BY g ORDER BY g',
      'SELECT g, avg(v) FROM fc WHERE g = 1 GROUP BY g ORDER BY g',
      'SELECT g, avg(v) FROM fc WHERE k > 0 GROUP BY g ORDER BY g',
    ];
    const mm = await sql.mismatches(qs);
    expect(mm).toEqual([]);
    // the error cases really are errors
    expect(await sql.ours(qs[0]!)).toMatchObject({ error: '22003' });
    expect(await sql.ours(qs[2]!)).toMatchObject({ error: '22003' });
  });
});
