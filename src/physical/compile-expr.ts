/**
 * Expression compiler: a bound Expr becomes one JavaScript function that loops over a batch.
 *
 * Generated code reads typed arrays directly, propagates NULL as JS null, short-circuits AND/OR/CASE
 * and COALESCE like PostgreSQL, and inlines the hot arithmetic and comparisons; everything else calls
 * the function registry's implementation. Only our own bound tree is turned into source text: user
 * literals live in a constants array and are never spliced into the code.
 */
import { castValue } from '../common/cast.js';
import { compareValues, quantifiedCompare } from '../common/compare.js';
import { QuireError } from '../common/errors.js';
import { storageKind, type DataType, type Value } from '../common/types.js';
import { allocData, makeColumn, type Batch, type Column } from '../common/column.js';
import type { ExecContext } from '../execution/context.js';
import type { Expr } from '../logical/expr.js';
import type { ScalarImpl } from '../functions/registry.js';
import { codedTextMatch } from './coded-text-match.js';
import { compilePlProgram } from './plpgsql-run.js';
import { scaledNumericFloat } from './scaled-numeric-float.js';
import { scaledNumericCompare } from './scaled-numeric-compare.js';
import { scaledNumericCastKernel } from './scaled-numeric-cast.js';

/** A subquery the kernel needs; the operator evaluates it (asynchronously) before running the kernel. */
export interface SubquerySlot {
  readonly expr: Expr & { kind: 'subquery' };
}

export interface Kernel {
  readonly slots: readonly SubquerySlot[];
  /** slotValues[s]: correlated → one value per row; uncorrelated → the single value. */
  run(batch: Batch, ctx: ExecContext, slotValues: readonly unknown[]): Column;
}

export interface PredicateKernel {
  readonly slots: readonly SubquerySlot[];
  /**
   * The selected rows in sel[0..n). With `out` (at least batch.length long) they are written there and
   * `sel` is `out`, so a caller that is done with them before the next batch allocates nothing per batch.
   */
  run(batch: Batch, ctx: ExecContext, slotValues: readonly unknown[], out?: Uint32Array): { sel: Uint32Array; n: number };
}

/** Runtime support the generated code calls into. */
const RT = {
  overflow(what: string): never {
    throw new QuireError('22003', `${what} out of range`);
  },
  cast(v: Value, from: DataType, to: DataType, ctx: ExecContext, explicit: boolean): Value {
    // The statement's EvalContext is a CastContext: its TimeZone and output settings, no object per call.
    return castValue(v, from, to, ctx.eval, explicit);
  },
  cmp(a: Value, b: Value, t: DataType): number {
    return compareValues(a, b, t);
  },
  cmpF(a: number, b: number): number {
    if (a < b) return -1;
    if (a > b) return 1;
    if (a === b) return 0;
    // NaN sorts above every other value and equals itself, as in PostgreSQL.
    const an = a !== a;
    const bn = b !== b;
    return an && bn ? 0 : an ? 1 : -1;
  },
  cmpText(a: string, b: string): number {
    if (a === b) return 0;
    return compareValues(a, b, TEXT_TYPE);
  },
  /** Three-valued `v op ANY/ALL (list)`. */
  quantified: quantifiedCompare,
  /** Three-valued `(v1, …) op ANY/ALL (rows)` for op = or <>: rows equal when every column is. */
  quantifiedRow(vs: readonly Value[], rows: readonly (readonly Value[])[], ts: readonly DataType[], op: string, all: boolean): boolean | null {
    if (rows.length === 0) return all;
    let sawNull = false;
    for (const row of rows) {
      // Row equality: false as soon as one column differs; unknown if none differs but one is NULL.
      let eq: boolean | null = true;
      for (let c = 0; c < vs.length; c++) {
        const a = vs[c]!;
        const b = row[c]!;
        if (a === null || b === null) {
          eq = null;
          continue;
        }
        if (compareValues(a, b, ts[c]!) !== 0) {
          eq = false;
          break;
        }
      }
      const r = eq === null ? null : op === '=' ? eq : !eq;
      if (r === null) sawNull = true;
      else if (all && !r) return false;
      else if (!all && r) return true;
    }
    return sawNull ? null : all;
  },
  /** Fast `v = ANY (set)` for uncorrelated IN (subquery): set is pre-hashed by the operator. */
  inSet(v: Value, s: { keys: Set<unknown>; hasNull: boolean; size: number; key: (v: Value) => unknown }): boolean | null {
    if (s.size === 0) return false;
    if (v === null) return null;
    if (s.keys.has(s.key(v))) return true;
    return s.hasNull ? null : false;
  },
};
const TEXT_TYPE: DataType = { name: 'text', typmod: -1 };

