/**
 * pg_get_viewdef: a view's query printed as PostgreSQL's ruleutils prints it with PRETTY_INDENT (one
 * select-list item per line, FROM/WHERE/GROUP BY on their own lines, every operator expression
 * parenthesized, columns qualified when the query has more than one FROM item). Printed from the
 * stored parse tree; a construct outside the printed subset is refused (0A000) rather than printed
 * differently from PostgreSQL.
 */
import type { Node } from '@pgsql/types';
import { QuireError } from '../common/errors.js';
import { T, category, typeDisplayName, type DataType, type Field } from '../common/types.js';
import { nodeBody, nodeTag, strings, type AnyNode } from './ast.js';
import { FRAME } from './bind/window.js';

/** A FROM item's name and columns, as expressions over it are resolved. */
export interface FromColumns {
  readonly alias: string;
  readonly columns: readonly string[];
  /** Null where not known here. */
  readonly types: readonly (DataType | null)[];
}

/** A FROM item as printed, with the column names it provides (to qualify references). */
interface FromItem extends FromColumns {
  readonly text: string;
}

/**
 * What the printer asks of the layer that binds queries: ruleutils prints the analysed query, where
 * each literal has the type its context resolved, so printing the parse tree the same way needs those
 * resolutions redone over the view's FROM items.
 */
export interface ViewDefTypes {
  /** Columns of the relations a view may read (undefined for other names). */
  relationColumns(name: string): readonly Field[] | undefined;
  /** An expression's type over the FROM items (unknown for an untyped literal); null when it is not bound on its own (aggregates, window calls). */
  exprType(n: Node, from: readonly FromColumns[]): DataType | null;
  /**
   * The types overload resolution converts a call's (or operator's) arguments to, and in FROM the
   * columns the function returns; null when the call is not resolved here.
   */
  callTypes(call: Node, from: readonly FromColumns[], inFrom: boolean): { readonly args: readonly DataType[]; readonly columns: readonly Field[] } | null;
  /** `text` read by `t`'s input function and written by its output function under the session's settings (null: not a constant). */
  constantText(text: string, t: DataType): string | null;
  /** A cast's target type (a TypeName). */
  typeName(tn: AnyNode): DataType;
}

const cannot = (what: string): QuireError => new QuireError('0A000', `pg_get_viewdef cannot print ${what} yet`);

function quoteIdent(n: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(n) ? n : `"${n.replace(/"/g, '""')}"`;
}

