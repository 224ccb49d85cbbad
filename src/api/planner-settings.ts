/**
 * PostgreSQL's planner and server settings that have no effect on Quire (it plans by its own rules,
 * runs no parallel workers and compiles no JIT code) but that scripts written for PostgreSQL SET and
 * SHOW. They are accepted with PostgreSQL's validation and units, and SHOW returns what was set, in
 * PostgreSQL's display form.
 */
import { QuireError } from '../common/errors.js';

type Setting =
  | { kind: 'bool'; def: boolean }
  | { kind: 'real'; def: number; min: number; max: number }
  | { kind: 'int'; def: number; min: number; max: number }
  /** A size stored in units of `unitKb` kilobytes (8 for PostgreSQL's block-sized settings). */
  | { kind: 'size'; def: number; min: number; max: number; unitKb: number }
  | { kind: 'enum'; def: string; values: readonly string[] };

const INT_MAX = 2147483647;
const REAL_MAX = Number.MAX_VALUE;
const on = (def = true): Setting => ({ kind: 'bool', def });
const cost = (def: number, min = 0): Setting => ({ kind: 'real', def, min, max: REAL_MAX });

const SETTINGS: Record<string, Setting> = {
  enable_async_append: on(),
  enable_bitmapscan: on(),
  enable_gathermerge: on(),
  enable_group_by_reordering: on(),
  enable_hashagg: on(),
  enable_hashjoin: on(),
  enable_incremental_sort: on(),
  enable_indexonlyscan: on(),
  enable_indexscan: on(),
  enable_material: on(),
  enable_memoize: on(),
  enable_mergejoin: on(),
  enable_nestloop: on(),
  enable_parallel_append: on(),
  enable_parallel_hash: on(),
  enable_partition_pruning: on(),
  enable_partitionwise_aggregate: on(false),
  enable_partitionwise_join: on(false),
  enable_presorted_aggregate: on(),
  enable_seqscan: on(),
  enable_sort: on(),
  enable_tidscan: on(),
  geqo: on(),
  parallel_leader_participation: on(),
  jit: on(false),
  seq_page_cost: cost(1),
  random_page_cost: cost(4),
  cpu_tuple_cost: cost(0.01),
  cpu_index_tuple_cost: cost(0.005),
  cpu_operator_cost: cost(0.0025),
  parallel_setup_cost: cost(1000),
  parallel_tuple_cost: cost(0.1),
  jit_above_cost: cost(100000, -1),
  jit_inline_above_cost: cost(500000, -1),
  jit_optimize_above_cost: cost(500000, -1),
  cursor_tuple_fraction: { kind: 'real', def: 0.1, min: 0, max: 1 },
  hash_mem_multiplier: { kind: 'real', def: 2, min: 1, max: 1000 },
  max_parallel_workers_per_gather: { kind: 'int', def: 0, min: 0, max: 1024 },
  max_parallel_workers: { kind: 'int', def: 8, min: 0, max: 1024 },
  max_parallel_maintenance_workers: { kind: 'int', def: 2, min: 0, max: 1024 },
  from_collapse_limit: { kind: 'int', def: 8, min: 1, max: INT_MAX },
  join_collapse_limit: { kind: 'int', def: 8, min: 1, max: INT_MAX },
  geqo_threshold: { kind: 'int', def: 12, min: 2, max: INT_MAX },
  min_parallel_table_scan_size: { kind: 'size', def: 1024, min: 0, max: 715827882, unitKb: 8 },
  min_parallel_index_scan_size: { kind: 'size', def: 64, min: 0, max: 715827882, unitKb: 8 },
  effective_cache_size: { kind: 'size', def: 524288, min: 1, max: INT_MAX, unitKb: 8 },
  work_mem: { kind: 'size', def: 4096, min: 64, max: INT_MAX, unitKb: 1 },
  maintenance_work_mem: { kind: 'size', def: 65536, min: 1024, max: INT_MAX, unitKb: 1 },
  plan_cache_mode: { kind: 'enum', def: 'auto', values: ['auto', 'force_generic_plan', 'force_custom_plan'] },
  constraint_exclusion: { kind: 'enum', def: 'partition', values: ['partition', 'on', 'off'] },
  debug_parallel_query: { kind: 'enum', def: 'off', values: ['off', 'on', 'regress'] },
  default_toast_compression: { kind: 'enum', def: 'pglz', values: ['pglz', 'lz4'] },
};

