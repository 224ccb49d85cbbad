/**
 * The PL/pgSQL function bodies Quire runs: a block with no declarations whose only statement is
 * `RETURN expr`. PL/pgSQL evaluates that expression as `SELECT expr` over the parameters, which is what a
 * SQL function with that body does, so such a function becomes one. Anything else (declarations,
 * IF, loops, RAISE, assignments) is refused: an interpreter for the language is out of scope.
 */
import { parsePlPgSQLSync } from 'libpg-query';
import { QuireError } from '../common/errors.js';

interface PlDatum {
  PLpgSQL_var?: { refname?: string };
  PLpgSQL_row?: unknown;
  PLpgSQL_rec?: unknown;
}

interface PlFunction {
  datums?: PlDatum[];
  action?: { PLpgSQL_stmt_block?: { body?: Record<string, { expr?: { PLpgSQL_expr?: { query?: string } }; retvarno?: number }>[]; label?: string } };
}

const unsupported = (): QuireError =>
  new QuireError('0A000', 'PL/pgSQL function bodies other than BEGIN RETURN expression; END are not supported', {
    hint: 'Write the function in LANGUAGE sql.',
  });

/**
 * The returned expression's SQL text, from the CREATE FUNCTION statement's text. `paramCount` is the
 * number of parameters: PL/pgSQL declares them (and FOUND) as its first variables, so any further
 * variable comes from a DECLARE section.
 */
export function plpgsqlReturnExpr(createStatement: string, paramCount: number): string {
  let parsed: { plpgsql_funcs?: { PLpgSQL_function?: PlFunction }[] };
  try {
    parsed = parsePlPgSQLSync(createStatement) as typeof parsed;
  } catch (e) {
    throw new QuireError('42601', `syntax error in PL/pgSQL function body: ${(e as Error).message}`);
  }
  const fn = parsed.plpgsql_funcs?.[0]?.PLpgSQL_function;
  const block = fn?.action?.PLpgSQL_stmt_block;
  const datums = fn?.datums ?? [];
  if (block === undefined || (block.body ?? []).length !== 1 || datums.length > paramCount + 1) throw unsupported();
  const ret = block.body![0]!.PLpgSQL_stmt_return;
  if (ret === undefined) throw unsupported();
  const query = ret.expr?.PLpgSQL_expr?.query;
  if (query !== undefined) return query;
  // RETURN of a plain variable is parsed to the variable's number.
  const name = ret.retvarno === undefined ? undefined : datums[ret.retvarno]?.PLpgSQL_var?.refname;
  if (name === undefined || name === 'found') throw unsupported();
  return `"${name.replace(/"/g, '""')}"`;
}
