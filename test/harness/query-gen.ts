/**
 * Seeded random SQL for differential testing (Quire vs PostgreSQL).
 *
 * Tables are small and nasty on purpose: duplicates, NULLs in every column, negative numbers, ints next to
 * bigints beyond 2^53, floats and texts that sort differently under case and collation. Queries are built so
 * that PostgreSQL's answer is deterministic:
 *  - every generated ORDER BY is made total (unique-id tie-breakers, or all output columns), so the
 *    comparison can be order-sensitive whenever there is an ORDER BY;
 *  - LIMIT/OFFSET only ever follow a total ORDER BY; FETCH ... WITH TIES may follow a partial one, because
 *    the set of rows it returns does not depend on how ties are broken (compared as a multiset);
 *  - float columns are only compared / min-maxed / multiplied by exact constants, never summed, because
 *    summation order legitimately changes the last bits.
 *
 * Two more tables aim at what those shapes missed: `t4` has no key at all (rows repeat exactly), so a
 * LIMIT / OFFSET over it is deterministic only under an ORDER BY of every column; `t5` holds timestamps,
 * timestamptz and dates across PostgreSQL's whole range (microsecond neighbours far from 1970, BC,
 * infinity) and numeric(6,2) / varchar(3) / char(3) columns whose typmods window functions must not
 * impose on their defaults (`t6` repeats those beside an int key). `pagingQuery` builds queries to page at small fetch sizes.
 *
 * t5 is inserted one row per statement: an engine that refuses one extreme value then loses that row
 * only (and says so in setup), instead of the whole table hiding every other difference.
 */

/** mulberry32: tiny, fast, and good enough to spread query shapes; same seed => same queries everywhere. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** k distinct elements, in random order. */
  sample<T>(xs: readonly T[], k: number): T[] {
    const c = [...xs];
    for (let i = c.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [c[i], c[j]] = [c[j], c[i]];
    }
    return c.slice(0, Math.min(k, c.length));
  }
}

type ColKind = 'int' | 'bigint' | 'float' | 'text';
interface Col {
  name: string;
  kind: ColKind;
}
interface Table {
  name: string;
  cols: Col[];
  rows: number;
}

export const TABLES: Table[] = [
  {
    name: 't1',
    rows: 60,
    cols: [
      { name: 'id', kind: 'int' },
      { name: 'a', kind: 'int' },
      { name: 'b', kind: 'bigint' },
      { name: 'c', kind: 'float' },
      { name: 'd', kind: 'text' },
      { name: 'e', kind: 'int' },
    ],
  },
  {
    name: 't2',
    rows: 40,
    cols: [
      { name: 'id', kind: 'int' },
      { name: 'k', kind: 'int' },
      { name: 'v', kind: 'text' },
      { name: 'w', kind: 'int' },
      { name: 'x', kind: 'float' },
    ],
  },
  {
    name: 't3',
    rows: 15,
    cols: [
      { name: 'id', kind: 'int' },
      { name: 'k', kind: 'int' },
      { name: 'n', kind: 'bigint' },
      { name: 's', kind: 'text' },
    ],
  },
];

/** No key: every row can repeat exactly (see header). */
export const KEYLESS = { name: 't4', rows: 48 };

/** Timestamps where a double of microseconds is no longer exact (before ~1685, after ~2255), and near 1970. */
const FAR_TIMESTAMPS = [
  "'4714-11-24 00:00:00 BC'",
  "'4714-11-24 00:00:00.000001 BC'",
  "'0001-01-01 00:00:00'",
  "'1500-06-30 23:59:59.999999'",
  "'1500-07-01 00:00:00'",
  "'1970-01-01 00:00:00'",
  "'2024-02-29 12:30:00.5'",
  "'2300-01-01 00:00:00'",
  "'2300-01-01 00:00:00.000001'",
  "'2300-01-01 00:00:00.000002'",
  "'99999-12-31 23:59:59.999999'",
  "'294276-12-31 23:59:59.999998'",
  "'294276-12-31 23:59:59.999999'",
  "'infinity'",
  "'-infinity'",
];
const FAR_DATES = ["'4714-11-24 BC'", "'0001-01-01'", "'1500-06-30'", "'2024-02-29'", "'2300-01-01'", "'5874897-12-31'", "'infinity'", "'-infinity'"];
const NUMERIC62 = ['0', '1.5', '-2.25', '9999.99', '-9999.99', '0.01', '1.5', '123.40'];
const VARCHAR3 = ["''", "'a'", "'ab'", "'abc'", "'A'", "'ab'"];
const CHAR3 = ["'x'", "'xy'", "'xyz'", "''", "'x'"];

const SQL_TYPE: Record<ColKind, string> = { int: 'int', bigint: 'bigint', float: 'float8', text: 'text' };
const TEXTS = ["''", "'a'", "'A'", "'b'", "'abc'", "'a b'", "'Zed'", "'_x'", "'b%'", "'ä'"];
const FLOATS = ['0', '1.5', '-2.25', '0.1', '1e10', '-3', '2.5', '1e-5', '100', '-0.5'];
const BIGS = ['0', '1', '-1', '9007199254740993', '-9007199254740993', '123456789012', '5', '-40', '4611686018427387904'];

function literal(rng: Rng, kind: ColKind): string {
  switch (kind) {
    case 'int':
      return String(rng.int(-5, 6));
    case 'bigint':
      return rng.pick(BIGS);
    case 'float':
      return rng.pick(FLOATS);
    case 'text':
      return rng.pick(TEXTS);
  }
}

