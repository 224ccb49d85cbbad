/**
 * How long one heavy statement holds the event loop, and how fast it stops when cancelled.
 *
 *   npx tsx bench/stalls.ts [--rows 1000000] [--cancel-after 300] [--case text]
 *
 * For each query: the longest gap of a 1 ms interval timer running beside it (the longest stretch no
 * other client, timer or socket could run), the most CPU time the process used within one such gap (the
 * same stretch without the time other processes took the CPU: on a shared, loaded machine the wall
 * figure is mostly theirs), the query's own time, and the time from an AbortSignal firing
 * (--cancel-after ms into a second run) to the query's rejection. A server shares one loop
 * between all sessions, so the first figure is the latency every other client sees while the query
 * runs; the target is about 50 ms, and cancellation within 100 ms.
 *
 * Not a timed test: the figures depend on the machine. Run it on an otherwise idle one.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../src/index.js';

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
}

const ROWS = Number(arg('rows', '1000000'));
const CANCEL_AFTER = Number(arg('cancel-after', '300'));
const FILTER = arg('case', '');

const dir = mkdtempSync(join(tmpdir(), 'quire-stalls-'));
// A tree of small CSV files for the glob walk.
for (let a = 0; a < 40; a++) {
  const d = join(dir, 'tree', `d${a}`, 'sub');
  mkdirSync(d, { recursive: true });
  for (let f = 0; f < 25; f++) writeFileSync(join(d, `f${f}.csv`), 'a,b\n1,2\n');
}

const QUERIES: readonly [string, string][] = [
  ['join int key', 'select count(*) from big a join big2 b on a.id = b.id'],
  ['join text key', 'select count(*) from big a join big2 b on a.s = b.id::text'],
  // GROUP BY a build-side column, aggregated during the probe: a million build rows grouped first.
  ['join group by build column', 'select b.h, count(*), sum(a.v) from big a join big2 b on a.id = b.id group by b.h'],
  ['group by int', 'select g, count(*), sum(v) from big group by g'],
  ['group by text', "select s, count(*) from big group by s order by 2 desc limit 3"],
  ['distinct text+int', 'select count(*) from (select distinct s, g from big) x'],
  // Three million distinct two-column keys: the key table doubles up to 8M slots while it fills.
  ['group by 3M two-column keys', 'select count(*) from (select i, i % 7, count(*) from generate_series(1, 3000000) i group by i, i % 7) x'],
  ['union', 'select count(*) from (select s from big union select id::text from big2) x'],
  ['window partition by int', 'select count(*) from (select id, row_number() over (partition by g order by v) from big) x'],
  ['window sliding sum', 'select count(*) from (select id, sum(v) over (order by id rows between 100 preceding and current row) from big) x'],
  ['window text partition', 'select count(*) from (select avg(v) over (partition by s order by id rows between 99 preceding and current row) from big) x'],
  ['top-n', 'select * from big order by v limit 10'],
  ['sort text, float', 'select count(*) from (select * from big order by s, v) x'],
  ['array_agg', 'select count(*) from (select array_agg(id) from big group by g) x'],
  ['string_agg order by', "select count(*) from (select string_agg(s, ',' order by v) from big group by g) x"],
  ['percentile_cont', 'select percentile_cont(0.5) within group (order by v) from big'],
  ['count distinct', 'select count(distinct s) from big'],
  ['recursive cte', `with recursive t(n) as (select 1 union all select n + 1 from t where n < ${ROWS}) select count(*) from t`],
  ['regex backtracking', "select count(*) from big where s || 'aaaaaaaaaaaaaaaaaaaaaaaa!' ~ '(a+)+$'"],
  ['glob walk', `select count(*) from read_csv('${join(dir, 'tree').replaceAll("'", "''")}/**/*.csv')`],
];

/** Milliseconds of CPU this process has used (every thread, the collector's worker threads included). */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

async function measure(db: Database, sql: string, signal?: AbortSignal): Promise<{ stall: number; cpuStall: number; ms: number; error?: string }> {
  let last = performance.now();
  let lastCpu = cpuMs();
  let stall = 0;
  let cpuStall = 0;
  const h = setInterval(() => {
    const now = performance.now();
    const cpu = cpuMs();
    stall = Math.max(stall, now - last);
    cpuStall = Math.max(cpuStall, cpu - lastCpu);
    last = now;
    lastCpu = cpu;
  }, 1);
  const t0 = performance.now();
  let error: string | undefined;
  try {
    await db.query(sql, [], signal !== undefined ? { signal } : {});
  } catch (e) {
    error = (e as { code?: string }).code ?? String(e);
  }
  const ms = performance.now() - t0;
  clearInterval(h);
  stall = Math.max(stall, performance.now() - last);
  cpuStall = Math.max(cpuStall, cpuMs() - lastCpu);
  return { stall, cpuStall, ms, ...(error !== undefined ? { error } : {}) };
}

const db = await Database.create();
await db.query(`create table big as select i as id, i % 1000 as g, (i::int8 * 7919 % 1000003)::float8 as v, 'k' || (i % 50000) as s from generate_series(1, ${ROWS}) i`);
await db.query(`create table big2 as select i as id, i % 97 as h from generate_series(1, ${ROWS}) i`);

console.log(`${ROWS} rows; cancel ${CANCEL_AFTER} ms into a second run\n`);
console.log('| query | longest stall ms | its CPU ms | query ms | cancel → stop ms |');
console.log('|---|---:|---:|---:|---:|');
for (const [name, sql] of QUERIES) {
  if (FILTER !== '' && !name.includes(FILTER)) continue;
  const run = await measure(db, sql);
  let cancel = '';
  if (run.ms > CANCEL_AFTER * 1.5) {
    const ac = new AbortController();
    let firedAt = 0;
    const timer = setTimeout(() => {
      firedAt = performance.now();
      ac.abort();
    }, CANCEL_AFTER);
    await measure(db, sql, ac.signal);
    clearTimeout(timer);
    cancel = firedAt === 0 ? 'finished first' : (performance.now() - firedAt).toFixed(0);
  }
  const note = run.error !== undefined ? ` (${run.error})` : '';
  console.log(`| ${name}${note} | ${run.stall.toFixed(0)} | ${run.cpuStall.toFixed(0)} | ${run.ms.toFixed(0)} | ${cancel} |`);
}
await db.close();
rmSync(dir, { recursive: true, force: true });
