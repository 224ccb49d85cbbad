import { Database } from '../src/index.js';
const N = Number(process.argv[2] ?? 3000000);
const lim = process.argv[3] ?? 'unlimited';
const db = await Database.create({ settings: { memory_limit: lim } });
const sql = `SELECT count(*), sum(c) FROM (SELECT k, count(*) AS c, max(s) AS m FROM (SELECT (i::int8 * 7919) % ${N} AS k, 'p' || i AS s FROM generate_series(1, ${N}) AS g(i)) x GROUP BY k) y`;
const t0 = performance.now();
const r = await db.query(sql);
console.log(lim, N, (performance.now() - t0).toFixed(0), 'ms', String(r.rows), 'maxRSS MB', Math.round(process.resourceUsage().maxRSS / 1024));
