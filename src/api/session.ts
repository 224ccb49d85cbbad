/** Per-database session state: settings (SET/SHOW), the evaluation context functions see. */
import { PreparedStatements } from './prepared.js';
import { QuireError } from '../common/errors.js';
import type { EvalContext } from '../functions/eval-context.js';
import { defaultMemoryLimit, parseByteSize } from '../execution/memory-pool.js';
import { normalizeTimeoutSetting } from '../execution/interrupt.js';
import { AccessPolicy } from './access-policy.js';
import type { SessionSequences } from './sequences.js';
import { checkPlannerSetting, isPlannerSetting, parseBool, plannerSettingDefaults } from './planner-settings.js';

const DEFAULTS: Record<string, string> = {
  timezone: 'UTC',
  datestyle: 'ISO, MDY',
  intervalstyle: 'postgres',
  search_path: '"$user", public',
  client_encoding: 'UTF8',
  server_encoding: 'UTF8',
  standard_conforming_strings: 'on',
  application_name: '',
  extra_float_digits: '1',
  server_version: '16.0',
  server_version_num: '160000',
  integer_datetimes: 'on',
  is_superuser: 'on',
  default_transaction_isolation: 'read committed',
  transaction_isolation: 'read committed',
  max_identifier_length: '63',
  'quire.disabled_rules': '',
  /** derive-topn-from-window: on / off / auto (src/optimizer/rules/derive-topn-from-window.ts). */
  'quire.derive_topn': 'auto',
  /** push-into-remote-scan: ctid page ranges an ORDER BY … LIMIT over a connector table is split into (1: no split). */
  'quire.connector_partitions': '1',
  /** read_parquet tests text filters on undecoded values (parquet-row-filter.ts): on / off. */
  'quire.parquet_text_filters': 'on',
  statement_timeout: '0',
  lc_collate: 'C',
  lc_ctype: 'C',
  lc_messages: 'C',
  lc_monetary: 'C',
  lc_numeric: 'C',
  lc_time: 'C',
  client_min_messages: 'notice',
  row_security: 'on',
  bytea_output: 'hex',
  xmloption: 'content',
  check_function_bodies: 'on',
  idle_in_transaction_session_timeout: '0',
  lock_timeout: '0',
  // Memory-bounded execution (src/execution/memory-pool.ts): sorts and aggregates spill beyond memory_limit.
  memory_limit: defaultMemoryLimit(),
  temp_directory: '',
  max_temp_directory_size: 'unlimited',
  'quire.spill_compression': 'off',
  // Planner settings PostgreSQL has and Quire accepts without effect (src/api/planner-settings.ts).
  ...plannerSettingDefaults(),
};

/** Settings whose values must parse as byte sizes ('256MB'); checked on SET so a typo fails loudly. */
const SIZE_SETTINGS = new Set(['memory_limit', 'max_temp_directory_size']);

/** Settings in milliseconds: accept PostgreSQL's units, store (and SHOW) PostgreSQL's display form. */
const DURATION_SETTINGS = new Set(['statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout']);

/**
 * Quire's own switches, with the words besides PostgreSQL's Booleans each takes. Checked on SET and
 * stored as on / off (or the word): the code reading them compares one spelling, and a typo or `false`
 * fails or switches off instead of silently leaving the default.
 */
const SWITCH_SETTINGS: Record<string, readonly string[]> = {
  'quire.derive_topn': ['auto'],
  'quire.parquet_text_filters': [],
  'quire.spill_compression': ['zlib'],
};

function checkSwitch(name: string, value: string, words: readonly string[]): string {
  const l = value.trim().toLowerCase();
  if (words.includes(l)) return l;
  const b = parseBool(l);
  if (b === null) {
    throw new QuireError('22023', `invalid value for parameter "${name}": "${value}"`, { hint: `Available values: ${['on', 'off', ...words].join(', ')}.` });
  }
  return b ? 'on' : 'off';
}

function checkSetting(key: string, name: string, value: string): string {
  if (isPlannerSetting(key)) return checkPlannerSetting(key, name, value);
  const words = SWITCH_SETTINGS[key];
  if (words !== undefined) return checkSwitch(name, value, words);
  if (key === 'intervalstyle') return checkIntervalStyle(name, value);
  if (DURATION_SETTINGS.has(key)) return normalizeTimeoutSetting(name, value);
  if (SIZE_SETTINGS.has(key) && parseByteSize(value) === null) {
    throw new QuireError('22023', `invalid value for parameter "${name}": "${value}"`, {
      hint: "Valid units for this parameter are \"B\", \"kB\", \"MB\", \"GB\", and \"TB\"; '0' or 'unlimited' means no limit.",
    });
  }
  return value;
}

