/**
 * Quire for bench:sources as its users run it: the built package (dist/, which sources.ts builds before
 * it starts this process) in a plain Node process, without the TypeScript loader the bench itself runs
 * under. With tsx's loader present in the process, Quire's queries ran about a quarter slower (medians of
 * parquet_nulls_scattered at 1M rows in 8 processes each, taken in turns: 38.5 against 29.8 ms), while
 * DuckDB, a native library, is not affected by it.
 *
 *   node bench/quire-process.mjs --rss-only SQL   runs SQL once under memory_limit 256MB and prints the
 *                                                 process's peak RSS in MB;
 *   forked with an IPC channel                    answers each { sql } with { ms, rows }, the query timed
 *                                                 here so that passing the message is not counted, or
 *                                                 with { error }.
 */
import { Database } from '../dist/index.js';
import { peakRssMB } from './peak-rss.mjs';

const rssOnly = process.argv.indexOf('--rss-only');
if (rssOnly >= 0) {
  const db = await Database.create();
  await db.query(`SET memory_limit = '256MB'`);
  await db.query(process.argv[rssOnly + 1]);
  await db.close();
  console.log(peakRssMB());
  process.exit(0);
}

const db = await Database.create();
// One query at a time, in the order asked: the bench awaits each answer before it times DuckDB.
let queue = Promise.resolve();
process.on('message', (msg) => {
  queue = queue.then(async () => {
    if (msg === 'close') {
      await db.close();
      process.disconnect();
      return;
    }
    try {
      const t0 = performance.now();
      const result = await db.query(msg.sql);
      const ms = performance.now() - t0;
      process.send({ id: msg.id, ms, rows: result.rows });
    } catch (e) {
      process.send({ id: msg.id, error: e instanceof Error ? `${e.message}` : String(e) });
    }
  });
});
process.send('ready');
