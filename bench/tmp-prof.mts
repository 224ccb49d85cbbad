import { Database } from '../src/index.js';
const N = Number(process.argv[2] ?? 1000000);
const lim = process.argv[3] ?? 'unlimited';
const db = await Database.create({ settings: { memory_limit: lim } });
const sql = `SELECT i, k, s FROM (SELECT i, (i::int8 * 7919) % 10000019 AS k, 'payload-' || i AS s FROM generate_series(1, ${N}) AS g(i)) x ORDER BY k OFFSET ${N - 5}`;
for (let r = 0; r < 3; r++) {
  const t0 = performance.now();
  await db.query(sql);
  console.log(lim, N, (performance.now() - t0).toFixed(0), 'ms');
}
