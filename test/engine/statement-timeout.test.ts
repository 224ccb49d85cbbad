/**
 * Time governance in the library: statement_timeout (SET/SHOW in PostgreSQL's units), per-call
 * timeoutMs and AbortSignal, and that every long loop (recursive CTE, generate_series, sort, joins,
 * window frames, set operations, regex over many rows, glob walks) stops within the bound while the
 * event loop keeps turning.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { expandGlobSync, MAX_SYNC_WALK_DIRS } from '../../src/storage/glob-walk.js';

/**
 * Generous: the suite may run on a loaded 2-core machine, and some steps still run in one piece (the
 * in-memory sort call under a window over 20M rows; see issue 13's open items), which can hold the loop
 * several hundred milliseconds there. A loop that never yields stalls for the whole statement.
 */
const STALL_BOUND_MS = 1000;
const TIMEOUT_MS = 300;

let db: Database;
let dir: string;

beforeAll(async () => {
  db = await Database.create();
  await db.query('select 1');
  dir = mkdtempSync(join(tmpdir(), 'quire-walk-'));
  // A tree wider than the synchronous walk bound: 40 x 40 directories.
  for (let i = 0; i < 40; i++) for (let j = 0; j < 40; j++) mkdirSync(join(dir, `d${i}`, `e${j}`), { recursive: true });
  writeFileSync(join(dir, 'd7', 'e9', 'x.csv'), 'a,b\n1,2\n');
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function code(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    return e as { code: string; message: string };
  }
  throw new Error('expected an error');
}

/** Runs `f`, returning its error (or result) with the elapsed time and the longest event-loop stall. */
async function timed<X>(f: () => Promise<X>): Promise<{ ms: number; stall: number; error: { code: string; message: string } | null }> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const t0 = performance.now();
  let error = null;
  try {
    await f();
  } catch (e) {
    error = e as { code: string; message: string };
  }
  const ms = performance.now() - t0;
  h.disable();
  return { ms, stall: h.max / 1e6, error };
}

describe('SET statement_timeout', () => {
  it('takes PostgreSQL units and plain milliseconds, SHOWs them as PostgreSQL does, RESET and 0 turn it off', async () => {
    const s = await Database.create();
    const show = async (): Promise<unknown> => (await s.query('show statement_timeout')).rows[0]![0];
    expect(await show()).toBe('0');
    for (const [set, shown] of [
      ["'1s'", '1s'],
      ['1000', '1s'],
      ["'1500ms'", '1500ms'],
      ["'1.5s'", '1500ms'],
      ["'2min'", '2min'],
      ["'1h'", '1h'],
      ["'90s'", '90s'],
      ['0', '0'],
    ]) {
      await s.query(`set statement_timeout = ${set}`);
      expect(await show()).toBe(shown);
    }
    expect(await code(s.query("set statement_timeout = 'soon'"))).toMatchObject({ code: '22023', message: 'invalid value for parameter "statement_timeout": "soon"' });
    expect(await code(s.query("set statement_timeout = '5 fortnights'"))).toMatchObject({ code: '22023' });
    expect(await code(s.query('set statement_timeout = -1'))).toMatchObject({
      code: '22023',
      message: '-1 ms is outside the valid range for parameter "statement_timeout" (0 .. 2147483647)',
    });
    await s.query("set statement_timeout = '250ms'");
    await s.query('reset statement_timeout');
    expect(await show()).toBe('0');
    expect((await s.query("select current_setting('statement_timeout')")).rows).toEqual([['0']]);
  });

  it('is enforced: 57014 "canceling statement due to statement timeout" within the bound', async () => {
    const s = await Database.create();
    await s.query(`set statement_timeout = ${TIMEOUT_MS}`);
    const r = await timed(() => s.query('with recursive t(n) as (select 1 union all select n + 1 from t where n < 30000000) select count(*) from t'));
    expect(r.error).toMatchObject({ code: '57014', message: 'canceling statement due to statement timeout' });
    expect(r.ms).toBeLessThan(TIMEOUT_MS + 1000);
    expect(r.stall).toBeLessThan(STALL_BOUND_MS);
    await s.query('set statement_timeout = 0');
    expect((await s.query('select count(*) from generate_series(1, 100000)')).rows).toEqual([[100000]]);
  });
});

