/**
 * PL/pgSQL function bodies. A block with no declarations whose only statement is `RETURN expr` is the
 * SQL function `SELECT expr` (PL/pgSQL evaluates it that way), so it is inlined like one. Other bodies
 * are read into a PlSource for the interpreter: DECLARE with types and defaults, assignment (to a
 * variable or a composite variable's field), IF/ELSIF/ELSE, RETURN, RAISE, nested blocks. Loops,
 * exception handlers, cursors and dynamic SQL are refused (0A000).
 */
import type { TypeName as PgTypeName } from '@pgsql/types';
import { parsePlPgSQLSync } from 'libpg-query';
import { QuireError } from '../common/errors.js';
import type { DataType } from '../common/types.js';
import type { PlSource, PlSourceStatement } from '../storage/catalog.js';
import { nodeBody, nodeTag, type AnyNode } from './ast.js';
import { parseStatements } from './parse.js';
import { resolveTypeName, type UserTypes } from './type-name.js';

interface PlExpr {
  PLpgSQL_expr?: { query?: string };
}

interface PlDatum {
  PLpgSQL_var?: { refname?: string; datatype?: { PLpgSQL_type?: { typname?: string } }; default_val?: PlExpr };
  PLpgSQL_rec?: { refname?: string; datatype?: { PLpgSQL_type?: { typname?: string } }; default_val?: PlExpr };
  PLpgSQL_row?: unknown;
  PLpgSQL_recfield?: { fieldname?: string; recparentno?: number };
}

type PlStmt = Record<string, AnyNode>;

interface PlFunction {
  datums?: PlDatum[];
  action?: { PLpgSQL_stmt_block?: AnyNode };
}

const unsupported = (what: string): QuireError => new QuireError('0A000', `PL/pgSQL ${what} is not supported`, { hint: 'Quire runs DECLARE, assignments, IF, RETURN and RAISE.' });

function parseFunction(createStatement: string): PlFunction {
  let parsed: { plpgsql_funcs?: { PLpgSQL_function?: PlFunction }[] };
  try {
    parsed = parsePlPgSQLSync(createStatement) as typeof parsed;
  } catch (e) {
    throw new QuireError('42601', `syntax error in PL/pgSQL function body: ${(e as Error).message}`);
  }
  const fn = parsed.plpgsql_funcs?.[0]?.PLpgSQL_function;
  if (fn?.action?.PLpgSQL_stmt_block === undefined) throw new QuireError('42601', 'syntax error in PL/pgSQL function body');
  return fn;
}

/**
 * The returned expression's SQL text when the body is only `RETURN expr` (declaring nothing), else
 * null. `paramCount`: PL/pgSQL declares the parameters (and FOUND) as its first variables.
 */
export function plpgsqlReturnExpr(createStatement: string, paramCount: number): string | null {
  const fn = parseFunction(createStatement);
  const block = fn.action!.PLpgSQL_stmt_block!;
  const datums = fn.datums ?? [];
  const body = (block.body as PlStmt[] | undefined) ?? [];
  if (body.length !== 1 || datums.length > paramCount + 1 || block.exceptions !== undefined) return null;
  const ret = body[0]!.PLpgSQL_stmt_return;
  if (ret === undefined) return null;
  const query = (ret.expr as PlExpr | undefined)?.PLpgSQL_expr?.query;
  if (query !== undefined) return query;
  // RETURN of a plain variable is parsed to the variable's number.
  const name = ret.retvarno === undefined ? undefined : datums[ret.retvarno as number]?.PLpgSQL_var?.refname;
  if (name === undefined || name === 'found') return null;
  return `"${name.replace(/"/g, '""')}"`;
}

const LEVELS: Record<number, PlSourceStatement & { kind: 'raise' } extends { level: infer L } ? L : never> = {
  14: 'debug',
  15: 'log',
  17: 'info',
  18: 'notice',
  19: 'warning',
  21: 'exception',
};