function quoteLiteral(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

type ConstKind = 'int' | 'numeric' | 'string' | 'bool' | 'null';

function constKind(n: Node): ConstKind | null {
  if (nodeTag(n) !== 'A_Const') return null;
  const b = nodeBody<AnyNode>(n);
  if (b.isnull) return 'null';
  if (b.ival !== undefined) return 'int';
  if (b.fval !== undefined) return 'numeric';
  if (b.boolval !== undefined) return 'bool';
  return 'string';
}

/** The type PostgreSQL resolves a VALUES column of literals to (select_common_type over the rows). */
function valuesColumnType(kinds: readonly (ConstKind | null)[]): DataType | null {
  const known = kinds.filter((k) => k !== 'null');
  if (known.some((k) => k === null)) return null;
  if (known.length === 0 || known.some((k) => k === 'string')) return T.text;
  if (known.some((k) => k === 'numeric')) return T.numeric;
  if (known.every((k) => k === 'bool')) return T.bool;
  return T.int4;
}

function sameType(a: DataType, b: DataType): boolean {
  return a.name === b.name && a.typmod === b.typmod;
}

export function viewDefinition(query: Node, types: ViewDefTypes): string {
  return `${selectDef(query, types)};`;
}

function selectDef(query: Node, types: ViewDefTypes): string {
  if (nodeTag(query) !== 'SelectStmt') throw cannot('this statement');
  const s = nodeBody<AnyNode>(query);
  if ((s.op !== undefined && s.op !== 'SETOP_NONE') || s.withClause || s.valuesLists || s.lockingClause) throw cannot('this query');
  const items = (s.fromClause as Node[] | undefined) ?? [];
  const qualify = items.length !== 1;
  const from: FromItem[] = [];
  for (const f of items) from.push(fromItem(f, types, { from: [...from], qualify, types }));
  const ctx: ExprContext = { from, qualify, types };
  let out = ' SELECT';
  const distinct = s.distinctClause as Node[] | undefined;
  if (distinct !== undefined) {
    const on = distinct.filter((d) => nodeTag(d) !== undefined);
    out += on.length === 0 ? ' DISTINCT' : ` DISTINCT ON (${on.map((d) => expr(d, ctx)).join(', ')})`;
  }
  const targets = ((s.targetList as Node[] | undefined) ?? []).map((t) => target(nodeBody<AnyNode>(t), ctx));
  out += ` ${targets.join(',\n    ')}`;
  if (from.length > 0) out += `\n   FROM ${from.map((f) => f.text).join(',\n    ')}`;
  if (s.whereClause) out += `\n  WHERE ${expr(s.whereClause as Node, ctx)}`;
  const group = (s.groupClause as Node[] | undefined) ?? [];
  if (group.length > 0) out += `\n  GROUP BY ${group.map((g) => expr(g, ctx)).join(', ')}`;
  if (s.havingClause) out += `\n HAVING ${expr(s.havingClause as Node, ctx)}`;
  const order = (s.sortClause as Node[] | undefined) ?? [];
  if (order.length > 0) out += `\n  ORDER BY ${order.map((o) => sortItem(o, ctx)).join(', ')}`;
  if (s.limitOffset) out += `\n OFFSET ${expr(s.limitOffset as Node, ctx)}`;
  if (s.limitCount) out += `\n LIMIT ${expr(s.limitCount as Node, ctx)}`;
  return out;
}

interface ExprContext {
  readonly from: readonly FromItem[];
  readonly qualify: boolean;
  readonly types: ViewDefTypes;
}

function target(t: AnyNode, ctx: ExprContext): string {
  const val = t.val as Node;
  const k = constKind(val);
  const text = k === 'string' ? `${constText(val)}::text` : k === 'null' ? 'NULL::text' : expr(val, ctx);
  const name = (t.name as string | undefined) ?? figureName(val);
  // A plain column keeps its name without AS; anything else is labelled, as ruleutils does.
  if (nodeTag(val) === 'ColumnRef' && strings(nodeBody<AnyNode>(val).fields as Node[]).pop() === name) return text;
  return `${text} AS ${quoteIdent(name)}`;
}

function figureName(n: Node): string {
  const b = nodeBody<AnyNode>(n);
  switch (nodeTag(n)) {
    case 'ColumnRef':
      return strings(b.fields as Node[]).pop() ?? '?column?';
    case 'FuncCall':
      return strings(b.funcname as Node[]).pop() ?? '?column?';
    case 'TypeCast':
      return figureName(b.arg as Node) === '?column?' ? strings((b.typeName as AnyNode).names as Node[]).pop() ?? '?column?' : figureName(b.arg as Node);
    default:
      return '?column?';
  }
}

/** `prior`: the FROM items before this one, which a function's arguments may refer to (LATERAL). */
function fromItem(f: Node, types: ViewDefTypes, prior: ExprContext): FromItem {
  const b = nodeBody<AnyNode>(f);
  const alias = b.alias as AnyNode | undefined;
  const aliasCols = alias?.colnames === undefined ? undefined : strings(alias.colnames as Node[]);
  switch (nodeTag(f)) {
    case 'RangeVar': {
      const name = b.relname as string;
      const cols = types.relationColumns(name);
      if (cols === undefined) throw cannot(`a reference to ${name}`);
      const columns = cols.map((c, i) => aliasCols?.[i] ?? c.name);
      const shown = alias === undefined ? name : `${quoteIdent(name)} ${quoteIdent(alias.aliasname as string)}`;
      return { alias: (alias?.aliasname as string | undefined) ?? name, columns, types: cols.map((c) => c.type), text: shown };
    }
    case 'RangeFunction': {
      if (b.ordinality || b.is_rowsfrom || b.coldeflist) throw cannot('this function in FROM');
      const items = (b.functions as Node[]).map((l) => (nodeBody<AnyNode>(l).items as Node[])[0]!);
      if (items.length !== 1) throw cannot('ROWS FROM');
      const call = items[0]!;
      if (nodeTag(call) !== 'FuncCall') throw cannot('this function in FROM');
      const fc = nodeBody<AnyNode>(call);
      if (fc.agg_star || fc.agg_distinct || fc.agg_order || fc.agg_filter || fc.over || fc.func_variadic) throw cannot('this function in FROM');
      const fname = strings(fc.funcname as Node[]).filter((x) => x !== 'pg_catalog').join('.');
      const fargs = (fc.args as Node[] | undefined) ?? [];
      // The function's argument and result types as the table-function binder resolves them.
      if (fargs.some((a) => nodeTag(a) === 'NamedArgExpr')) throw cannot('this function in FROM');
      // A function whose arguments refer to earlier FROM items is LATERAL, written or not; ruleutils spells it out.
      let lateral = b.lateral === true;
      let resolved = lateral ? null : types.callTypes(call, [], true);
      if (resolved === null && prior.from.length > 0) {
        resolved = types.callTypes(call, prior.from, true);
        lateral = resolved !== null;
      }
      if (resolved === null) throw cannot('this function in FROM');
      const args = resolved.args;
      const name = (alias?.aliasname as string | undefined) ?? strings(fc.funcname as Node[]).pop()!;
      // A one-column function's column is named after the alias; ruleutils always lists a function's columns.
      const columns = resolved.columns.length === 1 ? [aliasCols?.[0] ?? name] : resolved.columns.map((c, i) => aliasCols?.[i] ?? c.name);
      const ctx: ExprContext = lateral ? prior : { from: [], qualify: false, types };
      const text = `${lateral ? 'LATERAL ' : ''}${fname}(${fargs.map((a, i) => argument(a, args[i]!, ctx)).join(', ')})`;
      return { alias: name, columns, types: resolved.columns.map((c) => c.type), text: `${text} ${quoteIdent(name)}(${columns.map(quoteIdent).join(', ')})` };
    }
    case 'RangeSubselect': {
      const sub = nodeBody<AnyNode>(b.subquery as Node);
      if (sub.valuesLists === undefined || alias === undefined) throw cannot('a subquery in FROM');
      const rows = (sub.valuesLists as Node[]).map((l) => (nodeBody<AnyNode>(l).items as Node[]) ?? []);
      const width = rows[0]?.length ?? 0;
      const colTypes = Array.from({ length: width }, (_, c) => valuesColumnType(rows.map((r) => constKind(r[c]!))));
      const ctx: ExprContext = { from: [], qualify: false, types };
      const cell = (n: Node, c: number): string => {
        const k = constKind(n);
        const t = colTypes[c];
        if (k === null || t === null) return expr(n, ctx);
        if (k === 'null') return `NULL::${typeDisplayName(t)}`;
        // ruleutils labels a constant unless its text reads back as its type: integers, decimals, booleans.
        if (constText(n).startsWith('-')) throw cannot('a negative constant');
        // An integer in a numeric column is coerced by an implicit cast ruleutils does not show.
        if ((k === 'int' && (t.name === 'int4' || t.name === 'numeric')) || (k === 'numeric' && t.name === 'numeric') || k === 'bool') return constText(n);
        return `${constText(n)}::${typeDisplayName(t)}`;
      };
      const columns = aliasCols ?? Array.from({ length: width }, (_, i) => `column${i + 1}`);
      const values = rows.map((r) => `(${r.map(cell).join(',')})`).join(', ');
      return { alias: alias.aliasname as string, columns, types: colTypes, text: `( VALUES ${values}) ${quoteIdent(alias.aliasname as string)}(${columns.map(quoteIdent).join(', ')})` };
    }
    default:
      throw cannot('this FROM item');
  }
}

function constText(n: Node): string {
  const b = nodeBody<AnyNode>(n);
  if (b.isnull) return 'NULL';
  if (b.ival !== undefined) return String((b.ival as { ival?: number }).ival ?? 0);
  if (b.fval !== undefined) return String((b.fval as { fval: string }).fval);
  if (b.boolval !== undefined) return (b.boolval as { boolval?: boolean }).boolval ? 'true' : 'false';
  return quoteLiteral(String((b.sval as { sval?: string }).sval ?? ''));
}

function column(names: string[], ctx: ExprContext): string {
  if (names.length === 1) {
    const n = names[0]!;
    if (!ctx.qualify) return quoteIdent(n);
    const owner = ctx.from.find((f) => f.columns.includes(n));
    if (owner === undefined) throw cannot(`column ${n}`);
    return `${quoteIdent(owner.alias)}.${quoteIdent(n)}`;
  }
  const [q, n] = names.slice(-2) as [string, string];
  return ctx.qualify ? `${quoteIdent(q)}.${quoteIdent(n)}` : quoteIdent(n);
}

function expr(n: Node, ctx: ExprContext): string {
  const b = nodeBody<AnyNode>(n);
  switch (nodeTag(n)) {
    case 'ColumnRef': {
      const fields = b.fields as Node[];
      if (fields.some((f) => nodeTag(f) === 'A_Star')) throw cannot('*');
      return column(strings(fields), ctx);
    }
    case 'A_Const': {
      // An untyped literal's type comes from where it is used (a function's parameter, an operator's
      // other side): only the select list's own literals (text) are printed, by target().
      const k = constKind(n);
      if (k === 'string' || k === 'null') throw cannot('an untyped literal here');
      if (constText(n).startsWith('-')) throw cannot('a negative constant');
      return constText(n);
    }
    case 'A_Expr': {
      if (b.kind !== 'AEXPR_OP') throw cannot('this operator');
      const op = strings(b.name as Node[]).pop()!;
      if (b.lexpr === undefined) return `(${op} ${expr(b.rexpr as Node, ctx)})`;
      const l = b.lexpr as Node;
      const r = b.rexpr as Node;
      // An untyped literal takes the type operator resolution gives its side.
      const untyped = (x: Node): boolean => constKind(x) === 'string' || constKind(x) === 'null';
      // A string operand converted by resolution (varchar or char to text beside text or name) shows its
      // cast; name meets text with its own operators and stays bare.
      const converted = (x: Node): boolean => {
        if (constKind(x) !== null) return false;
        const t = typeOf(x, ctx);
        return t !== null && category(t) === 'S';
      };
      const resolved = untyped(l) || untyped(r) || converted(l) || converted(r) ? ctx.types.callTypes(n, ctx.from, false)?.args : undefined;
      const side = (x: Node, other: Node, i: number): string => {
        if (resolved === undefined) return operand(x, other, ctx);
        if (untyped(x) || (converted(x) && typeOf(x, ctx)!.name !== resolved[i]!.name)) return argument(x, resolved[i]!, ctx);
        return operand(x, other, ctx);
      };
      return `(${side(l, r, 0)} ${op} ${side(r, l, 1)})`;
    }
    case 'BoolExpr': {
      const args = (b.args as Node[]).map((a) => expr(a, ctx));
      if (b.boolop === 'NOT_EXPR') return `(NOT ${args[0]})`;
      return `(${args.join(b.boolop === 'AND_EXPR' ? ' AND ' : ' OR ')})`;
    }
    case 'TypeCast': {
      const t = ctx.types.typeName(b.typeName as AnyNode);
      const inner = b.arg as Node;
      const k = constKind(inner);
      // A cast of an untyped literal is folded into a constant of the target type.
      if (k === 'string') return typedConstant(rawString(inner), t, ctx);
      if (k === 'null') return `NULL::${typeDisplayName(t)}`;
      // A cast to the type the expression already has is dropped by the parser.
      const natural = literalType(k) ?? ctx.types.exprType(inner, ctx.from);
      if (natural !== null && sameType(natural, t)) return expr(inner, ctx);
      return `(${expr(inner, ctx)})::${typeDisplayName(t)}`;
    }
    case 'FuncCall':
      return funcCall(n, ctx);
    default:
      throw cannot(`expression ${nodeTag(n) ?? ''}`);
  }
}

/**
 * One side of a binary operator: an integer literal takes the other side's type, printed as ruleutils
 * prints the coerced constant; other literals are refused (their type would need the operator's
 * resolution to know).
 */
function operand(n: Node, other: Node, ctx: ExprContext): string {
  const k = constKind(n);
  if (k === null) return expr(n, ctx);
  const t = typeOf(other, ctx);
  // int4 meets int4 and int8 with cross-type operators (int48, int84): the literal stays as written.
  if (k === 'int' && (t?.name === 'int4' || t?.name === 'int8' || (t === null && constKind(other) === 'int'))) return expr(n, ctx);
  if (k === 'int' && t?.name === 'numeric') return `(${expr(n, ctx)})::numeric`;
  throw cannot('a literal compared with this expression');
}

/** The type of an expression, when it can be read off the FROM items or bound on its own. */
function typeOf(n: Node, ctx: ExprContext): DataType | null {
  if (nodeTag(n) === 'ColumnRef') {
    const names = strings(nodeBody<AnyNode>(n).fields as Node[]);
    const name = names[names.length - 1]!;
    const owner = names.length > 1 ? ctx.from.find((f) => f.alias === names[names.length - 2]) : ctx.from.find((f) => f.columns.includes(name));
    const i = owner?.columns.indexOf(name) ?? -1;
    return owner === undefined || i < 0 ? null : (owner.types[i] ?? null);
  }
  if (nodeTag(n) === 'FuncCall') {
    const f = nodeBody<AnyNode>(n);
    const name = strings(f.funcname as Node[]).pop();
    if ((name === 'count' && f.agg_within_group !== true) || name === 'row_number' || name === 'rank' || name === 'dense_rank') return T.int8;
  }
  const k = constKind(n);
  if (k !== null) return k === 'int' ? T.int4 : null;
  const t = ctx.types.exprType(n, ctx.from);
  return t === null || t.name === 'unknown' ? null : t;
}

/** The type the parser gives a literal of this kind (null: untyped, or not a literal). */
function literalType(k: ConstKind | null): DataType | null {
  return k === 'int' ? T.int4 : k === 'numeric' ? T.numeric : k === 'bool' ? T.bool : null;
}

function rawString(n: Node): string {
  return String((nodeBody<AnyNode>(n).sval as { sval?: string } | undefined)?.sval ?? '');
}

/**
 * The literal `text` as a constant of type `t`, printed as ruleutils' get_const_expr does: the type's
 * output text under the session's settings, labelled with the type unless it reads back as that type
 * (non-negative integers, decimals that look like numeric literals, booleans).
 */
function typedConstant(text: string, t: DataType, ctx: ExprContext): string {
  // A type modifier (other than an interval's fields) is applied by a length coercion over the
  // unmodified constant, which ruleutils prints bare before the modified type.
  const modified = t.typmod >= 0 && t.name !== 'interval';
  const base = modified ? { ...t, typmod: -1 } : t;
  const out = ctx.types.constantText(text, base);
  if (out === null) throw cannot(`this ${typeDisplayName(t)} constant`);
  const label = `::${typeDisplayName(t)}`;
  let bare: string;
  let labelled = true;
  switch (t.name) {
    case 'int4':
      bare = out.startsWith('-') ? quoteLiteral(out) : out;
      labelled = out.startsWith('-');
      break;
    case 'numeric':
      bare = /^[0-9]/.test(out) && /[eE.]/.test(out) ? out : quoteLiteral(out);
      labelled = bare !== out;
      break;
    case 'bool':
      bare = out === 't' ? 'true' : 'false';
      labelled = false;
      break;
    default:
      bare = quoteLiteral(out);
  }
  return modified || labelled ? `${bare}${label}` : bare;
}

/**
 * An argument converted to the parameter type `param` by overload resolution: an untyped literal
 * becomes a constant of that type; anything else of another type shows the implicit cast, as
 * ruleutils does for function and operator arguments.
 */
function argument(n: Node, param: DataType, ctx: ExprContext): string {
  const k = constKind(n);
  if (k === 'string') return typedConstant(rawString(n), param, ctx);
  if (k === 'null') return `NULL::${typeDisplayName(param)}`;
  const natural = literalType(k) ?? ctx.types.exprType(n, ctx.from);
  if (natural === null) throw cannot('this argument');
  const text = expr(n, ctx);
  return sameType(natural, param) || natural.name === 'unknown' ? text : `(${text})::${typeDisplayName(param)}`;
}

function sortItem(o: Node, ctx: ExprContext): string {
  const s = nodeBody<AnyNode>(o);
  let text = expr(s.node as Node, ctx);
  const dir = s.sortby_dir as string;
  const nulls = s.sortby_nulls as string;
  if (dir === 'SORTBY_USING') {
    const op = strings(s.useOp as Node[]).pop()!;
    if (op === '<') {
      if (nulls === 'SORTBY_NULLS_FIRST') text += ' NULLS FIRST';
    } else if (op === '>') {
      text += ' DESC';
      if (nulls === 'SORTBY_NULLS_LAST') text += ' NULLS LAST';
    } else {
      // A non-default ordering operator: its NULLS placement is always spelled out.
      text += ` USING ${op}${nulls === 'SORTBY_NULLS_FIRST' ? ' NULLS FIRST' : ' NULLS LAST'}`;
    }
    return text;
  }
  if (dir === 'SORTBY_DESC') {
    text += ' DESC';
    if (nulls === 'SORTBY_NULLS_LAST') text += ' NULLS LAST';
  } else if (nulls === 'SORTBY_NULLS_FIRST') {
    text += ' NULLS FIRST';
  }
  return text;
}

function funcCall(n: Node, ctx: ExprContext): string {
  const b = nodeBody<AnyNode>(n);
  const name = strings(b.funcname as Node[]).filter((x) => x !== 'pg_catalog').join('.');
  if (b.agg_within_group || b.func_variadic) throw cannot('this function call');
  const argNodes = (b.args as Node[] | undefined) ?? [];
  if (argNodes.some((a) => nodeTag(a) === 'NamedArgExpr')) throw cannot('a named argument');
  // A plain call's arguments as overload resolution converted them (aggregates and window calls are not resolved here).
  const params = argNodes.length > 0 && b.over === undefined ? ctx.types.callTypes(n, ctx.from, false)?.args : undefined;
  const args = argNodes.map((a, i) => {
    if (params !== undefined) return argument(a, params[i]!, ctx);
    if (constKind(a) !== null) throw cannot('a literal argument');
    return expr(a, ctx);
  });
  let inner = b.agg_star ? '*' : args.join(', ');
  if (b.agg_distinct) inner = `DISTINCT ${inner}`;
  const order = (b.agg_order as Node[] | undefined) ?? [];
  if (order.length > 0) inner += ` ORDER BY ${order.map((o) => sortItem(o, ctx)).join(', ')}`;
  let out = `${name}(${inner})`;
  if (b.agg_filter) out += ` FILTER (WHERE ${expr(b.agg_filter as Node, ctx)})`;
  if (b.over) out += ` OVER ${windowSpec(b.over as AnyNode, ctx)}`;
  return out;
}

function windowSpec(w: AnyNode, ctx: ExprContext): string {
  if (w.name !== undefined && w.partitionClause === undefined && w.orderClause === undefined) return quoteIdent(w.name as string);
  const parts: string[] = [];
  if (w.refname !== undefined) parts.push(quoteIdent(w.refname as string));
  const partition = (w.partitionClause as Node[] | undefined) ?? [];
  if (partition.length > 0) parts.push(`PARTITION BY ${partition.map((p) => expr(p, ctx)).join(', ')}`);
  const order = (w.orderClause as Node[] | undefined) ?? [];
  if (order.length > 0) parts.push(`ORDER BY ${order.map((o) => sortItem(o, ctx)).join(', ')}`);
  const opts = (w.frameOptions as number | undefined) ?? 0;
  if (opts & 0x1) parts.push(frameClause(opts, w, ctx));
  return `(${parts.join(' ')})`;
}

/** Date and time ordering keys, whose RANGE offsets are intervals (in_range(key, key, interval)). */
const INTERVAL_OFFSET_KEYS = new Set(['date', 'timestamp', 'timestamptz', 'time', 'timetz', 'interval']);

/**
 * A RANGE offset: an untyped literal becomes a constant of the offset type in_range takes for the
 * ordering key (an interval for date and time keys, the key's own type otherwise). The frame clause
 * is printed without implicit casts, so a number converted to the key's type shows as written.
 */
function rangeOffset(node: Node, w: AnyNode, ctx: ExprContext): string {
  const k = constKind(node);
  if (k !== 'string') return expr(node, ctx);
  const order = (w.orderClause as Node[] | undefined) ?? [];
  const key = order.length === 1 ? typeOf(nodeBody<AnyNode>(order[0]!).node as Node, ctx) : null;
  if (key === null) throw cannot('this frame offset');
  return typedConstant(rawString(node), INTERVAL_OFFSET_KEYS.has(key.name) ? T.interval : key, ctx);
}

function frameClause(opts: number, w: AnyNode, ctx: ExprContext): string {
  let s = opts & FRAME.RANGE ? 'RANGE ' : opts & FRAME.ROWS ? 'ROWS ' : 'GROUPS ';
  const bound = (start: boolean): string => {
    const F = FRAME;
    if (opts & (start ? F.START_UNBOUNDED_PRECEDING : F.END_UNBOUNDED_PRECEDING)) return 'UNBOUNDED PRECEDING';
    if (opts & (start ? F.START_UNBOUNDED_FOLLOWING : F.END_UNBOUNDED_FOLLOWING)) return 'UNBOUNDED FOLLOWING';
    if (opts & (start ? F.START_CURRENT_ROW : F.END_CURRENT_ROW)) return 'CURRENT ROW';
    const node = (start ? w.startOffset : w.endOffset) as Node;
    // ROWS and GROUPS offsets are plain integers; a RANGE offset takes the ordering column's type.
    if (!(opts & FRAME.RANGE) && constKind(node) !== null && constKind(node) !== 'int') throw cannot('this frame offset');
    const offset = opts & FRAME.RANGE ? rangeOffset(node, w, ctx) : expr(node, ctx);
    if (opts & (start ? F.START_OFFSET_PRECEDING : F.END_OFFSET_PRECEDING)) return `${offset} PRECEDING`;
    return `${offset} FOLLOWING`;
  };
  s += opts & FRAME.BETWEEN ? `BETWEEN ${bound(true)} AND ${bound(false)}` : bound(true);
  if (opts & FRAME.EXCLUDE_CURRENT_ROW) s += ' EXCLUDE CURRENT ROW';
  else if (opts & FRAME.EXCLUDE_GROUP) s += ' EXCLUDE GROUP';
  else if (opts & FRAME.EXCLUDE_TIES) s += ' EXCLUDE TIES';
  return s;
}
