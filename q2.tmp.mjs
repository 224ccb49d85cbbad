import { PGlite } from '@electric-sql/pglite';
const db = new PGlite();
const r = await db.query("select ($1::float8 - $2::float8)::text a, $1::float8::text b, $2::float8::text c", ['-4094791.4961725473','2.3212830955162643e+17']);
console.log(r.rows, -4094791.4961725473 - 2.3212830955162643e+17, (-4094791.4961725473 - 2.3212830955162643e+17).toExponential());
