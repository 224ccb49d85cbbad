/** Identifier and literal quoting as PostgreSQL's quote_ident / quote_literal do it. */
// Keywords that always need quoting; a pragmatic subset of PostgreSQL's reserved words.
const RESERVED = new Set(
  (
    'all analyse analyze and any array as asc asymmetric both case cast check collate column constraint create ' +
    'current_catalog current_date current_role current_time current_timestamp current_user default deferrable desc ' +
    'distinct do else end except false fetch for foreign from grant group having in initially intersect into lateral ' +
    'leading limit localtime localtimestamp not null offset on only or order placing primary references returning ' +
    'select session_user some symmetric system_user table then to trailing true union unique user using variadic ' +
    'when where window with authorization binary collation concurrently cross current_schema freeze full ilike inner ' +
    'is isnull join left like natural notnull outer overlaps right similar tablesample verbose'
  ).split(' '),
);

export function quoteIdent(s: string): string {
  if (/^[a-z_][a-z0-9_$]*$/.test(s) && !RESERVED.has(s)) return s;
  return '"' + s.replace(/"/g, '""') + '"';
}

/** Backslashes force the E'' form, as in PostgreSQL, so the literal reads back the same. */
export function quoteLiteral(s: string): string {
  const body = s.replace(/'/g, "''");
  if (s.includes('\\')) return "E'" + body.replace(/\\/g, '\\\\') + "'";
  return "'" + body + "'";
}
