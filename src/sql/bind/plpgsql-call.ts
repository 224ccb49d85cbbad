/**
 * A call of a PL/pgSQL function: its body (read at CREATE FUNCTION into a PlSource) is bound at the
 * call site, with the argument types, into a PlProgram whose expressions read the function's
 * variables as the columns of a virtual row (parameters first, then DECLAREd variables). `$n` and
 * parameter names resolve through a routine frame to those columns.
 */
import type { Node, SelectStmt } from '@pgsql/types';
import { positionOf, QuireError } from '../../common/errors.js';
import { T, elementType, isArrayType, typeDisplayName, type DataType } from '../../common/types.js';
import type { Expr } from '../../logical/expr.js';
import type { PlProgram, PlStatement, PlVariable } from '../../logical/plpgsql-program.js';
import type { PlSource, PlSourceStatement, SqlFunctionDef } from '../../storage/catalog.js';
import { nodeBody, nodeTag, type AnyNode } from '../ast.js';
import { coerce } from '../coerce.js';
import { parseStatements } from '../parse.js';
import { Scope } from '../scope.js';
import { bindExpr, coerceBool, type ExprCtx } from './expr.js';
import { withRoutineFrame } from './function-call.js';
import type { RoutineFrame } from './routine.js';

const pos = positionOf;

/** The expression of `SELECT <text>`; queries (FROM, WHERE, …) inside PL/pgSQL expressions are refused. */
function expressionOf(text: string, fnName: string): Node {
  let stmts;
  try {
    stmts = parseStatements(`SELECT ${text}`);
  } catch (e) {
    if (e instanceof QuireError) throw new QuireError(e.code, `${e.message} in PL/pgSQL function ${fnName}`);
    throw e;
  }
  const s = stmts.length === 1 && nodeTag(stmts[0]!.stmt) === 'SelectStmt' ? nodeBody<SelectStmt>(stmts[0]!.stmt) : undefined;
  const simple = s !== undefined && !s.fromClause?.length && !s.whereClause && !s.groupClause?.length && !s.sortClause?.length && !s.limitCount && !s.valuesLists && (s.op === undefined || s.op === 'SETOP_NONE');
  if (!simple || s.targetList?.length !== 1) {
    throw new QuireError('0A000', `PL/pgSQL expressions that are queries are not supported: ${text.trim()}`);
  }
  return nodeBody<AnyNode>(s.targetList[0]!).val as Node;
}

export function bindPlpgsqlCall(fn: SqlFunctionDef, src: PlSource, args: readonly Expr[], resultType: DataType, cx: ExprCtx, loc: number | undefined): Expr {
  const params: PlVariable[] = fn.params.map((p, i) => ({ name: p.name ?? `$${i + 1}`, type: typeof p.type === 'string' ? args[i]!.type : p.type, init: null }));
  // FOUND follows the parameters, as PL/pgSQL declares it; no statement Quire runs sets it.
  const found: PlVariable = { name: 'found', type: T.bool, init: { kind: 'const', value: false, type: T.bool } };
  const variables: PlVariable[] = [...params, found];
  const scope = new Scope(null);
  const column = (i: number, v: { name: string; type: DataType }): Expr => ({ kind: 'column', index: i, type: v.type, name: v.name });
  const entry = (i: number, v: { name: string; type: DataType }) => ({ qualifier: null, name: v.name, expr: column(i, v), hiddenFromStar: false, hiddenUnqualified: false });
  scope.entries = [...params, found].map((v, i) => entry(i, v));
  const frame: RoutineFrame = { fn, args: params.map((v, i) => column(i, v)), anchor: null, offset: 1 };
  const vcx: ExprCtx = { scope, clause: 'PL/pgSQL expressions', aggs: null, windows: null, env: cx.env };
  const bind = (text: string): Expr => {
    const e = bindExpr(expressionOf(text, fn.name), vcx);
    return e.type.name === 'unknown' ? coerce(e, T.text, 'implicit', cx.env) : e;
  };
  const assignTo = (text: string, t: DataType, what: string): Expr => coerce(bind(text), t, 'assignment', cx.env, 0, what);
  const varIndex = (name: string): number => {
    const i = variables.findIndex((v) => v.name === name);
    if (i < 0) throw new QuireError('42601', `"${name}" is not a known variable`, { position: pos(loc) });
    return i;
  };
  const stmt = (s: PlSourceStatement): PlStatement => {
    switch (s.kind) {
      case 'assign': {
        const target = varIndex(s.target);
        const t = variables[target]!.type;
        if (s.subscript !== null) {
          if (!isArrayType(t)) throw new QuireError('42804', `cannot subscript type ${typeDisplayName(t)} because it does not support subscripting`);
          const subscript = coerce(bind(s.subscript), T.int4, 'assignment', cx.env, 0, 'array subscript');
          return { kind: 'assign', target, field: null, subscript, value: assignTo(s.value, elementType(t), `element of "${s.target}"`) };
        }
        if (s.field === null) return { kind: 'assign', target, field: null, subscript: null, value: assignTo(s.value, t, `variable "${s.target}"`) };
        const c = t.name === 'record' ? t.composite : undefined;
        if (c === undefined) throw new QuireError('42804', `variable "${s.target}" of type ${typeDisplayName(t)} is not a composite`);
        const field = c.fields.findIndex((f) => f.name === s.field);
        if (field < 0) throw new QuireError('42703', `record "${s.target}" has no field "${s.field}"`);
        return { kind: 'assign', target, field, subscript: null, value: assignTo(s.value, c.fields[field]!.type, `field "${s.field}"`) };
      }
      case 'if':
        return {
          kind: 'if',
          branches: s.branches.map((b) => ({ cond: coerceBool(bind(b.cond), vcx, 'argument of IF', undefined), body: b.body.map(stmt) })),
          otherwise: s.otherwise.map(stmt),
        };
      case 'return':
        if (s.value === null) return { kind: 'return', value: null };
        if (fn.returns === 'void') throw new QuireError('42804', 'RETURN cannot have a parameter in function returning void');
        return { kind: 'return', value: coerce(bind(s.value), resultType, 'assignment', cx.env, 0, 'return value') };
      case 'raise': {
        const holes = (s.format.replace(/%%/g, '').match(/%/g) ?? []).length;
        if (holes > s.params.length) throw new QuireError('42601', 'too few parameters specified for RAISE');
        if (holes < s.params.length) throw new QuireError('42601', 'too many parameters specified for RAISE');
        return { kind: 'raise', level: s.level, format: s.format, params: s.params.map(bind), sqlstate: s.sqlstate };
      }
      case 'block':
        return { kind: 'block', body: s.body.map(stmt) };
    }
  };
  let program: PlProgram | undefined;
  withRoutineFrame(vcx, frame, loc, () => {
    // Each DECLAREd variable's default sees the variables declared before it.
    for (const d of src.declared) {
      const type = typeof d.type === 'number' ? params[d.type]!.type : d.type;
      const init = d.init === null ? null : assignTo(d.init, type, `variable "${d.name}"`);
      scope.entries = [...scope.entries, entry(variables.length, { name: d.name, type })];
      variables.push({ name: d.name, type, init });
    }
    program = { name: fn.name, definition: fn, variables, paramCount: params.length, body: src.body.map(stmt), returns: fn.returns === 'void' ? T.unknown : resultType };
  });
  return { kind: 'plpgsql', name: fn.name, program: program!, args: [...args], type: resultType };
}