type Fn = ScalarImpl;

class CodeGen {
  private n = 0;
  readonly prelude: string[] = [];
  readonly consts: unknown[] = [];
  readonly fns: Fn[] = [];
  readonly types: DataType[] = [];
  readonly slots: SubquerySlot[] = [];
  private colVars = new Map<number, string>();
  /**
   * Set while generating the loop for batches whose read columns have no NULL arrays: a column read is
   * then the bare array element, so V8 types it as a number and folds the NULL checks that follow.
   */
  noNulls = false;
  private outerVars = new Map<string, string>();
  private paramVars = new Map<number, string>();

  tmp(): string {
    return `t${this.n++}`;
  }
  folded(e: Expr & { kind: 'cast' }): Value | undefined {
    return foldCast(e);
  }
  konst(v: unknown): string {
    const i = this.consts.length;
    this.consts.push(v);
    const name = `k${i}`;
    this.prelude.push(`const ${name} = K[${i}];`);
    return name;
  }
  typeRef(t: DataType): string {
    let i = this.types.indexOf(t);
    if (i < 0) {
      i = this.types.length;
      this.types.push(t);
    }
    return `TY[${i}]`;
  }
  fnRef(f: Fn): string {
    let i = this.fns.indexOf(f);
    if (i < 0) {
      i = this.fns.length;
      this.fns.push(f);
    }
    return `F[${i}]`;
  }
  column(index: number, kind: string): { d: string; nl: string } {
    let v = this.colVars.get(index);
    if (v === undefined) {
      v = `c${index}`;
      this.colVars.set(index, v);
      // The storage kind goes into the source as a comment: cached code is shared by every query with the
      // same text, and keeping Int32Array and Float64Array readers apart keeps each element access monomorphic.
      this.prelude.push(`const d_${v} = cols[${index}].data, n_${v} = cols[${index}].nulls; // ${kind}`);
    }
    return { d: `d_${v}`, nl: `n_${v}` };
  }
  /** The NULL-array variables of the columns read so far. */
  nullVars(): string[] {
    return [...this.colVars.values()].map((v) => `n_${v}`);
  }
  outer(levels: number, index: number): string {
    const key = `${levels}_${index}`;
    let v = this.outerVars.get(key);
    if (v === undefined) {
      v = `o${key}`;
      this.outerVars.set(key, v);
      this.prelude.push(`const ${v} = ctx.outer[ctx.outer.length - ${levels}][${index}];`);
    }
    return v;
  }
  param(index: number): string {
    let v = this.paramVars.get(index);
    if (v === undefined) {
      v = `p${index}`;
      this.paramVars.set(index, v);
      this.prelude.push(`const ${v} = ctx.params[${index}] === undefined ? null : ctx.params[${index}];`);
    }
    return v;
  }

