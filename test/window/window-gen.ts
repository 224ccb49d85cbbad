/**
 * Seeded random window queries for the differential test: random partitions, ORDER BY lists (with ties
 * and NULLs), frames (ROWS/RANGE/GROUPS, every bound kind, EXCLUDE), FILTER and every window function.
 *
 * Results must be deterministic under PostgreSQL semantics, so: functions that depend on the order of
 * peers (ROWS frames, first/last/nth_value, lag/lead, row_number, ntile, string_agg) are only generated
 * when the ORDER BY ends with the unique id; with a tie-prone ORDER BY only set functions over RANGE/GROUPS
 * frames are used. Float data are multiples of 0.5 (plus NaN/±Infinity) so sums are exact in any order.
 */
export function rng(seed: number): { int(n: number): number; pick<T>(xs: readonly T[]): T; chance(p: number): boolean } {
  let s = seed >>> 0 || 1;
  const next = (): number => {
    // xorshift32: tiny and portable
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
  return {
    int: (n) => Math.floor(next() * n),
    pick: (xs) => xs[Math.floor(next() * xs.length)]!,
    chance: (p) => next() < p,
  };
}

export function setupSql(seed: number, rows = 60): string[] {
  const r = rng(seed);
  const vals: string[] = [];
  const nul = (p: number, v: string): string => (r.chance(p) ? 'NULL' : v);
  for (let id = 1; id <= rows; id++) {
    const f = r.chance(0.06) ? r.pick(["'NaN'", "'Infinity'", "'-Infinity'"]) : String((r.int(40) - 20) / 2);
    const d = `DATE '2024-01-01' + ${r.int(60)}`;
    vals.push(`(${id}, ${nul(0.1, String(r.int(4)))}, ${nul(0.15, String(r.int(12)))}, ${nul(0.1, f)}, ${nul(0.15, String(r.int(200) - 50))}, ${nul(0.1, `'s${r.int(30)}'`)}, ${nul(0.1, d)}, ${nul(0.1, `${r.int(100) / 4}`)})`);
  }
  return [
    'CREATE TABLE r (id int, p int, k int, f float8, v int, s text, d date, n numeric)',
    `INSERT INTO r VALUES ${vals.join(', ')}`,
  ];
}

const ORDER_COLS = ['k', 'v', 'f', 'd', 'n', 'p'];
const DIR = ['', ' ASC', ' DESC', ' NULLS FIRST', ' DESC NULLS LAST', ' ASC NULLS LAST', ' DESC NULLS FIRST'];

export function windowQuery(seed: number): string {
  const r = rng(seed);
  const calls: string[] = [];
  const ncalls = 1 + r.int(4);
  for (let c = 0; c < ncalls; c++) calls.push(windowCall(r));
  return `SELECT id, ${calls.join(', ')} FROM r ORDER BY id`;
}

function windowCall(r: ReturnType<typeof rng>): string {
  const part = r.chance(0.6) ? `PARTITION BY ${r.pick(['p', 'k % 3', 'p, k % 2', 's IS NULL'])} ` : '';
  const total = r.chance(0.5);
  const keyCol = r.pick(ORDER_COLS);
  const dir = r.pick(DIR);
  const hasOrder = total || r.chance(0.85);
  let order = '';
  if (hasOrder) order = total ? `ORDER BY ${keyCol}${dir}, id${r.pick(['', ' DESC'])} ` : `ORDER BY ${keyCol}${dir} `;
  const frame = hasOrder ? frameClause(r, total, total ? null : keyCol) : r.chance(0.3) ? 'ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING' : '';
  const over = `OVER (${part}${order}${frame})`;
  const setFns = ['count(*)', 'count(v)', 'sum(v)', 'min(v)', 'max(s)', 'avg(v)', 'sum(f)', 'max(f)', 'min(d)', 'sum(n)', 'bool_and(v > 0)', 'bool_or(k > 5)', 'count(*) FILTER (WHERE v > 10)', 'sum(v) FILTER (WHERE k % 2 = 0)'];
  const rankFns = ['rank()', 'dense_rank()', 'percent_rank()', 'cume_dist()'];
  const orderFns = ['row_number()', `ntile(${1 + r.int(7)})`, 'lag(v)', `lead(s, ${r.int(4)}, 'zz')`, 'lag(f, 2)', 'first_value(v)', 'last_value(s)', `nth_value(v, ${1 + r.int(4)})`, "string_agg(s, ',')", 'max(v) FILTER (WHERE p = 1)'];
  let fn: string;
  if (!hasOrder) fn = r.pick([...setFns, ...rankFns]);
  else if (total) fn = r.pick([...setFns, ...rankFns, ...orderFns, ...orderFns]);
  else fn = r.pick([...setFns, ...rankFns]);
  return `${fn} ${over}`;
}

function bound(r: ReturnType<typeof rng>, off: () => string, start: boolean): string {
  const kinds = start ? ['UNBOUNDED PRECEDING', 'CURRENT ROW', 'P', 'F'] : ['UNBOUNDED FOLLOWING', 'CURRENT ROW', 'P', 'F'];
  const k = r.pick(kinds);
  if (k === 'P') return `${off()} PRECEDING`;
  if (k === 'F') return `${off()} FOLLOWING`;
  return k;
}

const ORDER_RANK: Record<string, number> = { 'UNBOUNDED PRECEDING': 0, P: 1, 'CURRENT ROW': 2, F: 3, 'UNBOUNDED FOLLOWING': 4 };

function frameClause(r: ReturnType<typeof rng>, total: boolean, rangeKey: string | null): string {
  if (r.chance(0.15)) return '';
  const units = total ? r.pick(['ROWS', 'ROWS', 'GROUPS', 'RANGE']) : r.pick(['RANGE', 'GROUPS']);
  let off: () => string;
  if (units === 'RANGE') {
    // Offsets need the single ORDER BY key; with a total order (key, id) only non-offset RANGE bounds exist.
    const t = rangeKey;
    if (t === null) off = () => '';
    else if (t === 'd') off = () => `INTERVAL '${r.int(20)} days'`;
    else if (t === 'f') off = () => r.pick(['0.5', '3', "'Infinity'", '0']);
    else if (t === 'n') off = () => r.pick(['1.25', '5', '0']);
    else off = () => String(r.int(6));
  } else off = () => String(r.int(5));
  const offsetsAllowed = units !== 'RANGE' || rangeKey !== null;
  let s: string;
  let e: string;
  for (;;) {
    s = bound(r, off, true);
    e = bound(r, off, false);
    if (!offsetsAllowed && (/PRECEDING|FOLLOWING/.test(s.replace('UNBOUNDED PRECEDING', '')) || /PRECEDING|FOLLOWING/.test(e.replace('UNBOUNDED FOLLOWING', '')))) continue;
    const rs = ORDER_RANK[s.endsWith(' PRECEDING') && !s.startsWith('UNBOUNDED') ? 'P' : s.endsWith(' FOLLOWING') ? 'F' : s]!;
    const re = ORDER_RANK[e.endsWith(' PRECEDING') ? 'P' : e.endsWith(' FOLLOWING') && !e.startsWith('UNBOUNDED') ? 'F' : e]!;
    // PostgreSQL rejects a start that comes after the end kind-wise (e.g. CURRENT ROW .. n PRECEDING).
    if (rs > re || (rs === 2 && re === 1) || (rs === 3 && re < 3)) continue;
    break;
  }
  const ex = r.pick(['', '', '', ' EXCLUDE CURRENT ROW', ' EXCLUDE GROUP', ' EXCLUDE TIES', ' EXCLUDE NO OTHERS']);
  return ` ${units} BETWEEN ${s} AND ${e}${ex}`;
}
