import { PGlite } from '@electric-sql/pglite';
const pg = new PGlite();
await pg.query("set timezone='UTC'");
for (const z of ['+02', '-05:30', 'UTC+3', 'PST8PDT', 'EST5EDT', 'America/New_York', 'america/new_york', 'Asia/Kolkata', 'XYZ5', 'ABC-3DEF', '5', 'GMT+2', 'Etc/GMT+2', 'EST', 'PST', 'Europe/London', 'Australia/Lord_Howe']) {
  try { await pg.query(`set timezone='${z}'`); const r = await pg.query(`select '2020-07-01 12:00:00+00'::timestamptz::text, '1800-01-01 00:00+00'::timestamptz::text, '2018-03-11 02:30'::timestamptz::text, '2018-11-04 01:30'::timestamptz::text, current_setting('timezone')`, [], {rowMode:'array'}); console.log(z, JSON.stringify(r.rows[0])); }
  catch (e) { console.log(z, 'ERR', e.code, e.message); }
}
await pg.query("set timezone='UTC'");
for (const q of process.argv.slice(2)) {
  try { const r = await pg.query(q, [], { rowMode: 'array' }); console.log(q, '=>', JSON.stringify(r.rows)); }
  catch (e) { console.log(q, '=> ERR', e.code, e.message, e.detail ?? ''); }
}
