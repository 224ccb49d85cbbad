const { Database } = await import('./src/index.ts');
const db = await Database.create();
const F = process.argv[2] ?? '.bench-data/sources-nulls-scattered-1000000.parquet';
const q = `SELECT s, count(*) AS n, count(name) AS names, sum(v) AS total FROM read_parquet('${F}') WHERE k < 500 GROUP BY s ORDER BY s`;
for (let r = 0; r < 15; r++) await db.query(q);
console.log((await db.query('EXPLAIN (FORMAT QUIRE) ' + q)).rows.map((r) => r[0]).join('\n'));
const { Session } = await import('node:inspector/promises');
const s = new Session(); s.connect(); await s.post('Profiler.enable'); await s.post('Profiler.start');
const t0 = performance.now();
for (let r = 0; r < 20; r++) await db.query(q);
console.log('ms/query', ((performance.now() - t0) / 20).toFixed(1));
const { profile } = await s.post('Profiler.stop');
const self = new Map<string, number>();
const dt = profile.timeDeltas!; const samples = profile.samples!;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
for (let i = 0; i < samples.length; i++) { const n = byId.get(samples[i]!)!; const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-1)[0]}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + (dt[i] ?? 0)); }
const total = [...self.values()].reduce((a, b) => a + b, 0);
console.log([...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 22).map(([k, v]) => `${(100 * v / total).toFixed(1)}% ${k}`).join('\n'));