/**
 * IntervalStyle: Quire prints the postgres and postgres_verbose styles. PostgreSQL's other two are
 * refused rather than accepted and ignored, which would print intervals in a style the session did
 * not ask for.
 */
function checkIntervalStyle(name: string, value: string): string {
  const v = value.trim().toLowerCase();
  if (v === 'postgres' || v === 'postgres_verbose') return v;
  if (v === 'sql_standard' || v === 'iso_8601') {
    throw new QuireError('0A000', `IntervalStyle "${v}" is not supported`, { hint: 'Quire prints intervals in the postgres and postgres_verbose styles.' });
  }
  throw new QuireError('22023', `invalid value for parameter "${name}": "${value}"`, { hint: 'Available values: postgres, postgres_verbose, sql_standard, iso_8601.' });
}

/** Mulberry32: tiny, seedable, good enough for random() (not cryptographic, as in PostgreSQL). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let nextSessionId = 1;

export class Session {
  /** Distinguishes sessions' TEMP tables (pg_temp_<id>), as PostgreSQL's backend ids do. */
  readonly id = nextSessionId++;
  private settings = new Map<string, string>(Object.entries(DEFAULTS));
  private rand = rng((Math.random() * 2 ** 32) >>> 0);
  /** Inside BEGIN … COMMIT/ROLLBACK. */
  inTransaction = false;
  /** The transaction block hit an error: only ROLLBACK (or COMMIT, which rolls back) is accepted (25P02). */
  transactionFailed = false;
  /** PREPARE'd statements (src/api/prepared.ts). */
  readonly prepared = new PreparedStatements();

  /** Values the session started with: RESET returns to them (as to postgresql.conf), not to built-in defaults. */
  private readonly initial = new Map<string, string>();

  constructor(
    initial: Record<string, string> = {},
    /** What the session may do beyond reading (src/api/access-policy.ts). */
    readonly access: AccessPolicy = AccessPolicy.full,
  ) {
    for (const [k, v] of Object.entries(initial)) {
      const value = checkSetting(k.toLowerCase(), k, v);
      this.settings.set(k.toLowerCase(), value);
      this.initial.set(k.toLowerCase(), value);
    }
  }

  /** Counts set() calls: a server reports parameter changes after a statement only when it moved. */
  get changes(): number {
    return this.setCalls;
  }
  private setCalls = 0;

  get(name: string): string | undefined {
    return this.settings.get(name.toLowerCase());
  }

  set(name: string, value: string | null): void {
    this.setCalls++;
    const key = name.toLowerCase();
    if (value === null) {
      const d = this.initial.get(key) ?? DEFAULTS[key];
      if (d === undefined) this.settings.delete(key);
      else this.settings.set(key, d);
      return;
    }
    if (!(key in DEFAULTS) && !key.includes('.')) {
      throw new QuireError('42704', `unrecognized configuration parameter "${name}"`);
    }
    this.settings.set(key, checkSetting(key, name, value));
  }

  show(name: string): string {
    const v = this.get(name);
    if (v === undefined) throw new QuireError('42704', `unrecognized configuration parameter "${name}"`);
    return v;
  }

  all(): [string, string][] {
    return [...this.settings.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  }

  get timezone(): string {
    return this.settings.get('timezone') ?? 'UTC';
  }

  disabledRules(): Set<string> {
    const v = this.settings.get('quire.disabled_rules') ?? '';
    return new Set(v.split(',').map((s) => s.trim()).filter(Boolean));
  }

  /** The session's sequence state (currval, lastval); set by the database that owns the session. */
  sequences: SessionSequences | undefined;

  /** The text output settings that differ from their defaults (see EvalContext). */
  private outputSettings(): { extraFloatDigits?: number; dateStyle?: string; intervalStyle?: string } {
    const out: { extraFloatDigits?: number; dateStyle?: string; intervalStyle?: string } = {};
    const efd = Number(this.get('extra_float_digits') ?? '1');
    if (Number.isFinite(efd) && efd < 1) out.extraFloatDigits = efd;
    const ds = this.get('datestyle');
    if (ds !== undefined) out.dateStyle = ds;
    const is = this.get('intervalstyle');
    if (is !== undefined) out.intervalStyle = is;
    return out;
  }

  evalContext(statementTime: number): EvalContext {
    const self = this;
    return {
      timezone: this.timezone,
      statementTime,
      transactionTime: statementTime,
      random: () => self.rand(),
      setSeed: (seed: number) => {
        self.rand = rng(Math.floor((seed + 1) * 2147483647));
      },
      setting: (n: string) => self.get(n),
      ...this.outputSettings(),
      ...(this.access.files !== undefined ? { files: this.access.files } : {}),
      ...(this.sequences !== undefined ? { sequences: this.sequences.access() } : {}),
    };
  }
}