/** The PL/pgSQL body as statements over named variables; `params` are the parameters' names and types. */
export function plpgsqlSource(createStatement: string, params: readonly { name: string | null; type: DataType | string }[], types: UserTypes): PlSource {
  const fn = parseFunction(createStatement);
  const datums = fn.datums ?? [];
  const varName = (no: number): string => {
    const d = datums[no];
    const n = d?.PLpgSQL_var?.refname ?? d?.PLpgSQL_rec?.refname;
    if (n === undefined) throw unsupported('assignment to this kind of variable');
    return n;
  };
  // Datums: the parameters, FOUND, then the DECLAREd variables (and field references, not variables).
  const declared: { name: string; type: DataType | number; init: string | null }[] = [];
  const typeOf = (name: string): DataType | number | undefined => {
    const p = params.findIndex((q, i) => (q.name ?? `$${i + 1}`) === name);
    // A polymorphic parameter's type is known per call: keep its index.
    if (p >= 0) return typeof params[p]!.type === 'string' ? p : (params[p]!.type as DataType);
    return declared.find((d) => d.name === name)?.type;
  };
  for (let i = params.length + 1; i < datums.length; i++) {
    const d = datums[i]!;
    // Field references and the row datums INTO targets make are not declared variables.
    if (d.PLpgSQL_recfield !== undefined || d.PLpgSQL_row !== undefined) continue;
    const v = d.PLpgSQL_var ?? d.PLpgSQL_rec;
    if (v === undefined) throw unsupported('declaration of this kind');
    const typname = v.datatype?.PLpgSQL_type?.typname ?? '';
    declared.push({ name: v.refname!, type: declaredType(typname, typeOf, types), init: v.default_val?.PLpgSQL_expr?.query ?? null });
  }
  const exprText = (e: unknown): string => {
    const q = (e as PlExpr | undefined)?.PLpgSQL_expr?.query;
    if (q === undefined) throw new QuireError('42601', 'missing expression in PL/pgSQL statement');
    return q;
  };
  const stmts = (list: PlStmt[] | undefined): PlSourceStatement[] => (list ?? []).map(stmt);
  const stmt = (s: PlStmt): PlSourceStatement => {
    const [tag, b] = Object.entries(s)[0]!;
    switch (tag) {
      case 'PLpgSQL_stmt_assign': {
        const no = (b.varno as number | undefined) ?? 0;
        const d = datums[no];
        let target: string;
        let field: string | null = null;
        if (d?.PLpgSQL_recfield !== undefined) {
          target = varName(d.PLpgSQL_recfield.recparentno ?? 0);
          field = d.PLpgSQL_recfield.fieldname!;
        } else {
          target = varName(no);
        }
        const { subscript, value } = assignedValue(exprText(b.expr));
        if (subscript !== null && field !== null) throw unsupported('assignment to an array element of a field');
        return { kind: 'assign', target, field, subscript, value };
      }
      case 'PLpgSQL_stmt_if': {
        const branches = [{ cond: exprText(b.cond), body: stmts(b.then_body as PlStmt[] | undefined) }];
        for (const e of (b.elsif_list as { PLpgSQL_if_elsif: AnyNode }[] | undefined) ?? []) {
          branches.push({ cond: exprText(e.PLpgSQL_if_elsif.cond), body: stmts(e.PLpgSQL_if_elsif.stmts as PlStmt[] | undefined) });
        }
        return { kind: 'if', branches, otherwise: stmts(b.else_body as PlStmt[] | undefined) };
      }
      case 'PLpgSQL_stmt_return': {
        if (b.expr !== undefined) return { kind: 'return', value: exprText(b.expr) };
        if (b.retvarno !== undefined) return { kind: 'return', value: quoteIdent(varName(b.retvarno as number)) };
        return { kind: 'return', value: null };
      }
      case 'PLpgSQL_stmt_raise': {
        const level = LEVELS[(b.elog_level as number | undefined) ?? 21];
        if (level === undefined || b.message === undefined) throw unsupported('RAISE without a message');
        if (b.condname !== undefined || b.options !== undefined) throw unsupported('RAISE with a condition name or USING options');
        return { kind: 'raise', level, format: b.message as string, params: ((b.params as unknown[] | undefined) ?? []).map(exprText), sqlstate: 'P0001' };
      }
      case 'PLpgSQL_stmt_block':
        if (b.exceptions !== undefined) throw unsupported('EXCEPTION handling');
        return { kind: 'block', body: stmts(b.body as PlStmt[] | undefined) };
      default:
        throw unsupported(`statement ${tag.replace('PLpgSQL_stmt_', '').toUpperCase()}`);
    }
  };
  const top = fn.action!.PLpgSQL_stmt_block!;
  if (top.exceptions !== undefined) throw unsupported('EXCEPTION handling');
  // The parser ends every body with a RETURN of its own (no line number): reaching the end of a
  // function that returns a value is an error, which the interpreter raises without it.
  const list = (top.body as PlStmt[] | undefined) ?? [];
  const last = list[list.length - 1]?.PLpgSQL_stmt_return;
  const own = last !== undefined && last.lineno === undefined;
  return { declared, body: stmts(own ? list.slice(0, -1) : list) };
}

function quoteIdent(n: string): string {
  return `"${n.replace(/"/g, '""')}"`;
}

/**
 * `target := expr` / `target = expr` as PL/pgSQL hands it over: the expression after the operator, and
 * the subscript of `target[i]` (one subscript; slices and several dimensions are refused).
 */
function assignedValue(q: string): { subscript: string | null; value: string } {
  const plain = /^\s*[^:=[\]]*?(:=|=)/.exec(q);
  if (plain !== null) return { subscript: null, value: q.slice(plain[0].length) };
  const open = q.indexOf('[');
  let depth = 0;
  let close = -1;
  for (let i = open; i < q.length; i++) {
    if (q[i] === '[') depth++;
    else if (q[i] === ']' && --depth === 0) {
      close = i;
      break;
    }
  }
  const rest = close < 0 ? null : /^\s*(:=|=)/.exec(q.slice(close + 1));
  const subscript = close < 0 ? '' : q.slice(open + 1, close);
  if (rest === null || subscript.includes(':')) throw unsupported('this assignment target');
  return { subscript, value: q.slice(close + 1 + rest[0].length) };
}

/** A DECLARE type as written: a SQL type name (user composite types included) or `var%TYPE`. */
function declaredType(typname: string, typeOf: (name: string) => DataType | number | undefined, types: UserTypes): DataType | number {
  const pct = /^\s*("?)([^"%]+)\1%TYPE\s*$/i.exec(typname);
  if (pct !== null) {
    const t = typeOf(pct[2]!);
    if (t === undefined) throw unsupported(`%TYPE of ${pct[2]}`);
    return t;
  }
  let tn: PgTypeName | undefined;
  try {
    const st = parseStatements(`SELECT NULL::${typname}`)[0];
    const target = st === undefined ? undefined : (nodeBody<AnyNode>(st.stmt).targetList as AnyNode[] | undefined)?.[0];
    const val = target === undefined ? undefined : (nodeBody<AnyNode>(target as never).val as never);
    if (val !== undefined && nodeTag(val) === 'TypeCast') tn = nodeBody<AnyNode>(val).typeName as PgTypeName;
  } catch {
    tn = undefined;
  }
  if (tn === undefined) throw new QuireError('42704', `type "${typname}" does not exist`);
  return resolveTypeName(tn, types);
}