  /** Emits statements computing `e` into a fresh variable; returns [code, variable]. */
  gen(e: Expr): [string, string] {
    const r = this.tmp();
    switch (e.kind) {
      case 'column': {
        const { d, nl } = this.column(e.index, storageKind(e.type));
        const read = storageKind(e.type) === 'u8' ? `${d}[i] === 1` : `${d}[i]`;
        if (this.noNulls) return [`const ${r} = ${read};`, r];
        return [`const ${r} = (${nl} !== null && ${nl}[i] === 1) ? null : ${read};`, r];
      }
      case 'outer':
        return [`const ${r} = ${this.outer(e.levels, e.index)};`, r];
      case 'const':
        return [`const ${r} = ${this.konst(e.value)};`, r];
      case 'param':
        return [`const ${r} = ${this.param(e.index)};`, r];
      case 'cast':
        return this.genCast(e, r);
      case 'call':
        return this.genCall(e, r);
      case 'and':
      case 'or': {
        const stop = e.kind === 'and' ? 'false' : 'true';
        let code = `let ${r} = ${e.kind === 'and' ? 'true' : 'false'};\n`;
        for (const a of e.args) {
          const [c, v] = this.gen(a);
          code += `if (${r} !== ${stop}) {\n${c}\nif (${v} === ${stop}) ${r} = ${stop}; else if (${v} === null) ${r} = null;\n}\n`;
        }
        return [code, r];
      }
      case 'not': {
        const [c, v] = this.gen(e.arg);
        return [`${c}\nconst ${r} = ${v} === null ? null : !${v};`, r];
      }
      case 'is-null': {
        const [c, v] = this.gen(e.arg);
        return [`${c}\nconst ${r} = ${v} ${e.negated ? '!==' : '==='} null;`, r];
      }
      case 'bool-test': {
        const [c, v] = this.gen(e.arg);
        const test = e.test === 'unknown' ? `${v} === null` : `${v} === ${e.test}`;
        return [`${c}\nconst ${r} = ${e.negated ? '!' : ''}(${test});`, r];
      }
      case 'compare': {
        const [cl, l] = this.gen(e.left);
        const [cr, rr] = this.gen(e.right);
        return [`${cl}\n${cr}\nconst ${r} = (${l} === null || ${rr} === null) ? null : ${this.compareCode(e.op, l, rr, e.left.type)};`, r];
      }
      case 'distinct-from': {
        const [cl, l] = this.gen(e.left);
        const [cr, rr] = this.gen(e.right);
        const eq = this.compareCode('=', l, rr, e.left.type);
        const same = `((${l} === null && ${rr} === null) || (${l} !== null && ${rr} !== null && ${eq}))`;
        return [`${cl}\n${cr}\nconst ${r} = ${e.negated ? '' : '!'}${same};`, r];
      }
      case 'nullif': {
        const [cl, l] = this.gen(e.left);
        const [cr, rr] = this.gen(e.right);
        return [`${cl}\n${cr}\nconst ${r} = (${l} !== null && ${rr} !== null && ${this.compareCode('=', l, rr, e.left.type)}) ? null : ${l};`, r];
      }
      case 'case': {
        let code = `let ${r} = null;\n`;
        let close = '';
        for (const w of e.whens) {
          const [cw, vw] = this.gen(w.when);
          const [ct, vt] = this.gen(w.then);
          code += `{\n${cw}\nif (${vw} === true) {\n${ct}\n${r} = ${vt};\n} else {\n`;
          close += '}\n}\n';
        }
        const [ce, ve] = this.gen(e.else);
        code += `${ce}\n${r} = ${ve};\n${close}`;
        return [code, r];
      }
      case 'coalesce': {
        let code = `let ${r} = null;\n`;
        let close = '';
        for (const a of e.args) {
          const [c, v] = this.gen(a);
          code += `{\n${c}\nif (${v} !== null) ${r} = ${v}; else {\n`;
          close += '}\n}\n';
        }
        return [code + close, r];
      }
      case 'minmax': {
        let code = `let ${r} = null;\n`;
        const better = e.op === 'greatest' ? '>' : '<';
        for (const a of e.args) {
          const [c, v] = this.gen(a);
          code += `{\n${c}\nif (${v} !== null && (${r} === null || ${this.orderCode(v, r, e.type)} ${better} 0)) ${r} = ${v};\n}\n`;
        }
        return [code, r];
      }
      case 'plpgsql': {
        const parts = e.args.map((a) => this.gen(a));
        const run = compilePlProgram(e.program);
        const call = ((ctx: ExecContext, ...args: Value[]) => run(ctx, args)) as unknown as Fn;
        return [`${parts.map((p) => p[0]).join('\n')}\nconst ${r} = ${this.fnRef(call)}(ctx${parts.map((p) => ', ' + p[1]).join('')});`, r];
      }
      case 'array': {
        const parts = e.args.map((a) => this.gen(a));
        return [`${parts.map((p) => p[0]).join('\n')}\nconst ${r} = [${parts.map((p) => p[1]).join(', ')}];`, r];
      }
      case 'in-list': {
        const [ca, va] = this.gen(e.arg);
        let code = `${ca}\nlet ${r} = false;\nif (${va} === null) ${r} = null; else {\n`;
        for (const item of e.list) {
          const [ci, vi] = this.gen(item);
          code += `if (${r} !== true) {\n${ci}\nif (${vi} === null) ${r} = null; else if (${this.compareCode('=', va, vi, e.arg.type)}) ${r} = true;\n}\n`;
        }
        code += '}\n';
        if (e.negated) code += `${r} = ${r} === null ? null : !${r};\n`;
        return [code.replace(`let ${r} = false;`, `let ${r} = false;`), r];
      }
      case 'subquery':
        return this.genSubquery(e, r);
    }
  }