describe('every long loop stops at the deadline and lets the event loop turn', () => {
  const LONG: [string, string][] = [
    ['recursive CTE', 'with recursive t(n) as (select 1 union all select n + 1 from t where n < 30000000) select count(*) from t'],
    ['generate_series', 'select count(*) from generate_series(1, 1000000000)'],
    ['sort', 'select count(*) from (select i from generate_series(1, 20000000) i order by i desc) s'],
    ['hash join', 'select count(*) from generate_series(1, 20000000) a join generate_series(1, 20000000) b on a = b'],
    ['nested loop join', 'select count(*) from generate_series(1, 100000) a join generate_series(1, 100000) b on a < b'],
    ['window frame', 'select sum(x) from (select sum(i) over (order by i rows between unbounded preceding and current row) x from generate_series(1, 20000000) i) s'],
    ['set operation', 'select count(*) from (select i from generate_series(1, 20000000) i except select i from generate_series(1, 10) i) s'],
    ['regex over many rows', "select count(*) from generate_series(1, 100000000) i where repeat('ab', 20) ~ '(a|b)*c'"],
    ['aggregate DISTINCT', 'select count(distinct i) from generate_series(1, 50000000) i'],
  ];
  for (const [name, query] of LONG) {
    it(name, async () => {
      const r = await timed(() => db.query(query, [], { timeoutMs: TIMEOUT_MS }));
      expect(r.error).toMatchObject({ code: '57014', message: 'canceling statement due to statement timeout' });
      expect(r.ms).toBeLessThan(TIMEOUT_MS + 3000);
      expect(r.stall).toBeLessThan(STALL_BOUND_MS);
    });
  }
});

describe('cancel', () => {
  it('an AbortSignal cancels with "user request"; AbortSignal.timeout() counts as a timeout', async () => {
    const ac = new AbortController();
    const running = timed(() => db.query('with recursive t(n) as (select 1 union all select n + 1 from t where n < 30000000) select count(*) from t', [], { signal: ac.signal }));
    await new Promise((r) => setTimeout(r, 200));
    const t0 = performance.now();
    ac.abort();
    const r = await running;
    expect(r.error).toMatchObject({ code: '57014', message: 'canceling statement due to user request' });
    expect(performance.now() - t0).toBeLessThan(STALL_BOUND_MS);
    const t = await timed(() => db.query('select count(*) from generate_series(1, 1000000000)', [], { signal: AbortSignal.timeout(200) }));
    expect(t.error).toMatchObject({ code: '57014', message: 'canceling statement due to statement timeout' });
    expect((await db.query('select 1')).rows).toEqual([[1]]);
  });

  it('Database.cancel() stops the running statement', async () => {
    const s = await Database.create();
    const running = code(s.query('select count(*) from generate_series(1, 1000000000)'));
    await new Promise((r) => setTimeout(r, 200));
    s.cancel();
    expect(await running).toMatchObject({ code: '57014', message: 'canceling statement due to user request' });
  });
});

describe('glob walks', () => {
  it('walk asynchronously before binding: a deep match is found, no match says so', async () => {
    expect((await db.query(`select a, b from read_csv('${dir}/**/x.csv')`)).rows).toEqual([[1, 2]]);
    expect(await code(db.query(`select * from read_csv('${dir}/**/nothing.csv')`))).toMatchObject({ code: '58P01' });
  });

  it('are cancelled by the statement timeout and by an AbortSignal', async () => {
    const ac = new AbortController();
    ac.abort();
    expect(await code(db.query(`select * from read_csv('${dir}/**/nothing.csv')`, [], { signal: ac.signal }))).toMatchObject({
      code: '57014',
      message: 'canceling statement due to user request',
    });
    const r = await timed(() => db.query("select * from read_csv('/**/quire-no-such-file-x.csv')", [], { timeoutMs: TIMEOUT_MS }));
    expect(['57014', '58P01', '54000']).toContain(r.error?.code);
    expect(r.ms).toBeLessThan(TIMEOUT_MS + 3000);
    expect(r.stall).toBeLessThan(STALL_BOUND_MS);
  });

  it('a synchronous walk (a glob binding did not see coming) is bounded', () => {
    expect(() => expandGlobSync(`${dir}/**/nothing-here.csv`)).toThrow(expect.objectContaining({ code: '54000', message: expect.stringContaining(`more than ${MAX_SYNC_WALK_DIRS} directories`) }));
  });
});
