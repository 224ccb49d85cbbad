import { PGlite } from '@electric-sql/pglite';
const pg = new PGlite();
await pg.query("set timezone='UTC'");
const qs = process.argv.slice(2);
for (const q of qs) {
  try { const r = await pg.query(q, [], { rowMode: 'array' }); console.log(q, '=>', JSON.stringify(r.rows)); }
  catch (e) { console.log(q, '=> ERR', e.code, e.message, e.detail ?? ''); }
}