  private genSubquery(e: Expr & { kind: 'subquery' }, r: string): [string, string] {
    const s = this.slots.length;
    this.slots.push({ expr: e });
    const slot = e.correlated ? `S[${s}][i]` : `S[${s}]`;
    if (e.mode === 'scalar' || e.mode === 'exists' || e.mode === 'array') return [`const ${r} = ${slot};`, r];
    if (e.rowArgs) {
      const parts = e.rowArgs.map((a) => this.gen(a));
      const types = `[${e.rowArgs.map((a) => this.typeRef(a.type)).join(', ')}]`;
      return [`${parts.map((p) => p[0]).join('\n')}\nconst ${r} = rt.quantifiedRow([${parts.map((p) => p[1]).join(', ')}], ${slot}, ${types}, '${e.op}', ${e.mode === 'all'});`, r];
    }
    const [ca, va] = this.gen(e.arg!);
    if (!e.correlated && e.mode === 'any' && e.op === '=') {
      return [`${ca}\nconst ${r} = rt.inSet(${va}, ${slot});`, r];
    }
    return [`${ca}\nconst ${r} = rt.quantified(${va}, ${slot}, ${this.typeRef(e.arg!.type)}, '${e.op}', ${e.mode === 'all'});`, r];
  }

  /** JS expression comparing non-null l and r of type t with op. */
  compareCode(op: string, l: string, r: string, t: DataType): string {
    const jsop = op === '=' ? '===' : op === '<>' ? '!==' : op;
    switch (t.name) {
      case 'int2':
      case 'int4':
      case 'int8':
      case 'money':
      case 'date':
      case 'timestamp':
      case 'timestamptz':
      case 'bool':
        return `(${l} ${jsop} ${r})`;
      case 'text':
      case 'varchar':
      case 'name':
        if (op === '=' || op === '<>') return `(${l} ${jsop} ${r})`;
        return `(rt.cmpText(${l}, ${r}) ${op} 0)`;
      case 'float4':
      case 'float8':
        return `(rt.cmpF(${l}, ${r}) ${op === '=' ? '===' : op === '<>' ? '!==' : op} 0)`;
      default:
        return `(rt.cmp(${l}, ${r}, ${this.typeRef(t)}) ${op === '=' ? '===' : op === '<>' ? '!==' : op} 0)`;
    }
  }

  orderCode(l: string, r: string, t: DataType): string {
    switch (t.name) {
      case 'int2':
      case 'int4':
      case 'int8':
      case 'money':
      case 'date':
      case 'timestamp':
      case 'timestamptz':
        return `(${l} < ${r} ? -1 : ${l} > ${r} ? 1 : 0)`;
      case 'float4':
      case 'float8':
        return `rt.cmpF(${l}, ${r})`;
      case 'text':
      case 'varchar':
      case 'name':
        return `rt.cmpText(${l}, ${r})`;
      default:
        return `rt.cmp(${l}, ${r}, ${this.typeRef(t)})`;
    }
  }

  private genCast(e: Expr & { kind: 'cast' }, r: string): [string, string] {
    const folded = foldCast(e);
    if (folded !== undefined) return [`const ${r} = ${this.konst(folded)};`, r];
    const scaled = scaledNumericFloat(this, e, (into) => {
      const [c, v] = this.gen(e.arg);
      return `${c}\n${into} = ${v} === null ? null : rt.cast(${v}, ${this.typeRef(e.arg.type)}, ${this.typeRef(e.type)}, ctx, ${e.explicit});`;
    });
    if (scaled !== null) return scaled;
    const [c, v] = this.gen(e.arg);
    const from = e.arg.type.name;
    const to = e.type.name;
    if (to === 'int8' && (from === 'int2' || from === 'int4')) return [`${c}\nconst ${r} = ${v};`, r];
    if (to === 'int4' && from === 'int2') return [`${c}\nconst ${r} = ${v};`, r];
    if (to === 'float8' && (from === 'int2' || from === 'int4' || from === 'float4')) return [`${c}\nconst ${r} = ${v};`, r];
    if (to === 'float8' && from === 'int8') return [`${c}\nconst ${r} = ${v} === null ? null : Number(${v});`, r];
    // An integer's text is its plain decimal digits (an int8 number is a safe integer, far below String's
    // exponent form; a bigint prints the same way): no trip through the general cast per row.
    if (to === 'text' && (from === 'int2' || from === 'int4' || from === 'int8')) return [`${c}\nconst ${r} = ${v} === null ? null : String(${v});`, r];
    return [`${c}\nconst ${r} = ${v} === null ? null : rt.cast(${v}, ${this.typeRef(e.arg.type)}, ${this.typeRef(e.type)}, ctx, ${e.explicit});`, r];
  }

