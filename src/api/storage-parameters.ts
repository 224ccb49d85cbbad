/**
 * Table storage parameters (CREATE TABLE … WITH (…), ALTER TABLE … SET / RESET (…)): checked as
 * PostgreSQL checks a heap's reloptions, then accepted without effect. Quire has no heap pages, vacuum
 * or parallel workers for them to tune, but schema scripts and dumps carry them, and a misspelt or
 * out-of-range one should fail here as it does in PostgreSQL.
 */
import type { Node } from '@pgsql/types';
import { QuireError } from '../common/errors.js';
import { nodeBody, nodeTag, type AnyNode } from '../sql/ast.js';

type Param = { kind: 'int'; min: number; max: number } | { kind: 'real'; min: number; max: number } | { kind: 'bool' } | { kind: 'enum'; values: readonly string[] };

const INT_MAX = 2147483647;
const int = (min: number, max: number): Param => ({ kind: 'int', min, max });
const real = (min: number, max: number): Param => ({ kind: 'real', min, max });
const bool: Param = { kind: 'bool' };

/** The autovacuum and vacuum options. */
const VACUUM: Record<string, Param> = {
  autovacuum_enabled: bool,
  autovacuum_vacuum_threshold: int(0, INT_MAX),
  autovacuum_vacuum_insert_threshold: int(-1, INT_MAX),
  autovacuum_analyze_threshold: int(0, INT_MAX),
  autovacuum_vacuum_cost_limit: int(1, 10000),
  autovacuum_freeze_min_age: int(0, 1000000000),
  autovacuum_freeze_max_age: int(100000, 2000000000),
  autovacuum_freeze_table_age: int(0, 2000000000),
  autovacuum_multixact_freeze_min_age: int(0, 1000000000),
  autovacuum_multixact_freeze_max_age: int(10000, 2000000000),
  autovacuum_multixact_freeze_table_age: int(0, 2000000000),
  log_autovacuum_min_duration: int(-1, INT_MAX),
  autovacuum_vacuum_cost_delay: real(0, 100),
  autovacuum_vacuum_scale_factor: real(0, 100),
  autovacuum_vacuum_insert_scale_factor: real(0, 100),
  vacuum_index_cleanup: { kind: 'enum', values: ['auto', 'on', 'off', 'true', 'false', 'yes', 'no', '1', '0'] },
  vacuum_truncate: bool,
};
const HEAP: Record<string, Param> = {
  ...VACUUM,
  autovacuum_analyze_scale_factor: real(0, 100),
  fillfactor: int(10, 100),
  toast_tuple_target: int(128, 8160),
  parallel_workers: int(0, 1024),
  user_catalog_table: bool,
};

function invalid(message: string, detail?: string): QuireError {
  return new QuireError('22023', message, detail === undefined ? {} : { detail });
}

/** The option's value as PostgreSQL reads it: its text, "true" when none is given. */
function valueText(arg: Node | undefined): string {
  if (arg === undefined) return 'true';
  const b = nodeBody<AnyNode>(arg);
  switch (nodeTag(arg)) {
    case 'Integer':
      return String((b.ival as number | undefined) ?? 0);
    case 'Float':
      return String(b.fval);
    case 'Boolean':
      return b.boolval === true ? 'true' : 'false';
    case 'String':
      return String(b.sval ?? '');
    case 'TypeName':
      return ((b.names as Node[] | undefined) ?? []).map((n) => String(nodeBody<AnyNode>(n).sval)).join('.');
    default:
      return String(b.sval ?? '');
  }
}

const BOOL_TEXT = /^(t|tr|tru|true|y|ye|yes|on|1|f|fa|fal|fals|false|n|no|of|off|0)$/i;

function checkValue(name: string, p: Param, text: string): void {
  switch (p.kind) {
    case 'bool':
      if (!BOOL_TEXT.test(text.trim()) || /^o$/i.test(text.trim())) throw invalid(`invalid value for boolean option "${name}": ${text}`);
      return;
    case 'enum':
      if (!p.values.includes(text.toLowerCase())) throw invalid(`invalid value for enum option "${name}": ${text}`, 'Valid values are "on", "off", and "auto".');
      return;
    case 'int': {
      if (!/^\s*[+-]?\d+\s*$/.test(text)) throw invalid(`invalid value for integer option "${name}": ${text}`);
      const v = Number(text);
      if (v < p.min || v > p.max) throw invalid(`value ${text} out of bounds for option "${name}"`, `Valid values are between "${p.min}" and "${p.max}".`);
      return;
    }
    case 'real': {
      const v = Number(text);
      if (text.trim() === '' || !Number.isFinite(v)) throw invalid(`invalid value for floating point option "${name}": ${text}`);
      if (v < p.min || v > p.max) throw invalid(`value ${text} out of bounds for option "${name}"`, `Valid values are between "${p.min.toFixed(6)}" and "${p.max.toFixed(6)}".`);
      return;
    }
  }
}

/**
 * Checks a list of storage parameters (DefElem nodes). `reset`: RESET (names only). `create`: CREATE
 * TABLE's WITH, which also takes `oids = false` (true is refused, as in PostgreSQL 12 and later).
 */
export function checkStorageParameters(options: readonly Node[] | undefined, mode: 'create' | 'set' | 'reset'): void {
  for (const o of options ?? []) {
    const d = nodeBody<AnyNode>(o);
    const name = String(d.defname).toLowerCase();
    const space = d.defnamespace === undefined ? null : String(d.defnamespace).toLowerCase();
    if (space !== null && space !== 'toast') throw invalid(`unrecognized parameter namespace "${space}"`);
    if (mode === 'create' && space === null && name === 'oids') {
      if (/^(t|tr|tru|true|y|ye|yes|on|1)$/i.test(valueText(d.arg as Node | undefined))) {
        throw new QuireError('0A000', 'tables declared WITH OIDS are not supported');
      }
      continue;
    }
    // toast.*: PostgreSQL checks these only against a table's TOAST relation, which a table without
    // wide columns lacks (then anything is taken); Quire has none, so they are taken as they are.
    if (space === 'toast') continue;
    const p = HEAP[name];
    if (p === undefined) throw invalid(`unrecognized parameter "${name}"`);
    if (mode === 'reset') {
      if (d.arg !== undefined) throw new QuireError('42601', 'RESET must not include values for parameters');
      continue;
    }
    checkValue(name, p, valueText(d.arg as Node | undefined));
  }
}