/** Defaults in display form, to merge into the session's settings. */
export function plannerSettingDefaults(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, s] of Object.entries(SETTINGS)) out[k] = display(s, s.def);
  return out;
}

export function isPlannerSetting(key: string): boolean {
  return key in SETTINGS;
}

function display(s: Setting, v: number | boolean | string): string {
  switch (s.kind) {
    case 'bool':
      return v ? 'on' : 'off';
    case 'real':
    case 'int':
      return formatReal(v as number);
    case 'size':
      return formatSize((v as number) * s.unitKb);
    case 'enum':
      return v as string;
  }
}

/** PostgreSQL prints reals with %g: 6 significant digits. */
function formatReal(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  const p = Number(v.toPrecision(6));
  return Math.abs(p) >= 1e-4 && Math.abs(p) < 1e6 ? String(p) : p.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
}

const SIZE_UNITS: [string, number][] = [
  ['TB', 1024 ** 3],
  ['GB', 1024 ** 2],
  ['MB', 1024],
  ['kB', 1],
];

function formatSize(kb: number): string {
  if (kb === 0) return '0';
  for (const [u, n] of SIZE_UNITS) if (kb % n === 0) return `${kb / n}${u}`;
  return `${kb}kB`;
}

function invalid(name: string, value: string, hint?: string): QuireError {
  return new QuireError('22023', `invalid value for parameter "${name}": "${value}"`, hint !== undefined ? { hint } : {});
}

function outOfRange(name: string, value: string, s: { min: number; max: number }): QuireError {
  const fmt = (x: number): string => (x === REAL_MAX ? '1.79769e+308' : formatReal(x));
  return new QuireError('22023', `${value} is outside the valid range for parameter "${name}" (${fmt(s.min)} .. ${fmt(s.max)})`);
}

/** PostgreSQL's parse_bool: on/off, true/false, yes/no, 1/0 and unambiguous prefixes. */
export function parseBool(v: string): boolean | null {
  const l = v.trim().toLowerCase();
  if (l === '') return null;
  if ('true'.startsWith(l) || 'yes'.startsWith(l) || l === 'on' || l === '1') return true;
  if ('false'.startsWith(l) || 'no'.startsWith(l) || (l.length >= 2 && 'off'.startsWith(l)) || l === '0') return false;
  return null;
}

/** Validates a SET of one of these settings; returns the value SHOW prints. */
export function checkPlannerSetting(key: string, name: string, value: string): string {
  const s = SETTINGS[key]!;
  switch (s.kind) {
    case 'bool': {
      const b = parseBool(value);
      if (b === null) throw new QuireError('22023', `parameter "${name}" requires a Boolean value`);
      return display(s, b);
    }
    case 'real':
    case 'int': {
      const t = value.trim();
      const n = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t) ? Number(t) : NaN;
      if (Number.isNaN(n)) throw invalid(name, value);
      if (s.kind === 'int' && !Number.isInteger(n)) {
        throw new QuireError('22023', `invalid value for parameter "${name}": "${value}"`, { hint: 'Valid values are integers.' });
      }
      if (n < s.min || n > s.max) throw outOfRange(name, value, s);
      return display(s, n);
    }
    case 'size': {
      const m = /^\s*([+-]?\d+(?:\.\d+)?)\s*(B|kB|MB|GB|TB)?\s*$/.exec(value);
      if (m === null) {
        throw invalid(name, value, 'Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".');
      }
      const unit = m[2];
      const kb = Number(m[1]) * (unit === undefined ? s.unitKb : unit === 'B' ? 1 / 1024 : SIZE_UNITS.find(([u]) => u === unit)![1]);
      const units = Math.round(kb / s.unitKb);
      if (units < s.min || units > s.max) {
        const shown = unit === undefined ? value.trim() : `${units}`;
        throw new QuireError('22023', `${shown} ${s.unitKb === 8 ? '8kB' : 'kB'} is outside the valid range for parameter "${name}" (${s.min} .. ${s.max})`);
      }
      return display(s, units);
    }
    case 'enum': {
      const l = value.trim().toLowerCase();
      if (!s.values.includes(l)) throw invalid(name, value, `Available values: ${s.values.join(', ')}.`);
      return l;
    }
  }
}