  private genCall(e: Expr & { kind: 'call' }, r: string): [string, string] {
    const parts = e.args.map((a) => this.gen(a));
    const code = parts.map((p) => p[0]).join('\n');
    const vs = parts.map((p) => p[1]);
    const strict = e.overload.strict !== false;
    const anyNull = vs.length ? vs.map((v) => `${v} === null`).join(' || ') : 'false';
    const impl = e.overload.specialize?.(e.args.map((a) => a.type)) ?? e.overload.fn;
    const fallback = `${this.fnRef(impl)}(ctx.eval${vs.map((v) => ', ' + v).join('')})`;
    const t0 = e.args[0]?.type.name;
    const same = e.args.length === 2 && e.args[0]!.type.name === e.args[1]!.type.name && t0 === e.type.name;
    if (same && (e.name === '+' || e.name === '-' || e.name === '*')) {
      const [a, b] = vs as [string, string];
      const op = e.name;
      if (t0 === 'int4' || t0 === 'int2') {
        const lim = t0 === 'int4' ? ['2147483647', '-2147483648', 'integer'] : ['32767', '-32768', 'smallint'];
        return [
          `${code}\nlet ${r} = null;\nif (!(${anyNull})) { ${r} = ${a} ${op} ${b}; if (${r} > ${lim[0]} || ${r} < ${lim[1]}) rt.overflow('${lim[2]}'); }`,
          r,
        ];
      }
      if (t0 === 'int8') {
        return [
          `${code}\nlet ${r} = null;\nif (!(${anyNull})) { if (typeof ${a} === 'number' && typeof ${b} === 'number') { ${r} = ${a} ${op} ${b}; if (!Number.isSafeInteger(${r})) ${r} = ${fallback}; } else ${r} = ${fallback}; }`,
          r,
        ];
      }
      if (t0 === 'float8') {
        return [
          `${code}\nlet ${r} = null;\nif (!(${anyNull})) { ${r} = ${a} ${op} ${b}; if (${r} === Infinity || ${r} === -Infinity || (${op === '*' ? `${r} === 0` : 'false'})) ${r} = ${fallback}; }`,
          r,
        ];
      }
    }
    // Mixed integer widths (int8 * int4, id::bigint % 1000): int8 arithmetic on numbers, as for int8 alone.
    const t1 = e.args[1]?.type.name;
    const integers = e.args.length === 2 && INTEGER.has(t0 ?? '') && INTEGER.has(t1 ?? '');
    if (integers && e.type.name === 'int8' && (e.name === '+' || e.name === '-' || e.name === '*')) {
      const [a, b] = vs as [string, string];
      return [
        `${code}\nlet ${r} = null;\nif (!(${anyNull})) { if (typeof ${a} === 'number' && typeof ${b} === 'number') { ${r} = ${a} ${e.name} ${b}; if (!Number.isSafeInteger(${r})) ${r} = ${fallback}; } else ${r} = ${fallback}; }`,
        r,
      ];
    }
    // Integer modulo: JS % on safe integers is exact and takes the dividend's sign, as PostgreSQL's does;
    // a zero divisor (22012) and bigint int8s go through the function. -0 becomes 0.
    if (integers && e.name === '%' && INTEGER.has(e.type.name)) {
      const [a, b] = vs as [string, string];
      return [
        `${code}\nlet ${r} = null;\nif (!(${anyNull})) { if (typeof ${a} === 'number' && typeof ${b} === 'number' && ${b} !== 0) ${r} = (${a} % ${b}) + 0; else ${r} = ${fallback}; }`,
        r,
      ];
    }
    // text || text: the function is a + b.
    if (e.name === '||' && e.args.length === 2 && e.type.name === 'text' && TEXT_LIKE.has(t0 ?? '') && TEXT_LIKE.has(t1 ?? '')) {
      const [a, b] = vs as [string, string];
      return [`${code}\nconst ${r} = (${anyNull}) ? null : ${a} + ${b};`, r];
    }
    // text || integer (textanycat): the integer's cast to text is its decimal digits, String()'s.
    if (e.name === '||' && e.args.length === 2 && e.type.name === 'text' && ((TEXT_LIKE.has(t0 ?? '') && INTEGER.has(t1 ?? '')) || (INTEGER.has(t0 ?? '') && TEXT_LIKE.has(t1 ?? '')))) {
      const [a, b] = vs as [string, string];
      return [`${code}\nconst ${r} = (${anyNull}) ? null : ${TEXT_LIKE.has(t0!) ? `${a} + String(${b})` : `String(${a}) + ${b}`};`, r];
    }
    if (!strict) return [`${code}\nconst ${r} = ${fallback};`, r];
    return [`${code}\nconst ${r} = (${anyNull}) ? null : ${fallback};`, r];
  }
}

const INTEGER = new Set(['int2', 'int4', 'int8']);
const TEXT_LIKE = new Set(['text', 'varchar', 'name']);

