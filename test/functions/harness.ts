/**
 * Shared helpers for the scalar-function suites: call an implementation through lookupScalar exactly
 * as the engine would (strictness, specialisation for "any" arguments), and run the same call in
 * PGlite, comparing PostgreSQL's text output with formatValue of our result.
 */
import type { PGlite } from '@electric-sql/pglite';
import '../../src/functions/scalar/index.js';
import { lookupScalar, type ScalarImpl, type ScalarOverload } from '../../src/functions/registry.js';
import type { EvalContext } from '../../src/functions/eval-context.js';
import { T, type DataType, type TypeName, type Value } from '../../src/common/types.js';
import { formatValue } from '../../src/common/format-value.js';
import { Numeric } from '../../src/common/numeric.js';
import { QuireError } from '../../src/common/errors.js';
import { newPGlite } from '../common/pglite.js';

export const STATEMENT_TIME = Date.UTC(2024, 2, 15, 12, 34, 56, 789) * 1000 + 123;

export function makeCtx(timezone = 'UTC'): EvalContext {
  let seed = 0.5;
  return {
    timezone,
    statementTime: STATEMENT_TIME,
    transactionTime: STATEMENT_TIME,
    random: () => {
      // xorshift-ish deterministic sequence; only used for shape checks.
      seed = (seed * 9301 + 49297) % 233280;
      return seed / 233280;
    },
    setSeed: (s: number) => {
      seed = Math.abs(s) * 1000;
    },
    setting: (name: string) => (name === 'timezone' ? timezone : name === 'datestyle' ? 'ISO, MDY' : undefined),
  };
}

export const numericReady: boolean = (() => {
  try {
    Numeric.parse('1.5').add(Numeric.parse('1'));
    return Numeric.parse('2.5').toString() === '2.5';
  } catch {
    return false;
  }
})();

export interface Arg {
  /** SQL type of the argument as PostgreSQL sees it. */
  type: TypeName;
  /** Our representation. */
  value: Value;
}

export function findOverload(name: string, types: readonly TypeName[]): ScalarOverload {
  const list = lookupScalar(name);
  if (!list) throw new Error(`no function ${name}`);
  const exact = list.find((o) => !o.variadic && o.args.length === types.length && o.args.every((a, i) => a === types[i]));
  if (exact) return exact;
  const v = list.find(
    (o) =>
      o.variadic === true &&
      types.length >= o.args.length - 1 &&
      types.every((t, i) => {
        const a = o.args[Math.min(i, o.args.length - 1)]!;
        return a === 'any' || a === t;
      }),
  );
  if (v) return v;
  const any = list.find(
    (o) => o.args.length === types.length && o.args.every((a, i) => a === types[i] || a === 'any' || a === 'anyelement' || (a === 'anynonarray' && types[i] !== '_text')),
  );
  if (any) return any;
  throw new Error(`no overload ${name}(${types.join(', ')})`);
}

export function resultType(o: ScalarOverload, types: readonly TypeName[]): DataType {
  const dts = types.map((t) => T[t]);
  return typeof o.returns === 'function' ? o.returns(dts) : o.returns;
}

/** Invoke like the engine: strict functions return null on a null argument without being called. */
export function call(name: string, args: readonly Arg[], ctx: EvalContext = makeCtx()): { value: Value; type: DataType } {
  const types = args.map((a) => a.type);
  const o = findOverload(name, types);
  const type = resultType(o, types);
  const values = args.map((a) => a.value);
  if (o.strict !== false && values.some((v) => v === null)) return { value: null, type };
  const spec = (o as ScalarOverload & { specialize?: (t: readonly DataType[]) => ScalarImpl }).specialize;
  const fn = (spec ? spec(types.map((t) => T[t])) : o.fn) as unknown as (c: EvalContext, ...a: Value[]) => Value;
  return { value: fn(ctx, ...values), type };
}

