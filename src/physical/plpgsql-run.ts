/**
 * Runs a bound PL/pgSQL program (src/logical/plpgsql-program.ts) for one call. Each expression is
 * compiled once per call site and evaluated over a one-row batch of the variables' current values, as
 * PL/pgSQL evaluates its expressions as `SELECT expr` over its variables.
 */
import { QuireError } from '../common/errors.js';
import { formatValue } from '../common/format-value.js';
import { RecordValue } from '../common/record-value.js';
import { ColumnBuilder, getValue, type Batch, type Column } from '../common/column.js';
import type { ArrayValue, DataType, Value } from '../common/types.js';
import type { ExecContext } from '../execution/context.js';
import type { Expr } from '../logical/expr.js';
import type { PlProgram, PlStatement } from '../logical/plpgsql-program.js';
import { compileSimple } from './compile-expr.js';

type Eval = (vars: readonly Value[], ctx: ExecContext) => Value;

/** Statements with their expressions compiled. */
type Step =
  | { kind: 'assign'; target: number; field: number | null; subscript: Eval | null; value: Eval }
  | { kind: 'if'; branches: { cond: Eval; body: Step[] }[]; otherwise: Step[] }
  | { kind: 'return'; value: Eval | null }
  | { kind: 'raise'; level: string; format: string; params: Eval[]; types: DataType[]; sqlstate: string }
  | { kind: 'perform'; value: Eval }
  | { kind: 'block'; body: Step[] };

/** One signal object for RETURN: it unwinds nested IFs and blocks to the program's top. */
class Returned {
  constructor(readonly value: Value) {}
}

const MAX_DEPTH = 64;

function single(type: DataType, v: Value): Column {
  const b = new ColumnBuilder(type, 1);
  b.push(v);
  return b.finish();
}

export function compilePlProgram(program: PlProgram): (ctx: ExecContext, args: readonly Value[]) => Value {
  const types = program.variables.map((v) => v.type);
  const evalOf = (e: Expr): Eval => {
    const k = compileSimple(e);
    return (vars, ctx) => {
      const batch: Batch = { columns: vars.map((v, i) => single(types[i]!, v)), length: 1 };
      return getValue(k(batch, ctx), 0);
    };
  };
  const compile = (s: PlStatement): Step => {
    switch (s.kind) {
      case 'assign':
        return { kind: 'assign', target: s.target, field: s.field, subscript: s.subscript === null ? null : evalOf(s.subscript), value: evalOf(s.value) };
      case 'if':
        return { kind: 'if', branches: s.branches.map((b) => ({ cond: evalOf(b.cond), body: b.body.map(compile) })), otherwise: s.otherwise.map(compile) };
      case 'return':
        return { kind: 'return', value: s.value === null ? null : evalOf(s.value) };
      case 'raise':
        return { kind: 'raise', level: s.level, format: s.format, params: s.params.map(evalOf), types: s.params.map((p) => p.type), sqlstate: s.sqlstate };
      case 'perform':
        return { kind: 'perform', value: evalOf(s.value) };
      case 'block':
        return { kind: 'block', body: s.body.map(compile) };
    }
  };
  const inits = program.variables.map((v) => (v.init === null ? null : evalOf(v.init)));
  const body = program.body.map(compile);
  const paramTypes = program.variables.map((v) => v.type);
  let depth = 0;

  const run = (steps: readonly Step[], vars: Value[], ctx: ExecContext): void => {
    for (const st of steps) {
      switch (st.kind) {
        case 'assign': {
          const v = st.value(vars, ctx);
          if (st.subscript !== null) {
            vars[st.target] = withElement(vars[st.target] as ArrayValue | null, st.subscript(vars, ctx), v);
          } else if (st.field === null) {
            vars[st.target] = v;
          } else {
            const t = paramTypes[st.target]!;
            const fields = t.composite!.fields;
            const cur = vars[st.target] as RecordValue | null;
            // Assigning a field of a NULL composite makes a row of NULLs first, as PL/pgSQL does.
            const values = cur === null ? fields.map(() => null as Value) : [...cur.fields];
            values[st.field] = v;
            vars[st.target] = new RecordValue(values, fields.map((f) => f.type));
          }
          break;
        }
        case 'if': {
          let taken = false;
          for (const b of st.branches) {
            if (b.cond(vars, ctx) === true) {
              run(b.body, vars, ctx);
              taken = true;
              break;
            }
          }
          if (!taken) run(st.otherwise, vars, ctx);
          break;
        }
        case 'return':
          throw new Returned(st.value === null ? null : st.value(vars, ctx));
        case 'raise': {
          const params = st.params.map((p, i) => {
            const v = p(vars, ctx);
            return v === null ? '<NULL>' : (formatValue(v, st.types[i]!, { timezone: ctx.eval.timezone }) ?? '<NULL>');
          });
          const message = fillFormat(st.format, params);
          if (st.level === 'exception') throw new QuireError(st.sqlstate, message);
          if (st.level === 'notice' || st.level === 'warning' || st.level === 'info') ctx.notice?.(message, st.level);
          break;
        }
        case 'perform':
          st.value(vars, ctx);
          break;
        case 'block':
          run(st.body, vars, ctx);
          break;
      }
    }
  };
  return (ctx, args) => {
    if (depth >= MAX_DEPTH) throw new QuireError('54001', 'stack depth limit exceeded');
    const vars: Value[] = program.variables.map((_, i) => (i < args.length ? args[i]! : null));
    for (let i = args.length; i < vars.length; i++) {
      const init = inits[i];
      if (init !== null && init !== undefined) vars[i] = init(vars, ctx);
    }
    depth++;
    try {
      run(body, vars, ctx);
    } catch (e) {
      if (e instanceof Returned) return e.value;
      throw e;
    } finally {
      depth--;
    }
    if (program.returns.name === 'unknown') return null;
    throw new QuireError('2F005', 'control reached end of function without RETURN', { detail: `PL/pgSQL function ${program.name}` });
  };
}

/**
 * `a[i] := v` on Quire's one-dimensional arrays (lower bound 1): past the end the array grows with
 * NULLs, a NULL array becomes `{v}` for i = 1.
 */
function withElement(a: ArrayValue | null, index: Value, v: Value): ArrayValue {
  if (index === null) throw new QuireError('22004', 'array subscript in assignment must not be null');
  const i = index as number;
  // PostgreSQL would start a NULL array at subscript i (lower bound i): only i = 1 is Quire's shape.
  if (i < 1 || (a === null && i !== 1)) throw new QuireError('0A000', 'array assignment that moves the lower bound from 1 is not supported');
  const out = a === null ? [] : [...a];
  while (out.length < i - 1) out.push(null);
  out[i - 1] = v;
  return out;
}

/** RAISE's format: each `%` takes the next parameter, `%%` is a percent sign. */
function fillFormat(format: string, params: readonly string[]): string {
  let out = '';
  let p = 0;
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if (c === '%') {
      if (format[i + 1] === '%') {
        out += '%';
        i++;
        continue;
      }
      out += params[p++] ?? '';
      continue;
    }
    out += c;
  }
  return out;
}
