/**
 * npm run bench:sources -- [--rows N] [--runs N]
 *
 * Data sources, two measurements:
 *  1. scan + filter + aggregate over an N-row Parquet file (default 10M; written once by DuckDB into
 *     .bench-data/), Quire's read_parquet against DuckDB (threads=1) reading the same file;
 *  2. ORDER BY … LIMIT 10 over a PostgreSQL table (needs QUIRE_TEST_PG_DSN, e.g. from
 *     .ci/start-postgres.sh), with the connector's pushdown and with it switched off.
 * Prints median milliseconds and writes bench/sources-results.json.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { Database } from '../src/index.js';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]!.replace(/_/g, '')) : dflt;
};
const ROWS = arg('rows', 10_000_000);
const RUNS = arg('runs', 3);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function time(f: () => Promise<unknown>): Promise<{ ms: number; result: unknown }> {
  await f(); // warm-up
  const ms: number[] = [];
  let result: unknown;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    result = await f();
    ms.push(performance.now() - t0);
  }
  return { ms: median(ms), result };
}

const out: Record<string, unknown> = { rows: ROWS, runs: RUNS, node: process.version };

// ---- 1. Parquet ----
mkdirSync('.bench-data', { recursive: true });
const file = join('.bench-data', `sources-${ROWS}.parquet`);
const duck = await DuckDBInstance.create(':memory:', { threads: '1' });
const dc = await duck.connect();
await dc.run('SET threads = 1');
if (!existsSync(file)) {
  console.log(`writing ${file} …`);
  await dc.run(`COPY (SELECT i::INTEGER AS id, (i % 1000)::INTEGER AS k, ((i * 7919) % 10007) / 10007.0 AS v, 'cat' || (i % 17) AS s
                       FROM range(${ROWS}) t(i)) TO '${file}' (FORMAT parquet)`);
}
const sqlQuire = `SELECT k % 10 AS g, count(*) AS n, sum(v) AS total FROM read_parquet('${file}') WHERE v > 0.25 AND id >= ${Math.floor(ROWS / 2)} GROUP BY 1 ORDER BY 1`;
const sqlDuck = sqlQuire.replace(`read_parquet('${file}')`, `read_parquet('${file}')`);
const db = await Database.create();
const q = await time(async () => (await db.query(sqlQuire)).rows);
const d = await time(async () => (await (await dc.runAndReadAll(sqlDuck)).getRows()).map((r) => r.map((x) => (typeof x === 'bigint' ? Number(x) : x))));
const agree = JSON.stringify((q.result as unknown[][]).map((r) => [r[0], r[1], Number(r[2]).toFixed(3)])) === JSON.stringify((d.result as unknown[][]).map((r) => [r[0], r[1], Number(r[2]).toFixed(3)]));
out.parquet = { query: sqlQuire, quireMs: Math.round(q.ms), duckdbMs: Math.round(d.ms), ratio: +(q.ms / d.ms).toFixed(2), resultsAgree: agree };
console.log(`parquet scan+filter+aggregate, ${ROWS} rows: quire ${q.ms.toFixed(0)} ms, duckdb(threads=1) ${d.ms.toFixed(0)} ms, results agree: ${agree}`);

// ---- 2. PostgreSQL Top-N ----
const dsn = process.env.QUIRE_TEST_PG_DSN;
if (dsn === undefined) {
  console.log('postgres: QUIRE_TEST_PG_DSN not set, skipped');
} else {
  const pgRows = Math.min(ROWS, 1_000_000);
  const admin = new pg.Client({ connectionString: dsn });
  await admin.connect();
  await admin.query(`DROP TABLE IF EXISTS quire_bench_t; CREATE TABLE quire_bench_t AS
    SELECT i AS id, (i::int8 * 7919) % 1000003 AS score, 'name' || i AS name FROM generate_series(1, ${pgRows}) i; ANALYZE quire_bench_t`);
  await db.query(`ATTACH '${dsn}' AS pg`);
  const topn = `SELECT id, score, name FROM pg.quire_bench_t ORDER BY score DESC, id LIMIT 10`;
  const on = await time(async () => (await db.query(topn)).rows);
  // Local/Global split: 4 ctid ranges, each with its own remote ORDER BY … LIMIT, read concurrently.
  await db.query(`SET quire.connector_partitions = 4`);
  const split = await time(async () => (await db.query(topn)).rows);
  await db.query(`RESET quire.connector_partitions`);
  await db.query(`SET quire.disabled_rules = 'push-into-remote-scan'`);
  const off = await time(async () => (await db.query(topn)).rows);
  await db.query(`RESET quire.disabled_rules`);
  const same = JSON.stringify(on.result) === JSON.stringify(off.result) && JSON.stringify(split.result) === JSON.stringify(off.result);
  out.postgresTopN = { rows: pgRows, query: topn, pushdownMs: Math.round(on.ms), split4Ms: Math.round(split.ms), noPushdownMs: Math.round(off.ms), speedup: +(off.ms / on.ms).toFixed(1), resultsAgree: same };
  console.log(`postgres ORDER BY LIMIT 10, ${pgRows} rows: pushdown ${on.ms.toFixed(0)} ms, split into 4 ${split.ms.toFixed(0)} ms, without ${off.ms.toFixed(0)} ms, results agree: ${same}`);
  await admin.query('DROP TABLE quire_bench_t');
  await admin.end();
  await db.close();
}
writeFileSync('bench/sources-results.json', JSON.stringify(out, null, 2) + '\n');