/** Types whose casts among each other depend on nothing but the value (no time zone, no output settings). */
const PURE_CAST_FROM = new Set(['unknown', 'text', 'varchar', 'bpchar', 'name', 'bool', 'int2', 'int4', 'int8', 'float4', 'float8', 'numeric']);
const PURE_CAST_TO = new Set(['bool', 'int2', 'int4', 'int8', 'float4', 'float8', 'numeric']);

/**
 * The value of a cast of a constant (possibly through further casts), computed once at compile time
 * instead of per row, e.g. `w < 0.5` binds as w < CAST(CAST('0.5' AS numeric) AS float8). undefined when
 * the cast is not foldable or fails: a failing cast is left to run time, where it only raises its error if
 * a row actually evaluates it.
 */
function foldCast(e: Expr & { kind: 'cast' }): Value | undefined {
  const a = e.arg;
  const v = a.kind === 'const' ? a.value : a.kind === 'cast' ? foldCast(a) : undefined;
  if (v === undefined) return undefined;
  if (!PURE_CAST_FROM.has(a.type.name) || !PURE_CAST_TO.has(e.type.name)) return undefined;
  try {
    return castValue(v, a.type, e.type, undefined, e.explicit);
  } catch {
    return undefined;
  }
}

function writerCode(t: DataType, v: string): string {
  switch (storageKind(t)) {
    case 'u8':
      return `if (${v} === null) { if (onull === null) onull = new Uint8Array(n); onull[i] = 1; } else out[i] = ${v} ? 1 : 0;`;
    case 'i32':
      return `if (${v} === null) { if (onull === null) onull = new Uint8Array(n); onull[i] = 1; } else out[i] = ${v};`;
    case 'f64':
      return `if (${v} === null) { if (onull === null) onull = new Uint8Array(n); onull[i] = 1; if (wide !== null) wide[i] = null; } else if (typeof ${v} === 'bigint') { if (wide === null) wide = Array.from(out); wide[i] = ${v}; } else if (wide !== null) wide[i] = ${v}; else out[i] = ${v};`;
    default:
      return `if (${v} === null) { if (onull === null) onull = new Uint8Array(n); onull[i] = 1; out[i] = null; } else out[i] = ${v};`;
  }
}

type KernelFn = (
  batch: Batch,
  ctx: ExecContext,
  S: readonly unknown[],
  K: readonly unknown[],
  F: readonly Fn[],
  TY: readonly DataType[],
  outType: DataType,
) => unknown;

/**
 * Compiled kernels by generated source. The source depends only on the expression's shape (column
 * indexes, storage kinds, types, operators); literals, functions and types arrive as arguments, so one
 * function object serves every query of that shape. Before, every query built fresh functions that started
 * in the interpreter and were optimized again per closure; now a repeated query shape runs code V8 has
 * already optimized. Bounded so ad-hoc workloads cannot grow it forever.
 */
const kernelCache = new Map<string, KernelFn>();
const KERNEL_CACHE_MAX = 2048;

function build(body: string): KernelFn {
  let f = kernelCache.get(body);
  if (f === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    f = new Function('rt', 'alloc', 'mk', body)(RT, allocData, makeColumn) as KernelFn;
    if (kernelCache.size >= KERNEL_CACHE_MAX) kernelCache.clear();
    kernelCache.set(body, f);
  }
  return f;
}

/**
 * A column of one value, filled in one call: a constant argument (ntile's bucket count, lead's offset
 * and default) is projected once per row of the input, and a generated per-row loop costs several
 * times a typed fill. Null when the value's representation needs the general writer (a bigint int8).
 */
function filledColumn(t: DataType, v: unknown, n: number): Column | null {
  const data = allocData(t, n);
  if (v === null) {
    const nulls = new Uint8Array(n);
    nulls.fill(1);
    return makeColumn(t, data, nulls);
  }
  if (data instanceof Uint8Array) {
    if (typeof v !== 'boolean') return null;
    data.fill(v ? 1 : 0);
  } else if (data instanceof Int32Array || data instanceof Float64Array) {
    if (typeof v !== 'number') return null;
    data.fill(v);
  } else data.fill(v as Value);
  return makeColumn(t, data, null);
}