/** CREATE TABLE + INSERT statements for the fixed data set of `seed`. */
export function setupSql(seed: number): string[] {
  const rng = new Rng(seed ^ 0x5eed);
  const out: string[] = [];
  for (const t of TABLES) {
    out.push(`CREATE TABLE ${t.name} (${t.cols.map((c) => `${c.name} ${SQL_TYPE[c.kind]}`).join(', ')})`);
    const rows: string[] = [];
    for (let i = 1; i <= t.rows; i++) {
      const vals = t.cols.map((c) => {
        if (c.name === 'id') return String(i);
        // ~15% NULLs; small domains give plenty of duplicates for grouping, DISTINCT and joins.
        if (rng.chance(0.15)) return 'NULL';
        return literal(rng, c.kind);
      });
      rows.push(`(${vals.join(', ')})`);
    }
    out.push(`INSERT INTO ${t.name} VALUES ${rows.join(', ')}`);
  }
  // t4: small domains and no key, so most rows have exact duplicates.
  out.push(`CREATE TABLE ${KEYLESS.name} (a int, b text)`);
  const krows: string[] = [];
  for (let i = 0; i < KEYLESS.rows; i++) {
    const a = rng.chance(0.15) ? 'NULL' : String(rng.int(0, 3));
    const b = rng.chance(0.15) ? 'NULL' : rng.pick(["'x'", "'y'", "'z'"]);
    krows.push(`(${a}, ${b})`);
  }
  out.push(`INSERT INTO ${KEYLESS.name} VALUES ${krows.join(', ')}`);
  // t5: far timestamps and typmod'd columns; tz values are the same instants written in UTC.
  out.push('CREATE TABLE t5 (id int, ts timestamp, tz timestamptz, d date, n numeric(6,2), s varchar(3), c char(3))');
  for (let i = 1; i <= 30; i++) {
    const pickOrNull = (xs: readonly string[]): string => (rng.chance(0.1) ? 'NULL' : rng.pick(xs));
    const ts = pickOrNull(FAR_TIMESTAMPS);
    const tz = ts === 'NULL' || ts.includes('infinity') ? ts : ts.replace(/( BC)?'$/, "+00$1'");
    out.push(`INSERT INTO t5 VALUES (${i}, ${ts}, ${tz}, ${pickOrNull(FAR_DATES)}, ${pickOrNull(NUMERIC62)}, ${pickOrNull(VARCHAR3)}, ${pickOrNull(CHAR3)})`);
  }
  // t6: the typmod'd columns again with no extreme timestamps, so that a typmod bug shows even while an
  // engine refuses some of t5's rows.
  out.push('CREATE TABLE t6 (id int, g int, n numeric(6,2), s varchar(3), c char(3))');
  const rows6: string[] = [];
  for (let i = 1; i <= 20; i++) {
    const pickOrNull = (xs: readonly string[]): string => (rng.chance(0.1) ? 'NULL' : rng.pick(xs));
    rows6.push(`(${i}, ${rng.chance(0.1) ? 'NULL' : rng.int(0, 3)}, ${pickOrNull(NUMERIC62)}, ${pickOrNull(VARCHAR3)}, ${pickOrNull(CHAR3)})`);
  }
  out.push(`INSERT INTO t6 VALUES ${rows6.join(', ')}`);
  return out;
}

export interface GeneratedQuery {
  sql: string;
  /** True when the query has a total ORDER BY, so row order must match exactly. */
  ordered: boolean;
  /**
   * When not ordered but sorted on some output columns (a partial ORDER BY): their positions. The rows
   * compare as a multiset, and the sequence of these columns must still follow PostgreSQL's.
   */
  orderCols?: number[];
  /** Built to fail on some data: PostgreSQL's error is the expected outcome, not a generator bug. */
  mayFail?: boolean;
}

interface Expr {
  sql: string;
  kind: ColKind | 'bool';
}

function colsOf(t: Table, alias: string): Expr[] {
  return t.cols.map((c) => ({ sql: `${alias}.${c.name}`, kind: c.kind }));
}

/** A scalar expression over the given columns; kept free of overflow and float-rounding hazards. */
function scalar(rng: Rng, cols: Expr[]): Expr {
  const c = rng.pick(cols);
  const r = rng.int(0, 9);
  if (c.kind === 'int') {
    const other = cols.filter((x) => x.kind === 'int');
    if (r === 0) return { sql: `${c.sql} + ${rng.pick(other).sql}`, kind: 'int' };
    if (r === 1) return { sql: `${c.sql} * ${rng.int(-3, 3)}`, kind: 'int' };
    if (r === 2) return { sql: `${c.sql} % ${rng.int(2, 4)}`, kind: 'int' };
    if (r === 3) return { sql: `coalesce(${c.sql}, ${rng.int(-1, 1)})`, kind: 'int' };
    if (r === 4) return { sql: `abs(${c.sql})`, kind: 'int' };
    if (r === 5) return { sql: `CASE WHEN ${c.sql} > 0 THEN 'pos' WHEN ${c.sql} < 0 THEN 'neg' ELSE 'zero' END`, kind: 'text' };
    return c;
  }
  if (c.kind === 'bigint') {
    if (r === 0) return { sql: `${c.sql} - 1`, kind: 'bigint' };
    if (r === 1) return { sql: `-${c.sql}`, kind: 'bigint' };
    return c;
  }
  if (c.kind === 'float') {
    if (r === 0) return { sql: `${c.sql} * 2`, kind: 'float' };
    if (r === 1) return { sql: `-${c.sql}`, kind: 'float' };
    if (r === 2) return { sql: `coalesce(${c.sql}, 0)`, kind: 'float' };
    return c;
  }
  if (r === 0) return { sql: `upper(${c.sql})`, kind: 'text' };
  if (r === 1) return { sql: `length(${c.sql})`, kind: 'int' };
  if (r === 2) return { sql: `${c.sql} || 'z'`, kind: 'text' };
  if (r === 3) return { sql: `coalesce(${c.sql}, '?')`, kind: 'text' };
  return c;
}

function predicate(rng: Rng, cols: Expr[], depth = 0): string {
  const r = rng.int(0, depth > 1 ? 5 : 8);
  const c = rng.pick(cols);
  const lit = () => literal(rng, c.kind === 'bool' ? 'int' : c.kind);
  switch (r) {
    case 0:
    case 1:
      return `${c.sql} ${rng.pick(['=', '<>', '<', '<=', '>', '>='])} ${lit()}`;
    case 2:
      return `${c.sql} IS ${rng.chance(0.5) ? 'NOT ' : ''}NULL`;
    case 3:
      if (c.kind === 'text') return `${c.sql} ${rng.chance(0.3) ? 'NOT ' : ''}LIKE ${rng.pick(["'a%'", "'%b%'", "'_'", "'A%'", "''"])}`;
      return `${c.sql} BETWEEN ${lit()} AND ${lit()}`;
    case 4:
      return `${c.sql} ${rng.chance(0.3) ? 'NOT ' : ''}IN (${[lit(), lit(), rng.chance(0.2) ? 'NULL' : lit()].join(', ')})`;
    case 5: {
      const same = cols.filter((x) => x.kind === c.kind && x.sql !== c.sql);
      if (same.length === 0) return `${c.sql} IS NOT NULL`;
      return `${c.sql} ${rng.pick(['=', '<', '>', 'IS DISTINCT FROM'])} ${rng.pick(same).sql}`;
    }
    case 6:
      return `(${predicate(rng, cols, depth + 1)} AND ${predicate(rng, cols, depth + 1)})`;
    case 7:
      return `(${predicate(rng, cols, depth + 1)} OR ${predicate(rng, cols, depth + 1)})`;
    default:
      return `NOT (${predicate(rng, cols, depth + 1)})`;
  }
}

function direction(rng: Rng): string {
  const dir = rng.pick(['', ' ASC', ' DESC']);
  const nulls = rng.pick(['', '', ' NULLS FIRST', ' NULLS LAST']);
  return dir + nulls;
}

function limitClause(rng: Rng): string {
  const r = rng.int(0, 3);
  if (r === 0) return ` LIMIT ${rng.int(0, 12)}`;
  if (r === 1) return ` LIMIT ${rng.int(1, 12)} OFFSET ${rng.int(0, 8)}`;
  if (r === 2) return ` OFFSET ${rng.int(0, 20)}`;
  return ` OFFSET ${rng.int(0, 5)} ROWS FETCH FIRST ${rng.int(1, 8)} ROWS ONLY`;
}

/** Optional WHERE, leaving it out sometimes so that full scans are exercised too. */
function where(rng: Rng, cols: Expr[]): string {
  return rng.chance(0.75) ? ` WHERE ${predicate(rng, cols)}` : '';
}

function selectList(rng: Rng, cols: Expr[], n: number): Expr[] {
  const out: Expr[] = [];
  for (let i = 0; i < n; i++) out.push(rng.chance(0.6) ? rng.pick(cols) : scalar(rng, cols));
  return out;
}

function aliased(exprs: Expr[]): string {
  return exprs.map((e, i) => `${e.sql} AS c${i}`).join(', ');
}

/** ORDER BY over output aliases c0..cn (all of them, so the order is total over the output rows). */
function orderAllOutputs(rng: Rng, n: number): string {
  const idx = rng.sample(
    Array.from({ length: n }, (_, i) => i),
    n,
  );
  return ` ORDER BY ${idx.map((i) => `${rng.chance(0.3) ? String(i + 1) : `c${i}`}${direction(rng)}`).join(', ')}`;
}

function simpleSelect(rng: Rng): GeneratedQuery {
  const t = rng.pick(TABLES);
  const cols = colsOf(t, t.name);
  const items = selectList(rng, cols, rng.int(1, 4));
  let sql = `SELECT ${aliased(items)} FROM ${t.name}${where(rng, cols)}`;
  const r = rng.int(0, 4);
  if (r === 0) return { sql, ordered: false };
  if (r === 1) {
    // Partial order + WITH TIES: the returned set is deterministic.
    const key = rng.pick(items.map((_, i) => i));
    sql += ` ORDER BY c${key}${direction(rng)} FETCH FIRST ${rng.int(1, 6)} ROWS WITH TIES`;
    return { sql, ordered: false };
  }
  // Random keys, then the unique id as tie-breaker: a total order.
  const keys = rng.sample(cols, rng.int(1, 2)).map((c) => `${c.sql}${direction(rng)}`);
  sql += ` ORDER BY ${[...keys, `${t.name}.id${rng.pick(['', ' DESC'])}`].join(', ')}`;
  if (r >= 3) sql += limitClause(rng);
  return { sql, ordered: true };
}

const AGGS_NUM = ['count(*)', 'count(X)', 'sum(X)', 'avg(X)', 'min(X)', 'max(X)', 'count(DISTINCT X)', 'sum(DISTINCT X)'];

function aggregate(rng: Rng, cols: Expr[]): string {
  const c = rng.pick(cols);
  let f: string;
  if (c.kind === 'int' || c.kind === 'bigint') f = rng.pick(AGGS_NUM);
  else if (c.kind === 'float') f = rng.pick(['min(X)', 'max(X)', 'count(X)', 'count(DISTINCT X)']);
  else f = rng.pick(['min(X)', 'max(X)', 'count(X)', "string_agg(DISTINCT X, ',' ORDER BY X)", 'count(DISTINCT X)']);
  let s = f.replace(/X/g, c.sql);
  if (rng.chance(0.15)) {
    const ints = cols.filter((x) => x.kind === 'int');
    s += ` FILTER (WHERE ${rng.pick(ints).sql} > ${rng.int(-2, 2)})`;
  }
  if (rng.chance(0.1)) s = `bool_and(${rng.pick(cols.filter((x) => x.kind === 'int')).sql} > 0)`;
  if (rng.chance(0.1)) s = `bool_or(${rng.pick(cols.filter((x) => x.kind === 'int')).sql} < 0)`;
  return s;
}

function groupBy(rng: Rng): GeneratedQuery {
  const t = rng.pick(TABLES);
  const cols = colsOf(t, t.name);
  const nonId = cols.filter((c) => !c.sql.endsWith('.id'));
  const keys = rng.sample(nonId, rng.int(0, 2)).map((c) => (rng.chance(0.25) ? scalar(rng, [c]) : c));
  const aggs = Array.from({ length: rng.int(1, 3) }, () => aggregate(rng, cols));
  const items = [...keys.map((k) => k.sql), ...aggs];
  let sql = `SELECT ${items.map((s, i) => `${s} AS c${i}`).join(', ')} FROM ${t.name}${where(rng, cols)}`;
  if (keys.length > 0) sql += ` GROUP BY ${keys.map((k) => k.sql).join(', ')}`;
  if (rng.chance(0.3)) sql += ` HAVING ${rng.pick(['count(*) > 1', 'count(*) >= 2', `max(${t.name}.id) > ${rng.int(5, 30)}`, `min(${t.name}.id) < ${rng.int(5, 30)}`])}`;
  if (keys.length === 0 || rng.chance(0.4)) return { sql, ordered: false };
  // Group keys are unique per output row, so ordering by all of them (after anything else) is total.
  const lead = rng.chance(0.3) ? [`c${keys.length}${direction(rng)}`] : [];
  const keyOrder = rng
    .sample(
      keys.map((_, i) => i),
      keys.length,
    )
    .map((i) => `c${i}${direction(rng)}`);
  sql += ` ORDER BY ${[...lead, ...keyOrder].join(', ')}`;
  if (rng.chance(0.5)) sql += limitClause(rng);
  return { sql, ordered: true };
}

function join(rng: Rng): GeneratedQuery {
  const [lt, rt] = rng.sample(TABLES, 2);
  const lc = colsOf(lt, 'l');
  const rc = colsOf(rt, 'r');
  const lk = rng.pick(lc.filter((c) => c.kind === 'int' && !c.sql.endsWith('.id')));
  const rk = rng.pick(rc.filter((c) => c.kind === 'int'));
  const kind = rng.pick(['JOIN', 'LEFT JOIN', 'INNER JOIN', 'LEFT OUTER JOIN']);
  const all = [...lc, ...rc];
  const items = selectList(rng, all, rng.int(1, 4));
  let on = `${lk.sql} = ${rk.sql}`;
  if (rng.chance(0.2)) on += ` AND ${predicate(rng, rc)}`;
  let sql = `SELECT ${aliased(items)} FROM ${lt.name} l ${kind} ${rt.name} r ON ${on}${where(rng, kind.startsWith('LEFT') ? lc : all)}`;
  if (rng.chance(0.4)) return { sql, ordered: false };
  // (l.id, r.id) identifies a join row; r.id is NULL only for an unmatched left row, unique by l.id.
  const keys = rng.sample(all, rng.int(0, 2)).map((c) => `${c.sql}${direction(rng)}`);
  sql += ` ORDER BY ${[...keys, `l.id${rng.pick(['', ' DESC'])}`, `r.id${direction(rng)}`].join(', ')}`;
  if (rng.chance(0.5)) sql += limitClause(rng);
  return { sql, ordered: true };
}

function distinct(rng: Rng): GeneratedQuery {
  const t = rng.pick(TABLES);
  const cols = colsOf(t, t.name).filter((c) => !c.sql.endsWith('.id'));
  const items = selectList(rng, cols, rng.int(1, 3));
  let sql = `SELECT DISTINCT ${aliased(items)} FROM ${t.name}${where(rng, colsOf(t, t.name))}`;
  if (rng.chance(0.4)) return { sql, ordered: false };
  sql += orderAllOutputs(rng, items.length);
  if (rng.chance(0.5)) sql += limitClause(rng);
  return { sql, ordered: true };
}

function distinctOn(rng: Rng): GeneratedQuery {
  const t = rng.pick(TABLES);
  const cols = colsOf(t, t.name);
  const key = rng.pick(cols.filter((c) => !c.sql.endsWith('.id')));
  const items = selectList(rng, cols, rng.int(1, 3));
  const d = direction(rng);
  // ORDER BY key, id picks one well-defined row per key, and the output order is total.
  const sql = `SELECT DISTINCT ON (${key.sql}) ${key.sql} AS k, ${aliased(items)} FROM ${t.name}${where(rng, cols)} ORDER BY ${key.sql}${d}, ${t.name}.id${rng.pick(['', ' DESC'])}`;
  return { sql, ordered: true };
}

function union(rng: Rng): GeneratedQuery {
  // Same-typed single or double column branches from two tables.
  const kinds: ColKind[] = rng.pick([['int'], ['text'], ['int', 'text'], ['bigint'], ['float']] as ColKind[][]);
  const branch = () => {
    const t = rng.pick(TABLES.filter((tb) => kinds.every((k) => tb.cols.some((c) => c.kind === k))));
    const cols = colsOf(t, t.name);
    const picked = kinds.map((k) => rng.pick(cols.filter((c) => c.kind === k)));
    return `SELECT ${picked.map((p, i) => `${p.sql} AS c${i}`).join(', ')} FROM ${t.name}${where(rng, cols)}`;
  };
  const op = rng.pick(['UNION', 'UNION ALL', 'UNION', 'INTERSECT', 'EXCEPT', 'EXCEPT ALL', 'INTERSECT ALL']);
  let sql = `${branch()} ${op} ${branch()}`;
  if (rng.chance(0.4)) return { sql, ordered: false };
  sql += orderAllOutputs(rng, kinds.length);
  if (rng.chance(0.5)) sql += limitClause(rng);
  return { sql, ordered: true };
}

/** GROUP BY over an inner or left join: grouping sees the NULL-extended rows of unmatched left rows. */
function joinGroupBy(rng: Rng): GeneratedQuery {
  const [lt, rt] = rng.sample(TABLES, 2);
  const lc = colsOf(lt, 'l');
  const rc = colsOf(rt, 'r');
  const lk = rng.pick(lc.filter((c) => c.kind === 'int' && !c.sql.endsWith('.id')));
  const rk = rng.pick(rc.filter((c) => c.kind === 'int' && !c.sql.endsWith('.id')));
  const key = rng.pick([...lc, ...rc].filter((c) => !c.sql.endsWith('.id')));
  const aggs = Array.from({ length: rng.int(1, 2) }, () => aggregate(rng, [...lc, ...rc]));
  const kind = rng.pick(['JOIN', 'LEFT JOIN']);
  let sql = `SELECT ${key.sql} AS c0, ${aggs.map((a, i) => `${a} AS c${i + 1}`).join(', ')} FROM ${lt.name} l ${kind} ${rt.name} r ON ${lk.sql} = ${rk.sql} GROUP BY ${key.sql}`;
  if (rng.chance(0.5)) return { sql, ordered: false };
  sql += ` ORDER BY c0${direction(rng)}`;
  if (rng.chance(0.5)) sql += limitClause(rng);
  return { sql, ordered: true };
}

/** IN / NOT IN / EXISTS / scalar subqueries in WHERE, correlated or not; NOT IN meets NULLs on purpose. */
function subqueryFilter(rng: Rng): GeneratedQuery {
  const [ot, it] = rng.sample(TABLES, 2);
  const oc = colsOf(ot, 'o');
  const ic = colsOf(it, 'i');
  const ok = rng.pick(oc.filter((c) => c.kind === 'int'));
  const ik = rng.pick(ic.filter((c) => c.kind === 'int'));
  const inner = `FROM ${it.name} i${rng.chance(0.5) ? ` WHERE ${predicate(rng, ic)}` : ''}`;
  const r = rng.int(0, 4);
  let cond: string;
  if (r === 0) cond = `${ok.sql} IN (SELECT ${ik.sql} ${inner})`;
  else if (r === 1) cond = `${ok.sql} NOT IN (SELECT ${ik.sql} ${inner})`;
  else if (r === 2) cond = `${rng.chance(0.5) ? 'NOT ' : ''}EXISTS (SELECT 1 ${inner}${inner.includes('WHERE') ? ' AND' : ' WHERE'} ${ik.sql} = ${ok.sql})`;
  else if (r === 3) cond = `${ok.sql} ${rng.pick(['>', '<=', '='])} (SELECT ${rng.pick(['max', 'min'])}(${ik.sql}) ${inner})`;
  else cond = `${ok.sql} > (SELECT count(*) FROM ${it.name} i WHERE ${ik.sql} < ${ok.sql})`;
  const items = selectList(rng, oc, rng.int(1, 3));
  let sql = `SELECT ${aliased(items)} FROM ${ot.name} o WHERE ${cond}`;
  if (rng.chance(0.4)) return { sql, ordered: false };
  sql += ` ORDER BY ${rng.pick(oc).sql}${direction(rng)}, o.id`;
  if (rng.chance(0.5)) sql += limitClause(rng);
  return { sql, ordered: true };
}

/** ORDER BY every column of t4 in a random order and direction: the only order that makes its LIMIT/OFFSET deterministic. */
function keylessOrder(rng: Rng, cols: readonly string[]): string {
  return rng
    .sample([...cols], cols.length)
    .map((c) => `${c}${direction(rng)}`)
    .join(', ');
}

/** Keyless rows with duplicates under LIMIT / OFFSET, in derived tables and with DISTINCT. */
function keylessSelect(rng: Rng): GeneratedQuery {
  const t = KEYLESS.name;
  const cond = rng.chance(0.5) ? ` WHERE ${rng.pick(['a IS NOT NULL', 'b IS NULL OR a > 0', "b <> 'z'", 'a IN (0, 1, NULL)', 'a < 3'])}` : '';
  const r = rng.int(0, 4);
  if (r === 0) return { sql: `SELECT a, b FROM ${t}${cond}`, ordered: false };
  if (r === 1) return { sql: `SELECT a FROM ${t}${cond} ORDER BY a${direction(rng)}${limitClause(rng)}`, ordered: true };
  if (r === 2) {
    const inner = `SELECT a, b FROM ${t}${cond} ORDER BY ${keylessOrder(rng, ['a', 'b'])}${limitClause(rng)}`;
    return { sql: `SELECT a, b, count(*) AS n FROM (${inner}) s GROUP BY a, b`, ordered: false };
  }
  if (r === 3) return { sql: `SELECT DISTINCT a, b FROM ${t}${cond} ORDER BY ${keylessOrder(rng, ['a', 'b'])}${limitClause(rng)}`, ordered: true };
  return { sql: `SELECT a, b FROM ${t}${cond} ORDER BY ${keylessOrder(rng, ['a', 'b'])}${limitClause(rng)}`, ordered: true };
}

const TEMPORAL = ['ts', 'tz', 'd'];

/** Far timestamps in ORDER BY, comparisons, GROUP BY, DISTINCT, min/max, ranking and arithmetic. */
function temporalSelect(rng: Rng): GeneratedQuery {
  const col = rng.pick(TEMPORAL);
  const lit = col === 'd' ? rng.pick(FAR_DATES) : rng.pick(FAR_TIMESTAMPS);
  const cast = col === 'ts' ? '::timestamp' : col === 'tz' ? '::timestamptz' : '::date';
  const cond = rng.chance(0.6) ? ` WHERE ${col} ${rng.pick(['=', '<', '<=', '>', '>=', '<>'])} ${lit}${cast}` : '';
  const r = rng.int(0, 9);
  if (r === 0) return { sql: `SELECT id, ${col} FROM t5${cond} ORDER BY ${col}${direction(rng)}, id${limitClause(rng)}`, ordered: true };
  if (r === 1) return { sql: `SELECT ${col}, count(*) AS n FROM t5${cond} GROUP BY ${col} ORDER BY ${col}${direction(rng)}`, ordered: true };
  if (r === 2) return { sql: `SELECT DISTINCT ${col} FROM t5${cond} ORDER BY 1${direction(rng)}`, ordered: true };
  if (r === 3) return { sql: `SELECT min(${col}), max(${col}), count(DISTINCT ${col}) FROM t5${cond}`, ordered: false };
  if (r === 4) {
    // Functions whose value does not depend on how peers are ordered (the ORDER BY is partial).
    const f = rng.pick(['rank()', 'dense_rank()', 'count(*)', 'percent_rank()']);
    return { sql: `SELECT id, ${f} OVER (ORDER BY ${col}${direction(rng)}) AS w FROM t5${cond} ORDER BY id`, ordered: true };
  }
  if (r === 6) {
    // Value window functions over a total order, and per-partition extremes.
    const order = `ORDER BY ${col}${direction(rng)}, id`;
    const f = rng.pick([`lag(${col}, 1, ${lit}${cast}) OVER (${order})`, `lead(${col}) OVER (${order})`, `first_value(${col}) OVER (PARTITION BY c ${order})`, `max(${col}) OVER (PARTITION BY c)`, `min(${col}) OVER (${order})`, `row_number() OVER (${order})`]);
    return { sql: `SELECT id, ${col}, ${f} AS w FROM t5${cond} ORDER BY id`, ordered: true };
  }
  if (r === 7) {
    // Cross-type comparisons (the session is UTC): no cast that could overflow, PostgreSQL compares across the ranges.
    const [x, y] = rng.sample(TEMPORAL, 2);
    return { sql: `SELECT id, ${x}, ${y} FROM t5 WHERE ${x} ${rng.pick(['=', '<', '<=', '>', '>=', '<>'])} ${y} ORDER BY id`, ordered: true };
  }
  if (r === 8) {
    // Grouping on parts of far values; date_trunc on ts only (PostgreSQL overflows on the last date and on timestamptz's local year end).
    const trunc = `date_trunc('${rng.pick(['year', 'day', 'second', 'millisecond'])}', ts)`;
    const part = rng.pick([`extract(year FROM ${col})`, col === 'ts' ? trunc : `extract(epoch FROM ${col})`, `${col} IS NULL`, `${col} > '2000-01-01'${cast}`]);
    return { sql: `SELECT ${part} AS g, count(*) AS n, max(id) AS m FROM t5${cond} GROUP BY 1 ORDER BY 1${direction(rng)}`, ordered: true };
  }
  if (r === 9 && col !== 'd') {
    // RANGE frames whose offset is as small as the values' last digit.
    const off = rng.pick(["'1 microsecond'", "'2 microseconds'", "'1 day'"]);
    return { sql: `SELECT id, count(*) OVER (ORDER BY ${col} RANGE BETWEEN interval ${off} PRECEDING AND interval ${off} FOLLOWING) AS w FROM t5 WHERE ${col} BETWEEN '4000-01-01 BC'${cast} AND '99999-01-01'${cast} ORDER BY id`, ordered: true };
  }
  // Arithmetic that stays inside the range for every finite value but the last 29 years.
  const expr = col === 'd' ? `${col} - date '2000-01-01'` : `${col} - interval '${rng.pick(['1 microsecond', '1 day', '1 month 2 days 3 microseconds'])}'`;
  return { sql: `SELECT id, ${expr} AS x FROM t5 WHERE ${col} < '99999-12-31'${cast} AND ${col} > '4714-12-31 BC'${cast} ORDER BY id`, ordered: true };
}

/** lag/lead/first_value/nth_value/coalesce over typmod'd columns, with defaults of other precision and length. */
function typmodWindow(rng: Rng): GeneratedQuery {
  const table = rng.pick(['t5', 't6']);
  const order = `ORDER BY ${table === 't5' ? rng.pick(TEMPORAL) : 'g'}${direction(rng)}, id`;
  const items = [
    `lag(n, ${rng.int(1, 3)}, ${rng.pick(['1.5', '123456.789', '0.125', 'NULL', '-7'])}) OVER (${order})`,
    `lead(s, ${rng.int(1, 3)}, ${rng.pick(["'abcdef'", "'z'", 'NULL', "'abc'"])}) OVER (${order})`,
    `lag(c, 1, ${rng.pick(["'abcdefg'", "'q'"])}) OVER (${order})`,
    `first_value(n) OVER (${order})`,
    `nth_value(s, 2) OVER (${order})`,
    `coalesce(s, ${rng.pick(["'defaults'", "'d'"])})`,
    `lead(n * 2, 1, 0.001) OVER (PARTITION BY c ${order})`,
    `lag(c, 1, s) OVER (${order})`,
    `lead(s, 1, c) OVER (${order})`,
    `first_value(coalesce(n, 12345.678)) OVER (PARTITION BY s ${order})`,
    `nth_value(c, 2) OVER (${order} ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)`,
    `lag(n::numeric(8,3), 1, 2.5) OVER (${order})`,
    `lead(s::varchar(2), 1, 'abcdef') OVER (${order})`,
    `lag(c::char(5), 2, 'q') OVER (${order})`,
    `coalesce(c, 'abcdef')`,
    `CASE WHEN n > 0 THEN n ELSE 0.125 END`,
    `lag(c, 1, 'ab ') OVER (${order}) || '|'`,
    // char(n) keeps its padding in octet_length (it drops it in length and ||).
    `octet_length(first_value(c) OVER (${order}))`,
  ];
  const picked = rng.sample(items, rng.int(1, 3));
  return { sql: `SELECT id, ${picked.map((x, i) => `${x} AS c${i}`).join(', ')} FROM ${table} ORDER BY id`, ordered: true };
}

/** The int and text columns of a table, by name (for shapes that build arrays and rows from them). */
function columnsOfKind(t: Table, alias: string, kind: ColKind): string[] {
  return t.cols.filter((c) => c.kind === kind).map((c) => `${alias}.${c.name}`);
}

/**
 * Arrays: constructors over columns with NULLs, array_agg with a total ORDER BY inside, = ANY / <> ALL over
 * literals and subqueries, subscripts, comparison and containment, unnest in FROM, ARRAY(subquery), and
 * text arrays whose elements need quoting ('a b', '', NULL) in the output.
 */
function arraySelect(rng: Rng): GeneratedQuery {
  const t = rng.pick(TABLES);
  const a = t.name;
  const ints = columnsOfKind(t, a, 'int');
  const text = columnsOfKind(t, a, 'text')[0]!;
  const cols = colsOf(t, a);
  const intArray = () => `ARRAY[${rng.sample(ints, rng.int(1, 3)).join(', ')}${rng.chance(0.3) ? ', NULL' : ''}]`;
  const r = rng.int(0, 9);
  if (r === 0) {
    const items = [intArray(), `ARRAY[${text}, ${rng.pick(TEXTS)}]`, `ARRAY[${ints[0]}::bigint, ${rng.pick(BIGS)}]`];
    return { sql: `SELECT ${a}.id, ${rng.sample(items, rng.int(1, 3)).join(', ')} FROM ${a}${where(rng, cols)} ORDER BY ${a}.id`, ordered: true };
  }
  if (r === 1) {
    const key = rng.pick(cols.filter((c) => !c.sql.endsWith('.id') && c.kind !== 'float'));
    const arg = rng.pick([...ints, text]);
    const d = direction(rng);
    const agg = rng.chance(0.5) ? `array_agg(${arg} ORDER BY ${arg}${d}, ${a}.id)` : `array_agg(DISTINCT ${arg} ORDER BY ${arg}${d})`;
    return { sql: `SELECT ${key.sql} AS c0, ${agg} AS c1, count(*) AS c2 FROM ${a}${where(rng, cols)} GROUP BY ${key.sql} ORDER BY c0${direction(rng)}`, ordered: true };
  }
  if (r === 2) {
    const c = rng.pick(ints);
    const lits = Array.from({ length: rng.int(0, 4) }, () => (rng.chance(0.15) ? 'NULL' : String(rng.int(-3, 6))));
    const op = rng.pick(['= ANY', '<> ALL', '> ANY', '<= ALL', '= SOME']);
    // An empty or all-NULL ARRAY[...] has no element type of its own (all NULLs would make it text[]).
    const arr = lits.every((l) => l === 'NULL') ? `ARRAY[${lits.join(', ')}]::int[]` : `ARRAY[${lits.join(', ')}]`;
    return { sql: `SELECT ${a}.id, ${c} ${op}(${arr}) AS c0 FROM ${a} WHERE ${c} ${op}(${arr}) IS NOT FALSE ORDER BY ${a}.id`, ordered: true };
  }
  if (r === 3) {
    const c = rng.pick(ints);
    const inner = `ARRAY(SELECT t3.k FROM t3 WHERE ${predicate(rng, colsOf(TABLES[2]!, 't3'))} ORDER BY t3.id)`;
    return { sql: `SELECT ${a}.id, ${c} = ANY(${inner}) AS c0 FROM ${a} ORDER BY ${a}.id`, ordered: true };
  }
  if (r === 4) {
    const arr = `ARRAY[${ints.join(', ')}]`;
    const items = [`(${arr})[${rng.int(0, ints.length + 1)}]`, `cardinality(${arr})`, `array_length(${arr}, 1)`, `array_position(${arr}, ${rng.int(-2, 4)})`, `(${arr})[2:${rng.int(1, 3)}]`, `array_to_string(ARRAY[${text}, 'q', NULL], ',', '*')`];
    return { sql: `SELECT ${a}.id, ${rng.sample(items, rng.int(1, 3)).join(', ')} FROM ${a}${where(rng, cols)} ORDER BY ${a}.id`, ordered: true };
  }
  if (r === 5) {
    const x = intArray();
    const y = intArray();
    const op = rng.pick(['<', '=', '>=', '<>', '@>', '<@', '&&']);
    return { sql: `SELECT ${a}.id, ${x} ${op} ${y} AS c0 FROM ${a} ORDER BY ${a}.id`, ordered: true };
  }
  if (r === 6) {
    const x = rng.chance(0.5) ? intArray() : `ARRAY[${text}, ${text} || 'x']`;
    return { sql: `SELECT ${x} AS c0, ${a}.id FROM ${a}${where(rng, cols)} ORDER BY c0${direction(rng)}, ${a}.id`, ordered: true };
  }
  if (r === 7) {
    const group = rng.chance(0.5);
    const from = `${a}, unnest(${intArray()}) AS u(x)`;
    if (group) return { sql: `SELECT u.x AS c0, count(*) AS c1 FROM ${from} GROUP BY u.x ORDER BY c0${direction(rng)}`, ordered: true };
    return { sql: `SELECT ${a}.id, u.x FROM ${from}${where(rng, cols)}`, ordered: false };
  }
  if (r === 8) {
    const s = `ARRAY(SELECT t3.s FROM t3 WHERE t3.k = ${rng.pick(ints)} ORDER BY t3.s${direction(rng)}, t3.id)`;
    return { sql: `SELECT ${a}.id, ${s} AS c0 FROM ${a}${where(rng, cols)} ORDER BY ${a}.id`, ordered: true };
  }
  const arr = `array_agg(${rng.pick(ints)} ORDER BY ${a}.id)`;
  return { sql: `SELECT ${arr} AS c0, array_agg(${text} ORDER BY ${a}.id DESC) AS c1 FROM ${a}${where(rng, cols)}`, ordered: false };
}

/**
 * Row values: ROW(...) in the output (record text with NULLs and quoted text), row comparison with NULL
 * fields, row IN lists and subqueries, IS [NOT] NULL on rows, whole-row references and their text.
 */
function rowValueSelect(rng: Rng): GeneratedQuery {
  const t = rng.pick(TABLES);
  const a = t.name;
  const ints = columnsOfKind(t, a, 'int');
  const text = columnsOfKind(t, a, 'text')[0]!;
  const cols = colsOf(t, a);
  const pair = () => rng.sample(ints, 2);
  const lit = () => (rng.chance(0.15) ? 'NULL' : String(rng.int(-2, 6)));
  const r = rng.int(0, 9);
  if (r === 0) {
    const items = [`ROW(${pair().join(', ')})`, `ROW(${ints[0]}, ${text})`, `(${text}, ${rng.pick(TEXTS)}, NULL::int)`];
    return { sql: `SELECT ${a}.id, ${rng.sample(items, rng.int(1, 2)).join(', ')} FROM ${a}${where(rng, cols)} ORDER BY ${a}.id`, ordered: true };
  }
  if (r === 1) {
    const [x, y] = pair();
    const op = rng.pick(['<', '<=', '=', '<>', '>', '>=', 'IS DISTINCT FROM', 'IS NOT DISTINCT FROM']);
    return { sql: `SELECT ${a}.id, (${x}, ${y}) ${op} (${lit()}, ${lit()}) AS c0 FROM ${a} ORDER BY ${a}.id`, ordered: true };
  }
  if (r === 2) {
    const [x, y] = pair();
    const list = Array.from({ length: rng.int(1, 4) }, () => `(${lit()}, ${lit()})`).join(', ');
    return { sql: `SELECT ${a}.id FROM ${a} WHERE (${x}, ${y}) ${rng.chance(0.3) ? 'NOT ' : ''}IN (${list}) ORDER BY ${a}.id`, ordered: true };
  }
  if (r === 3) {
    const [x, y] = pair();
    const sub = `SELECT t2.k, t2.w FROM t2${rng.chance(0.5) ? ` WHERE ${predicate(rng, colsOf(TABLES[1]!, 't2'))}` : ''}`;
    const cond = rng.pick([`(${x}, ${y}) IN (${sub})`, `(${x}, ${y}) NOT IN (${sub})`, `(${x}, ${y}) = ANY (${sub})`]);
    return { sql: `SELECT ${a}.id, ${x}, ${y} FROM ${a} WHERE ${cond} ORDER BY ${a}.id`, ordered: true };
  }
  if (r === 4) {
    const row = `ROW(${rng.sample([...ints, text], 2).join(', ')})`;
    return { sql: `SELECT ${a}.id, ${row} IS NULL AS c0, ${row} IS NOT NULL AS c1 FROM ${a} ORDER BY ${a}.id`, ordered: true };
  }
  if (r === 5) {
    const x = rng.chance(0.5) ? `${a}` : `(${a}.*)::text`;
    return { sql: `SELECT ${x} AS c0 FROM ${a}${where(rng, cols)} ORDER BY ${a}.id`, ordered: true };
  }
  if (r === 6) {
    const row = `ROW(${rng.pick(ints)}, ${text})`;
    return { sql: `SELECT ${row} AS c0, ${a}.id FROM ${a} ORDER BY c0${direction(rng)}, ${a}.id`, ordered: true };
  }
  if (r === 8) {
    // The whole row of an outer join's NULL side: NULL where it had no row, not a row of NULLs.
    const [lt, rt] = rng.sample(TABLES, 2);
    const lk = rng.pick(columnsOfKind(lt, 'l', 'int'));
    const rk = rng.pick(columnsOfKind(rt, 'r', 'int'));
    const kind = rng.pick(['LEFT JOIN', 'FULL JOIN']);
    if (rng.chance(0.5)) return { sql: `SELECT count(r.*) AS c0, count(r) AS c1, count(*) AS c2 FROM ${lt.name} l ${kind} ${rt.name} r ON ${lk} = ${rk}`, ordered: false };
    return { sql: `SELECT l.id, r.id, r AS c0, (r.*)::text AS c1, r IS NULL AS c2 FROM ${lt.name} l ${kind} ${rt.name} r ON ${lk} = ${rk} ORDER BY l.id, r.id`, ordered: true };
  }
  return { sql: `SELECT s.c0, count(*) AS c1 FROM (SELECT ROW(${ints[1]} % 3, ${text} IS NULL) AS c0 FROM ${a}) s GROUP BY s.c0 ORDER BY s.c0`, ordered: true };
}

/**
 * WITH queries: one CTE read twice (a self-join), CTEs over CTEs, MATERIALIZED / NOT MATERIALIZED, a scalar
 * subquery over a CTE, and recursive ones (a counter joined to a table, a bounded walk over t2's k -> id).
 */
function cteSelect(rng: Rng): GeneratedQuery {
  const t = rng.pick(TABLES);
  const a = t.name;
  const cols = colsOf(t, a);
  const ints = columnsOfKind(t, a, 'int').map((c) => c.slice(a.length + 1));
  const mat = rng.pick(['', '', ' MATERIALIZED', ' NOT MATERIALIZED']);
  const r = rng.int(0, 4);
  if (r === 0) {
    const c = rng.pick(ints.filter((x) => x !== 'id'));
    return {
      sql: `WITH x AS${mat} (SELECT id, ${c} AS v FROM ${a}${where(rng, cols)}) SELECT p.id AS c0, p.v AS c1, q.v AS c2 FROM x p ${rng.pick(['JOIN', 'LEFT JOIN'])} x q ON q.id = p.id + 1 ORDER BY p.id`,
      ordered: true,
    };
  }
  if (r === 1) {
    const c = rng.pick(ints.filter((x) => x !== 'id'));
    return {
      sql: `WITH x AS${mat} (SELECT ${c} AS k, count(*) AS n FROM ${a} GROUP BY ${c}), y AS (SELECT k, n, n * 2 AS m FROM x WHERE k IS NOT NULL) SELECT k AS c0, n AS c1, m AS c2, (SELECT max(n) FROM x) AS c3 FROM y ORDER BY k${direction(rng)}`,
      ordered: true,
    };
  }
  if (r === 2) {
    const c = rng.pick(ints.filter((x) => x !== 'id'));
    const top = rng.int(1, 8);
    return {
      sql: `WITH RECURSIVE r(n) AS (SELECT ${rng.int(-2, 1)} UNION ALL SELECT n + 1 FROM r WHERE n < ${top}) SELECT r.n AS c0, count(${a}.id) AS c1 FROM r LEFT JOIN ${a} ON ${a}.${c} = r.n GROUP BY r.n ORDER BY r.n`,
      ordered: true,
    };
  }
  if (r === 3) {
    const union = rng.pick(['UNION', 'UNION ALL']);
    const depth = rng.int(1, 3);
    return {
      sql: `WITH RECURSIVE w(id, depth) AS (SELECT id, 0 FROM t2 WHERE id <= ${rng.int(1, 5)} ${union} SELECT t2.id, w.depth + 1 FROM w JOIN t2 ON t2.k = w.id WHERE w.depth < ${depth}) SELECT id AS c0, depth AS c1, count(*) AS c2 FROM w GROUP BY id, depth ORDER BY id, depth`,
      ordered: true,
    };
  }
  return {
    sql: `WITH x AS${mat} (SELECT * FROM ${a}${where(rng, cols)}) SELECT count(*) AS c0, (SELECT count(*) FROM x WHERE x.id > ${rng.int(0, 30)}) AS c1 FROM x`,
    ordered: true,
  };
}

/**
 * ROLLUP / CUBE / GROUPING SETS with GROUPING(): ordering by every output (GROUPING() included) is total,
 * since GROUPING() tells a grouped-away column from a NULL value.
 */
function groupingSetsSelect(rng: Rng): GeneratedQuery {
  const t = rng.pick(TABLES);
  const cols = colsOf(t, t.name);
  const keys = rng.sample(cols.filter((c) => !c.sql.endsWith('.id') && c.kind !== 'float'), 2);
  const [x, y] = [keys[0]!.sql, keys[1]!.sql];
  const sets = rng.pick([`ROLLUP (${x}, ${y})`, `CUBE (${x}, ${y})`, `GROUPING SETS ((${x}), (${y}), ())`, `GROUPING SETS ((${x}, ${y}), (${x}))`, `${x}, ROLLUP (${y})`]);
  const agg = aggregate(rng, cols);
  const sql = `SELECT ${x} AS c0, ${y} AS c1, GROUPING(${x}, ${y}) AS c2, count(*) AS c3, ${agg} AS c4 FROM ${t.name}${where(rng, cols)} GROUP BY ${sets}${rng.chance(0.3) ? ' HAVING count(*) > 1' : ''}`;
  return { sql: sql + orderAllOutputs(rng, 5), ordered: true };
}

/** LATERAL subqueries: top-k per outer row, aggregates per outer row, LEFT JOIN LATERAL … ON true. */
function lateralSelect(rng: Rng): GeneratedQuery {
  const [lt, rt] = rng.sample(TABLES, 2);
  const lk = rng.pick(columnsOfKind(lt, 'l', 'int').filter((c) => c !== 'l.id'));
  const rk = rng.pick(columnsOfKind(rt, 'r', 'int'));
  const r = rng.int(0, 2);
  if (r === 0) {
    const join = rng.pick([', LATERAL', 'CROSS JOIN LATERAL', 'LEFT JOIN LATERAL']);
    const on = join.startsWith('LEFT') ? ' ON true' : '';
    return {
      sql: `SELECT l.id, x.rid, x.v FROM ${lt.name} l ${join} (SELECT r.id AS rid, ${rk} AS v FROM ${rt.name} r WHERE ${rk} ${rng.pick(['=', '<', '>'])} ${lk} ORDER BY r.id${direction(rng)} LIMIT ${rng.int(1, 3)}) x${on} ORDER BY l.id, x.rid`,
      ordered: true,
    };
  }
  if (r === 1) {
    return {
      sql: `SELECT l.id, x.n, x.m FROM ${lt.name} l, LATERAL (SELECT count(*) AS n, max(r.id) AS m FROM ${rt.name} r WHERE ${rk} = ${lk}) x ORDER BY l.id`,
      ordered: true,
    };
  }
  return {
    sql: `SELECT l.id, s.v FROM ${lt.name} l LEFT JOIN LATERAL (SELECT ${lk} + g AS v FROM generate_series(0, ${rng.int(0, 2)}) g WHERE ${lk} > ${rng.int(-3, 3)}) s ON true ORDER BY l.id, s.v`,
    ordered: true,
  };
}

/** Scalar functions of every family over columns with NULLs, and scalar subqueries in the select list. */
function functionSelect(rng: Rng): GeneratedQuery {
  const t = rng.pick(TABLES);
  const a = t.name;
  const ints = columnsOfKind(t, a, 'int');
  const text = columnsOfKind(t, a, 'text')[0]!;
  const i1 = rng.pick(ints);
  const i2 = rng.pick(ints);
  const items = [
    `substr(${text}, ${rng.int(0, 3)}, ${rng.int(0, 3)})`,
    `position('a' in ${text})`,
    `replace(${text}, 'a', '<>')`,
    `lpad(${text}, ${rng.int(0, 5)}, '*')`,
    `rpad(${text}, 4)`,
    `split_part(${text} || ' x', ' ', ${rng.int(1, 3)})`,
    `${text} ILIKE 'a%'`,
    `initcap(${text})`,
    `reverse(${text})`,
    `btrim(${text}, 'a_')`,
    `concat_ws('-', ${i1}, ${text}, NULL, ${i2})`,
    `format('%s|%s', ${i1}, ${text})`,
    `md5(coalesce(${text}, ''))`,
    `nullif(${i1}, ${rng.int(-2, 2)})`,
    `greatest(${i1}, ${i2}, ${rng.int(-2, 2)})`,
    `least(${i1}, ${i2})`,
    `${i1} / nullif(${i2}, 0)`,
    `${i1} % nullif(${i2}, 0)`,
    `CASE ${i1} WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE ${text} END`,
    `${i1}::text || ${text}`,
    `date '2024-02-28' + ${i1}`,
    `(timestamp '2024-01-31 12:00' + make_interval(months => ${i1}))::date`,
    `round(${i1} / 3.0, ${rng.int(0, 3)})`,
    `(${i1}::numeric / 7)::numeric(10, 3)`,
    `power(2, abs(${i1}) % 10)`,
    `sign(${i1}) * sqrt(abs(${i1}))::numeric(12, 6)`,
    `(SELECT count(*) FROM t3 WHERE t3.k = ${i1})`,
    `EXISTS (SELECT 1 FROM t2 WHERE t2.w = ${i1})`,
    `(SELECT max(t2.v) FROM t2 WHERE t2.k = ${i2})`,
  ];
  const picked = rng.sample(items, rng.int(1, 3));
  return { sql: `SELECT ${a}.id, ${picked.map((x, i) => `${x} AS c${i}`).join(', ')} FROM ${a}${where(rng, colsOf(t, a))} ORDER BY ${a}.id`, ordered: true };
}

/** Queries that fail at run time on some rows: the SQLSTATE must be PostgreSQL's. */
function failingSelect(rng: Rng): GeneratedQuery {
  const t = rng.pick(TABLES);
  const a = t.name;
  const i1 = rng.pick(columnsOfKind(t, a, 'int'));
  const text = columnsOfKind(t, a, 'text')[0]!;
  const item = rng.pick([
    `${i1} / (${i1} - ${i1})`,
    `2147483647 + ${i1}`,
    `(${i1} * 1000000)::int2`,
    `${text}::int`,
    `(${i1} - 3)::text::date`,
    `sqrt(${i1})`,
    // ln over values where it succeeds would compare libm last digits (V8's log is not glibc's).
    `ln(0 * ${i1})`,
    `repeat('x', ${i1} - 10)`,
    `(ARRAY[1, 2])[${i1}] / 0`,
    `substr(${text}, 1, ${i1})`,
    `chr(${i1} + 1114100)`,
  ]);
  return { sql: `SELECT ${a}.id, ${item} AS c0 FROM ${a}${where(rng, colsOf(t, a))} ORDER BY ${a}.id`, ordered: true, mayFail: true };
}

const SHAPES = [
  simpleSelect,
  simpleSelect,
  groupBy,
  groupBy,
  join,
  join,
  distinct,
  distinctOn,
  union,
  joinGroupBy,
  subqueryFilter,
  keylessSelect,
  temporalSelect,
  typmodWindow,
  arraySelect,
  rowValueSelect,
  cteSelect,
  groupingSetsSelect,
  lateralSelect,
  functionSelect,
  functionSelect,
  failingSelect,
];

/**
 * A query to page (db.paginate) and compare with PostgreSQL's unpaged result: keyless duplicates under the
 * query's own LIMIT / OFFSET, partial orders (compared as a multiset), far timestamps as keys.
 */
export function pagingQuery(seed: number, index: number): GeneratedQuery {
  const rng = new Rng((seed * 2246822519 + index * 3266489917) >>> 0);
  const t = KEYLESS.name;
  const r = rng.int(0, 9);
  if (r === 0) return { sql: `SELECT a, b FROM ${t} OFFSET ${rng.int(0, 10)}`.replace(/ OFFSET 0$/, ''), ordered: false };
  if (r === 1) return { sql: `SELECT a, b FROM ${t} ORDER BY ${keylessOrder(rng, ['a', 'b'])}${limitClause(rng)}`, ordered: true };
  if (r === 2) return { sql: `SELECT a FROM ${t} ORDER BY a${direction(rng)}${limitClause(rng)}`, ordered: true };
  if (r === 3) return { sql: `SELECT b, a FROM ${t} WHERE a IS NOT NULL ORDER BY b${direction(rng)}`, ordered: false, orderCols: [0] };
  if (r === 4) return { sql: `SELECT DISTINCT a, b FROM ${t} ORDER BY ${keylessOrder(rng, ['a', 'b'])}${limitClause(rng)}`, ordered: true };
  if (r === 5) {
    const col = rng.pick(['ts', 'tz']);
    return { sql: `SELECT ${col}, id FROM t5 ORDER BY ${col}${direction(rng)}, id${rng.chance(0.5) ? limitClause(rng) : ''}`, ordered: true };
  }
  if (r === 6) return { sql: `SELECT ts FROM t5 WHERE ts IS NOT NULL ORDER BY ts${direction(rng)}`, ordered: true };
  if (r === 7) {
    // The query's own OFFSET inside a derived table, over keyless duplicates.
    const inner = `SELECT a, b FROM ${t} ORDER BY ${keylessOrder(rng, ['a', 'b'])}${limitClause(rng)}`;
    return { sql: `SELECT a, b FROM (${inner}) s`, ordered: false };
  }
  if (r === 8) {
    // A partial order over far timestamps: ties between rows that differ in other columns.
    const col = rng.pick(['ts', 'tz', 'd']);
    return { sql: `SELECT ${col}, n, s FROM t5 ORDER BY ${col}${direction(rng)}`, ordered: false, orderCols: [0] };
  }
  return { sql: `SELECT a FROM ${t} WHERE ${rng.pick(['a IS NULL OR a = 1', 'b IS NOT NULL', 'a > 0'])} OFFSET ${rng.int(1, 12)}`, ordered: false };
}

/** The i-th query of a run: each query has its own derived seed, so one failure can be replayed alone. */
export function generateQuery(seed: number, index: number): GeneratedQuery {
  const rng = new Rng((seed * 2654435761 + index * 40503) >>> 0);
  return rng.pick(SHAPES)(rng);
}

/*
 * DML: statements that change two tables of their own (d1, d2, both keyed by id), run in sequence and
 * compared after each one: the statement's outcome (RETURNING rows as a multiset, or the SQLSTATE)
 * and then both tables' rows in id order. Shapes stay deterministic under PostgreSQL:
 *  - UPDATE … FROM and DELETE … USING join the target to the other table's unique id, so a target row
 *    meets at most one row (PostgreSQL leaves it unspecified which one it uses otherwise);
 *  - two data-modifying WITH queries never change the same table (unspecified in PostgreSQL too);
 *  - new ids come from the statement's index, so repeated INSERTs collide only where meant to
 *    (ON CONFLICT, or a 23505 both engines must raise and recover from identically).
 */

/** The tables DML statements change; compared in id order after each statement. */
export const DML_TABLES = ['d1', 'd2'] as const;

/** CREATE TABLE + INSERT statements for the DML tables of `seed` (dropped first, so a run can start over). */
export function dmlSetupSql(seed: number): string[] {
  const rng = new Rng(seed ^ 0xd31e7e);
  const val = (lo: number, hi: number): string => (rng.chance(0.15) ? 'NULL' : String(rng.int(lo, hi)));
  const txt = (): string => (rng.chance(0.15) ? 'NULL' : rng.pick(["'a'", "'b'", "'ab'", "'x'", "''"]));
  const rows = (n: number, row: (i: number) => string): string =>
    Array.from({ length: n }, (_, i) => `(${row(i + 1)})`).join(', ');
  return [
    'DROP TABLE IF EXISTS d1',
    'DROP TABLE IF EXISTS d2',
    'CREATE TABLE d1 (id int PRIMARY KEY, a int, b int, s text)',
    'CREATE TABLE d2 (id int PRIMARY KEY, k int, v int, s text)',
    `INSERT INTO d1 VALUES ${rows(rng.int(8, 20), (i) => `${i}, ${val(0, 12)}, ${val(-50, 50)}, ${txt()}`)}`,
    `INSERT INTO d2 VALUES ${rows(rng.int(5, 14), (i) => `${i}, ${val(0, 20)}, ${val(-50, 50)}, ${txt()}`)}`,
  ];
}

function dmlPredicate(rng: Rng, t: string): string {
  const [n, m, s] = t === 'd1' ? ['a', 'b', 's'] : ['k', 'v', 's'];
  return rng.pick([
    `${t}.${m} > ${rng.int(-40, 40)}`,
    `${t}.${m} IS NULL`,
    `${t}.${n} % ${rng.int(2, 4)} = ${rng.int(0, 1)}`,
    `${t}.${s} = ${rng.pick(["'a'", "'ab'", "''"])}`,
    `${t}.${s} LIKE 'a%'`,
    `${t}.id BETWEEN ${rng.int(1, 6)} AND ${rng.int(6, 14)}`,
    `${t}.${n} IN (${rng.int(0, 6)}, ${rng.int(4, 12)})`,
    `coalesce(${t}.${m}, 0) <= ${rng.int(-20, 20)}`,
  ]);
}

function maybeWhere(rng: Rng, t: string, joiner = 'WHERE'): string {
  if (!rng.chance(0.7)) return '';
  const p = rng.chance(0.3) ? `(${dmlPredicate(rng, t)} OR ${dmlPredicate(rng, t)})` : dmlPredicate(rng, t);
  return ` ${joiner} ${p}`;
}

function dmlUpdate(rng: Rng): string {
  const r = rng.int(0, 4);
  if (r === 4) {
    // Plain UPDATE: several columns at once, DEFAULT, untyped literals taking the column's type.
    const set = rng.pick(['(a, b) = (b, a)', "(s, b) = ('m' || id, DEFAULT)", "b = '7', s = DEFAULT", '(b) = ROW(coalesce(a, 0) * 2)', 'a = NULL']);
    return `UPDATE d1 SET ${set}${maybeWhere(rng, 'd1')}${rng.pick(['', ' RETURNING *', ' RETURNING id, a, b, s || \'!\' AS t'])}`;
  }
  if (r === 0) {
    const set = rng.pick(['b = d2.v', 'b = coalesce(d1.b, 0) + coalesce(d2.v, 1)', "s = d2.s, b = d2.k", "s = coalesce(d1.s, '') || 'u'"]);
    const ret = rng.pick(['', ' RETURNING d1.id, d1.b, d1.s', ' RETURNING d1.*, d2.v AS dv', ' RETURNING d1.id, d2.id AS did, d1.b - coalesce(d2.v, 0) AS diff']);
    return `UPDATE d1 SET ${set} FROM d2 WHERE d1.a = d2.id${maybeWhere(rng, 'd2', 'AND')}${ret}`;
  }
  if (r === 1) {
    const set = rng.pick(['b = (SELECT max(v) FROM d2 WHERE d2.k = d1.a)', 'b = (SELECT count(*) FROM d2 WHERE d2.k > d1.a)', 'a = a + 1']);
    return `UPDATE d1 SET ${set}${maybeWhere(rng, 'd1')}${rng.pick(['', ' RETURNING *', ' RETURNING id, b, (SELECT count(*) FROM d2) AS n'])}`;
  }
  if (r === 2) {
    return `UPDATE d2 AS t SET v = coalesce(t.v, 0) - 1 WHERE t.k IN (SELECT a FROM d1${maybeWhere(rng, 'd1')})${rng.pick(['', ' RETURNING t.id, t.v'])}`;
  }
  return `UPDATE d2 SET v = NULL, s = 'n'${maybeWhere(rng, 'd2')}${rng.pick(['', ' RETURNING id, v IS NULL AS gone, s'])}`;
}

function dmlDelete(rng: Rng): string {
  const r = rng.int(0, 3);
  if (r === 3) return `DELETE FROM d2${maybeWhere(rng, 'd2')}${rng.pick(['', ' RETURNING *', ' RETURNING id, coalesce(v, 0) * 2 AS w, s'])}`;
  if (r === 0) return `DELETE FROM d2 USING d1 WHERE d2.k = d1.id${maybeWhere(rng, 'd1', 'AND')}${rng.pick(['', ' RETURNING d2.*', ' RETURNING d2.id, d1.b, d1.s'])}`;
  if (r === 1) return `DELETE FROM d1 WHERE a IN (SELECT k FROM d2${maybeWhere(rng, 'd2')})${rng.pick(['', ' RETURNING id, s', ' RETURNING *'])}`;
  return `DELETE FROM d1 AS x WHERE ${rng.pick(['NOT', ''])} EXISTS (SELECT 1 FROM d2 WHERE d2.k = x.a AND d2.v > x.b)${rng.pick(['', ' RETURNING x.id'])}`;
}

function dmlInsert(rng: Rng, base: number): string {
  const r = rng.int(0, 3);
  const ret = rng.pick(['', ' RETURNING *', ' RETURNING id, v']);
  if (r === 0) return `INSERT INTO d2 SELECT id + ${base}, a, b, s FROM d1${maybeWhere(rng, 'd1')}${ret}`;
  if (r === 1) return `INSERT INTO d2 (id, k) SELECT id + ${base}, a FROM d1${maybeWhere(rng, 'd1')} ORDER BY id LIMIT ${rng.int(0, 5)}${ret}`;
  if (r === 2) {
    // Ids that exist in d2 already: ON CONFLICT decides, or both engines raise 23505 and change nothing.
    const action = rng.pick([' ON CONFLICT (id) DO UPDATE SET v = excluded.v, s = d2.s || excluded.s', ' ON CONFLICT DO NOTHING', ' ON CONFLICT (id) DO UPDATE SET k = d2.k + 1 WHERE d2.v > 0', '']);
    return `INSERT INTO d2 SELECT id, a, b, s FROM d1${maybeWhere(rng, 'd1')}${action}${ret}`;
  }
  return `INSERT INTO d1 (id, a, s) SELECT ${base} + k, v, 'i' FROM (SELECT DISTINCT k, v FROM d2 WHERE k IS NOT NULL) s${ret.replace(' v', ' a')}`;
}

/** WITH queries that change a table: run once, their RETURNING rows read by the main statement. */
function dmlWith(rng: Rng, base: number): string {
  const r = rng.int(0, 6);
  // The main statement changes the table the WITH query adds to: the added rows are not its to change.
  if (r === 6) return `WITH x AS (INSERT INTO d1 SELECT id + ${base}, a, b, s FROM d1${maybeWhere(rng, 'd1')} RETURNING id) ${rng.pick(['UPDATE d1 SET b = -1', 'DELETE FROM d1'])}${maybeWhere(rng, 'd1')} RETURNING id`;
  if (r === 0) return `WITH x AS (DELETE FROM d2${maybeWhere(rng, 'd2')} RETURNING id, k, v) SELECT count(*), sum(v), (SELECT count(*) FROM d2) AS before FROM x`;
  if (r === 1) return `WITH x AS (UPDATE d1 SET b = coalesce(b, 0) + 1${maybeWhere(rng, 'd1')} RETURNING id, b) SELECT x.id, x.b, d1.b AS old FROM x JOIN d1 USING (id)`;
  if (r === 2) return `WITH x AS (DELETE FROM d2${maybeWhere(rng, 'd2')} RETURNING *) INSERT INTO d1 (id, a, b, s) SELECT id + ${base}, k, v, s FROM x RETURNING id, a`;
  if (r === 3) return `WITH x AS (INSERT INTO d2 SELECT id + ${base}, a, b, s FROM d1${maybeWhere(rng, 'd1')}) SELECT count(*) FROM d2`;
  if (r === 4) return `WITH x AS (UPDATE d2 SET v = 0${maybeWhere(rng, 'd2')} RETURNING id), y AS (DELETE FROM d1 WHERE id IN (SELECT id FROM x) RETURNING id) SELECT (SELECT count(*) FROM x) AS u, (SELECT count(*) FROM y) AS d, (SELECT count(*) FROM y) AS again`;
  return `WITH x AS (INSERT INTO d2 (id, k) VALUES (${base}, 1), (${base + 1}, 2) RETURNING id, k) UPDATE d1 SET a = x.k FROM x WHERE d1.id = x.k RETURNING d1.id, d1.a`;
}

/** Recursive WITH feeding a DML statement. */
function dmlRecursive(rng: Rng, base: number): string {
  const cte = `WITH RECURSIVE r(n) AS (SELECT ${rng.int(0, 2)} UNION ALL SELECT n + 1 FROM r WHERE n < ${rng.int(2, 9)})`;
  return rng.pick([
    `${cte} UPDATE d1 SET b = coalesce(b, 0) + 1 WHERE a IN (SELECT n FROM r) RETURNING id, b`,
    `${cte} INSERT INTO d2 (id, k) SELECT n + ${base}, n FROM r RETURNING id, k`,
    `${cte} DELETE FROM d2 USING r WHERE d2.k = r.n RETURNING d2.id`,
  ]);
}

const DML_SHAPES = [dmlUpdate, dmlUpdate, dmlDelete, dmlInsert, dmlInsert, dmlWith, dmlWith, dmlRecursive];

/** The i-th statement of a DML run (RETURNING rows compare as a multiset). */
export function generateDml(seed: number, index: number): GeneratedQuery {
  const rng = new Rng((seed * 2654435761 + index * 69069 + 17) >>> 0);
  const shape = rng.pick(DML_SHAPES);
  return { sql: shape(rng, 1000 * (index + 1)), ordered: false };
}

/*
 * Aggregates written inside a sub-SELECT over columns of the enclosing query only: they belong to the
 * enclosing query (PostgreSQL's agglevelsup), which may be grouped or not, and are constants inside the
 * sub-SELECT. Some shapes put them where the owning query allows no aggregate (its WHERE), an error.
 */
export function outerAggregateQuery(seed: number, index: number): GeneratedQuery {
  const rng = new Rng((seed * 1597334677 + index * 3812015801) >>> 0);
  const [ot, it] = rng.sample(TABLES, 2);
  const oc = colsOf(ot, 'o');
  const ic = colsOf(it, 'i');
  const oInts = oc.filter((c) => c.kind === 'int');
  const iInts = ic.filter((c) => c.kind === 'int');
  const key = rng.chance(0.5) ? rng.pick(oc.filter((c) => !c.sql.endsWith('.id'))) : null;
  const outerAgg = aggregate(rng, oc);
  const r = rng.int(0, 5);
  let sub: string;
  if (r === 0) sub = `(SELECT ${outerAgg} FROM ${it.name} i${rng.chance(0.5) ? ` WHERE ${predicate(rng, ic)}` : ''} LIMIT 1)`;
  else if (r === 1) sub = `(SELECT count(*) + coalesce(sum(${rng.pick(oInts).sql}), 0) FROM ${it.name} i WHERE ${predicate(rng, ic)})`;
  else if (r === 2) sub = `(SELECT ${outerAgg})`;
  else if (r === 3) sub = `(SELECT max(${rng.pick(iInts).sql}) + count(${rng.pick(oc).sql}) FROM ${it.name} i)`;
  else if (r === 4) sub = `(SELECT (SELECT ${outerAgg}) FROM ${it.name} i ORDER BY i.id LIMIT 1)`;
  else sub = `EXISTS (SELECT 1 FROM ${it.name} i WHERE ${rng.pick(iInts).sql} = max(${rng.pick(oInts).sql}))`;
  const items = [...(key ? [key.sql] : []), sub];
  let sql = `SELECT ${items.map((s, i) => `${s} AS c${i}`).join(', ')} FROM ${ot.name} o`;
  // An aggregate of the outer query in its own WHERE (through a sub-SELECT) is an error.
  if (rng.chance(0.1)) sql += ` WHERE ${rng.pick(oInts).sql} = (SELECT max(${rng.pick(oInts).sql}))`;
  else if (rng.chance(0.4)) sql += where(rng, oc);
  if (key) sql += ` GROUP BY ${key.sql}`;
  if (rng.chance(0.25)) sql += ` HAVING EXISTS (SELECT 1 FROM ${it.name} i WHERE ${rng.pick(iInts).sql} <= count(o.id))`;
  if (!key) return { sql, ordered: false };
  return { sql: `${sql} ORDER BY c0`, ordered: true };
}
