import { Database } from '../src/index.js';
const db = await Database.create();
const sql = process.argv[2]!;
for (let i = 0; i < Number(process.env.N ?? 4); i++) { const t0 = performance.now(); const r = await db.query(sql); console.log((performance.now() - t0).toFixed(0), 'ms', JSON.stringify(r.rows.slice(0, 2), (_k, v) => typeof v === 'bigint' ? String(v) : v)); }
await db.close();