export function compileKernel(e: Expr): Kernel {
  const coded = codedTextMatch(e);
  if (coded !== null) {
    const general = compileGeneralKernel(e);
    return { slots: general.slots, run: (batch, ctx, S) => coded.column(batch, ctx) ?? general.run(batch, ctx, S) };
  }
  if (e.kind === 'const') {
    const general = compileGeneralKernel(e);
    const value = e.value;
    return { slots: [], run: (batch, ctx, S) => filledColumn(e.type, value, batch.length) ?? general.run(batch, ctx, S) };
  }
  const scaledCast = scaledNumericCastKernel(e, compileKernel, () => compileGeneralKernel(e));
  if (scaledCast !== null) return scaledCast;
  const source = e.kind === 'column' ? null : codeSource(e);
  if (source !== null) {
    // Text that is either one input column's value in the same row or NULL (CASE … THEN NULL ELSE s END,
    // NULLIF(s, …)) keeps that column's dictionary codes: a sort or GROUP BY over it then reads the
    // codes instead of hashing every string again.
    const general = compileGeneralKernel(e);
    return {
      slots: general.slots,
      run: (batch, ctx, S) => {
        const col = general.run(batch, ctx, S);
        const dc = batch.columns[source]!.dict;
        if (dc == null || dc.codes.length < batch.length) return col;
        return makeColumn(col.type, col.data, col.nulls, { codes: passCodes(dc.codes, col.nulls, batch.length), dictionary: dc.dictionary });
      },
    };
  }
  return compileGeneralKernel(e);
}

/**
 * The input column whose value (in the same row) every non-NULL result of a text expression is, or null:
 * a text column itself, CASE whose every branch is that column or NULL, NULLIF of it.
 */
function codeSource(e: Expr): number | null {
  if (e.type.name !== 'text' && e.type.name !== 'varchar') return null;
  switch (e.kind) {
    case 'column':
      return e.index;
    case 'nullif':
      return codeSource(e.left);
    case 'case': {
      let col: number | null = null;
      for (const r of [...e.whens.map((w) => w.then), e.else]) {
        if (r.kind === 'const' && r.value === null) continue;
        const c = codeSource(r);
        if (c === null || (col !== null && c !== col)) return null;
        col = c;
      }
      return col;
    }
    default:
      return null;
  }
}

/** The source codes, -1 where the result is NULL. */
function passCodes(codes: Int32Array, nulls: Uint8Array | null, n: number): Int32Array {
  const out = codes.slice(0, n);
  // Branch-free: -1 | code is -1 (a NULL), 0 | code is the code.
  if (nulls !== null) for (let i = 0; i < n; i++) out[i] = out[i]! | -nulls[i]!;
  return out;
}

function compileGeneralKernel(e: Expr): Kernel {
  const g = new CodeGen();
  const [code, v] = g.gen(e);
  const body = `return function kernel(batch, ctx, S, K, F, TY, outType) {
const n = batch.length; const cols = batch.columns;
${g.prelude.join('\n')}
const out = alloc(outType, n); let onull = null; let wide = null;
for (let i = 0; i < n; i++) {
${code}
${writerCode(e.type, v)}
}
return mk(outType, wide !== null ? wide : out, onull);
};`;
  const fn = build(body);
  const { consts, fns, types } = g;
  const outType = e.type;
  const run = ((batch, ctx, S) => fn(batch, ctx, S, consts, fns, types, outType)) as Kernel['run'];
  return { slots: g.slots, run };
}

export function compilePredicateKernel(e: Expr): PredicateKernel {
  const k = generalPredicateKernel(e);
  const coded = codedTextMatch(e);
  if (coded !== null) {
    return {
      slots: k.slots,
      run: (batch, ctx, sv, out) => {
        const sel = out !== undefined && out.length >= batch.length ? out : new Uint32Array(batch.length);
        const n = coded.select(batch, ctx, sel);
        return n === null ? k.run(batch, ctx, sv, out) : { sel, n };
      },
    };
  }
  // A comparison of a numeric column with a constant decides a scaled column's batches on its doubles.
  const scaled = scaledNumericCompare(e, evalConstant);
  if (scaled === null) return k;
  return { slots: k.slots, run: (batch, ctx, sv, out) => scaled(batch, ctx, out) ?? k.run(batch, ctx, sv, out) };
}

function generalPredicateKernel(e: Expr): PredicateKernel {
  const g = new CodeGen();
  const [code, v] = g.gen(e);
  // A second loop for batches without NULLs in the columns read (the common case): about twice as fast
  // on a plain comparison. Not for expressions with subqueries, whose slots gen() would add twice.
  const nullArrays = g.nullVars();
  let fast = '';
  if (nullArrays.length > 0 && g.slots.length === 0) {
    g.noNulls = true;
    const [fcode, fv] = g.gen(e);
    g.noNulls = false;
    fast = `if (${nullArrays.map((x) => `${x} === null`).join(' && ')}) {
for (let i = 0; i < n; i++) {
${fcode}
sel[k] = i; k += +(${fv} === true);
}
return { sel, n: k };
}`;
  }
  const body = `return function predicate(batch, ctx, S, K, F, TY, O) {
const n = batch.length; const cols = batch.columns;
${g.prelude.join('\n')}
const sel = O !== undefined && O.length >= n ? O : new Uint32Array(n); let k = 0;
${fast}
for (let i = 0; i < n; i++) {
${code}
// Branch-free append: always write, advance only on true. A data-dependent branch here mispredicts on
// every other row of a 50%-selective filter, which made the kernel ~6x slower.
sel[k] = i; k += +(${v} === true);
}
return { sel, n: k };
};`;
  const fn = build(body) as unknown as PredicateFn;
  const { consts, fns, types } = g;
  const run = ((batch, ctx, S, out) => fn(batch, ctx, S, consts, fns, types, out)) as PredicateKernel['run'];
  return { slots: g.slots, run };
}

