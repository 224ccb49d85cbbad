import { PGlite } from '@electric-sql/pglite';
const db = new PGlite();
const qs = process.argv.slice(2);
for (const q of qs) { try { const r = await db.query(q); console.log(q, '=>', JSON.stringify(r.rows)); } catch (e) { console.log(q, '=> ERR', e.code, e.message); } }