export type Outcome = { ok: string | null; type?: string } | { error: string; message: string };

export function ours(name: string, args: readonly Arg[], ctx: EvalContext = makeCtx()): Outcome {
  try {
    const r = call(name, args, ctx);
    return { ok: formatValue(r.value, r.type, { timezone: ctx.timezone }), type: r.type.name };
  } catch (e) {
    if (e instanceof QuireError) return { error: e.code, message: e.message };
    throw e;
  }
}

/** Text literal of an argument for PGlite (formatValue output is valid PostgreSQL input). */
export function argText(a: Arg): string | null {
  return formatValue(a.value, T[a.type], { timezone: 'UTC' });
}

const PG_TYPE: Record<TypeName, string> = {
  bool: 'bool',
  int2: 'int2',
  int4: 'int4',
  int8: 'int8',
  float4: 'float4',
  float8: 'float8',
  numeric: 'numeric',
  text: 'text',
  varchar: 'varchar',
  bpchar: 'bpchar',
  date: 'date',
  timestamp: 'timestamp',
  timestamptz: 'timestamptz',
  interval: 'interval',
  unknown: 'text',
};

const INFIX = new Set(['+', '-', '*', '/', '%', '^', '||', '~~', '!~~', '~~*', '!~~*', '~', '~*', '!~', '!~*', '&', '|', '#', '<<', '>>']);
/** Prefix operators, registered under their own name with one argument ('~' is also binary). */
const PREFIX = new Set(['~', '@', '|/', '||/']);

/** The SQL text of one call, with arguments inlined as typed literals. */
export function sqlFor(name: string, args: readonly Arg[]): string {
  const ps = args.map((a) => {
    const t = argText(a);
    return t === null ? `NULL::${PG_TYPE[a.type]}` : `'${t.replace(/'/g, "''")}'::${PG_TYPE[a.type]}`;
  });
  if (INFIX.has(name) && ps.length === 2) return `select (${ps[0]} ${name} ${ps[1]})::text as r`;
  if (name === 'position') return `select position(${ps[1]} in ${ps[0]})::text as r`;
  if (name === 'neg') return `select (- ${ps[0]})::text as r`;
  if (PREFIX.has(name) && ps.length === 1) return `select (${name} ${ps[0]})::text as r`;
  // Qualified, so the grammar's EXTRACT(field FROM x) form is not required.
  if (name === 'extract') return `select pg_catalog.extract(${ps.join(', ')})::text as r`;
  return `select ${name}(${ps.join(', ')})::text as r`;
}

export class Pg {
  private constructor(readonly db: PGlite) {}
  static async start(): Promise<Pg> {
    const db = newPGlite();
    await db.query("set timezone='UTC'");
    return Pg.on(db);
  }
  /** Uses a PGlite that is already running (its session time zone must be UTC). */
  static async on(db: PGlite): Promise<Pg> {
    // Evaluating a batch of statements inside the server, each in its own subtransaction, saves a
    // client round trip per case (thousands of cases per suite).
    await db.query(`create function quire_try(q text) returns text language plpgsql as $$
      declare r text;
      begin
        execute q into r;
        return case when r is null then 'N' else 'V' || r end;
      exception when others then
        return 'E' || sqlstate || ':' || sqlerrm;
      end $$`);
    return new Pg(db);
  }
  async batch(sqls: readonly string[]): Promise<Outcome[]> {
    const out: Outcome[] = [];
    for (let i = 0; i < sqls.length; i += 500) {
      const chunk = sqls.slice(i, i + 500);
      const r = await this.db.query<{ r: string }>(
        'select quire_try(q) as r from unnest($1::text[]) with ordinality as t(q, i) order by i',
        [chunk],
      );
      for (const row of r.rows) {
        const v = row.r;
        if (v[0] === 'N') out.push({ ok: null });
        else if (v[0] === 'V') out.push({ ok: v.slice(1) });
        else {
          const colon = v.indexOf(':');
          out.push({ error: v.slice(1, colon), message: v.slice(colon + 1) });
        }
      }
    }
    return out;
  }
  async run(sql: string, params: (string | null)[] = []): Promise<Outcome> {
    try {
      const r = await this.db.query<{ r: string | null }>(sql, params);
      return { ok: r.rows[0]?.r ?? null };
    } catch (e) {
      const pe = e as { code?: string; message?: string };
      if (pe.code === undefined) throw e;
      return { error: pe.code, message: pe.message ?? '' };
    }
  }
  async theirs(name: string, args: readonly Arg[]): Promise<Outcome> {
    return this.run(sqlFor(name, args));
  }
  async close(): Promise<void> {
    await this.db.close();
  }
}