/**
 * Σ weight[key] over the rows where a predicate is true: `key` an int4 column (Int32Array data) of the
 * batch, keys outside 0..max or NULL weighing nothing. A probe-side filter and a join probe that only
 * counts (weight = matching build rows per key of a direct-address table) in one pass, with no selection
 * vector written and read back. null when the predicate has subqueries (their slots are per batch).
 */
export type PredicateWeightSum = (batch: Batch, ctx: ExecContext, keyCol: number, weight: Int32Array, max: number) => number;

export function compilePredicateWeightSum(e: Expr): PredicateWeightSum | null {
  const g = new CodeGen();
  const [code, v] = g.gen(e);
  if (g.slots.length > 0) return null;
  const nullArrays = g.nullVars();
  g.noNulls = true;
  const [fcode, fv] = g.gen(e);
  g.noNulls = false;
  // Branch-free on the predicate: a 50%-selective filter mispredicts a branch on every other row, so the
  // weight is always read and multiplied by 0 or 1.
  const body = `return function predicateWeightSum(batch, ctx, S, K, F, TY, kc, W, max) {
const n = batch.length; const cols = batch.columns;
${g.prelude.join('\n')}
const PK = cols[kc].data, PN = cols[kc].nulls;
let total = 0;
if (${[...nullArrays, 'PN'].map((x) => `${x} === null`).join(' && ')}) {
for (let i = 0; i < n; i++) {
${fcode}
const key = PK[i];
total += (key >>> 0 <= max ? W[key] : 0) * +(${fv} === true);
}
return total;
}
for (let i = 0; i < n; i++) {
${code}
const key = PK[i];
total += (key >>> 0 <= max && (PN === null || PN[i] === 0) ? W[key] : 0) * +(${v} === true);
}
return total;
};`;
  const fn = build(body) as unknown as (
    batch: Batch,
    ctx: ExecContext,
    S: readonly unknown[],
    K: readonly unknown[],
    F: readonly Fn[],
    TY: readonly DataType[],
    kc: number,
    W: Int32Array,
    max: number,
  ) => number;
  const { consts, fns, types } = g;
  return (batch, ctx, keyCol, weight, max) => fn(batch, ctx, [], consts, fns, types, keyCol, weight, max);
}

type PredicateFn = (
  batch: Batch,
  ctx: ExecContext,
  S: readonly unknown[],
  K: readonly unknown[],
  F: readonly Fn[],
  TY: readonly DataType[],
  out: Uint32Array | undefined,
) => { sel: Uint32Array; n: number };

/** Convenience for expressions known to contain no subqueries (join residuals, sort keys). */
export function compileSimple(e: Expr): (batch: Batch, ctx: ExecContext) => Column {
  const k = compileKernel(e);
  if (k.slots.length > 0) throw new QuireError('0A000', 'subqueries are not supported in this position');
  return (b, ctx) => k.run(b, ctx, []);
}

export function compileSimplePredicate(e: Expr): (batch: Batch, ctx: ExecContext) => { sel: Uint32Array; n: number } {
  const k = compilePredicateKernel(e);
  if (k.slots.length > 0) throw new QuireError('0A000', 'subqueries are not supported in this position');
  return (b, ctx) => k.run(b, ctx, []);
}

/** Evaluates a constant expression (LIMIT counts, table function arguments) once. */
export function evalConstant(e: Expr, ctx: ExecContext): Value {
  if (e.kind === 'const') return e.value;
  const k = compileKernel(e);
  if (k.slots.length > 0) throw new QuireError('0A000', 'subqueries are not supported in this position');
  const col = k.run({ columns: [], length: 1 }, ctx, []);
  if (col.nulls !== null && col.nulls[0] === 1) return null;
  const d = col.data;
  if (d instanceof Uint8Array) return d[0] === 1;
  return d[0] as Value;
}