export interface Mismatch {
  call: string;
  ours: Outcome;
  theirs: Outcome;
}

export function describe(name: string, args: readonly Arg[]): string {
  return `${name}(${args.map((a) => `${argText(a) ?? 'NULL'}::${a.type}`).join(', ')})`;
}

/** Same value, or the same SQLSTATE (messages compared too unless `codeOnly`). */
export function same(a: Outcome, b: Outcome, codeOnly = false, ulps = 0): boolean {
  if ('ok' in a && 'ok' in b) {
    if (a.ok === b.ok) return true;
    // bool::text is 'true'/'false' while the type's output function (what formatValue mirrors) is 't'/'f'.
    if (a.type === 'bool' && b.ok !== null && a.ok === b.ok.charAt(0)) return true;
    // format-value's shortest-digits output occasionally picks a different (equally exact) spelling
    // than PostgreSQL's Ryu; the function result is what is under test here, so compare the doubles.
    if ((a.type === 'float8' || a.type === 'float4') && a.ok !== null && b.ok !== null) {
      const x = Number(a.ok);
      const y = Number(b.ok);
      if (x === y) return true;
      if (ulps > 0 && Number.isFinite(x) && Number.isFinite(y)) return Math.abs(x - y) <= ulps * ulp(y);
    }
    return false;
  }
  if ('error' in a && 'error' in b) return a.error === b.error && (codeOnly || a.message === b.message);
  return false;
}

function ulp(x: number): number {
  const a = Math.abs(x);
  if (a === 0) return Number.MIN_VALUE;
  return 2 ** (Math.floor(Math.log2(a)) - 52);
}

/** Run every case on both sides; returns the mismatches for a single readable assertion. */
export async function compareAll(
  pg: Pg,
  cases: readonly { name: string; args: readonly Arg[] }[],
  opts: { codeOnly?: boolean; ctx?: EvalContext; ulps?: number } = {},
): Promise<Mismatch[]> {
  const out: Mismatch[] = [];
  const all = await pg.batch(cases.map((c) => sqlFor(c.name, c.args)));
  cases.forEach((c, i) => {
    const mine = ours(c.name, c.args, opts.ctx);
    const theirs = all[i]!;
    if (!same(mine, theirs, opts.codeOnly, opts.ulps)) out.push({ call: describe(c.name, c.args), ours: mine, theirs });
  });
  return out;
}

// Argument constructors.
export const i2 = (v: number | null): Arg => ({ type: 'int2', value: v });
export const i4 = (v: number | null): Arg => ({ type: 'int4', value: v });
export const i8 = (v: number | bigint | null): Arg => ({
  type: 'int8',
  value: typeof v === 'bigint' && v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v,
});
export const f4 = (v: number | null): Arg => ({ type: 'float4', value: v === null ? null : Math.fround(v) });
export const f8 = (v: number | null): Arg => ({ type: 'float8', value: v });
export const txt = (v: string | null): Arg => ({ type: 'text', value: v });
export const num = (s: string | null): Arg => ({ type: 'numeric', value: s === null ? null : Numeric.parse(s) });

/** Small deterministic PRNG so random cases are reproducible. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
