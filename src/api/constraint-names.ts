/**
 * Names of a new table's PRIMARY KEY and UNIQUE constraints, chosen as PostgreSQL chooses them: the
 * name written after CONSTRAINT, else `<table>_pkey` and `<table>_<columns>_key`, cut to 63 bytes by
 * shortening the longer of table and column part first, with a number after the label when the name
 * is taken (`t_a_key1`). A key that repeats an earlier one's columns (in order) is dropped, passing
 * its written name to that one, as PostgreSQL drops redundant index definitions. The primary key
 * comes first, as PostgreSQL builds its index first (and so reports it first in 23505).
 */
import { QuireError, positionOf } from '../common/errors.js';

/** PostgreSQL's NAMEDATALEN - 1: the longest identifier, in bytes. */
const MAX_NAME_BYTES = 63;

export interface KeySpec {
  readonly cols: number[];
  readonly primary: boolean;
  /** The name written after CONSTRAINT, if any. */
  readonly name: string | undefined;
  readonly location: number | undefined;
}

/** The first `n` bytes of `s` as UTF-8, without cutting a character. */
function clip(s: string, n: number): string {
  const bytes = Buffer.from(s, 'utf8');
  if (bytes.length <= n) return s;
  let out = '';
  let used = 0;
  for (const ch of s) {
    const w = Buffer.byteLength(ch, 'utf8');
    if (used + w > n) break;
    out += ch;
    used += w;
  }
  return out;
}

/** `name1[_name2]_label`, with name1 and name2 shortened (the longer first) to fit 63 bytes. */
function objectName(name1: string, name2: string | null, label: string): string {
  let n1 = Buffer.byteLength(name1, 'utf8');
  let n2 = name2 === null ? 0 : Buffer.byteLength(name2, 'utf8');
  const overhead = Buffer.byteLength(label, 'utf8') + 1 + (name2 === null ? 0 : 1);
  const avail = MAX_NAME_BYTES - overhead;
  while (n1 + n2 > avail) {
    if (n1 > n2) n1--;
    else n2--;
  }
  const a = clip(name1, n1);
  return name2 === null ? `${a}_${label}` : `${a}_${clip(name2, n2)}_${label}`;
}

/** The column part of a unique key's name: the columns joined with `_`, no longer than a name can use. */
function columnPart(cols: readonly string[]): string {
  let out = '';
  for (const c of cols) {
    if (out !== '') out += '_';
    out += c;
    if (Buffer.byteLength(out, 'utf8') >= MAX_NAME_BYTES) break;
  }
  return clip(out, MAX_NAME_BYTES);
}

/**
 * The keys of table `table` (column names `columns`) in PostgreSQL's order, without redundant ones,
 * each with its name. `taken` holds names in use (relations and other tables' constraints); the
 * chosen names are added to it.
 */
export function nameKeys(table: string, columns: readonly string[], specs: readonly KeySpec[], taken: Set<string>): { keys: number[][]; names: string[] } {
  const ordered = [...specs.filter((s) => s.primary), ...specs.filter((s) => !s.primary)];
  const kept: { cols: number[]; primary: boolean; name: string | undefined; location: number | undefined }[] = [];
  for (const s of ordered) {
    const prior = kept.find((k) => k.cols.length === s.cols.length && k.cols.every((c, i) => c === s.cols[i]));
    if (prior !== undefined) {
      prior.name ??= s.name;
      continue;
    }
    kept.push({ ...s });
  }
  const names: string[] = [];
  for (const k of kept) {
    if (k.name !== undefined) {
      if (taken.has(k.name)) throw new QuireError('42P07', `relation "${k.name}" already exists`, k.location !== undefined ? { position: positionOf(k.location) } : {});
      taken.add(k.name);
      names.push(k.name);
    }
  }
  const out: string[] = [];
  let written = 0;
  for (const k of kept) {
    if (k.name !== undefined) {
      out.push(names[written++]!);
      continue;
    }
    const part = k.primary ? null : columnPart(k.cols.map((c) => columns[c]!));
    const label = k.primary ? 'pkey' : 'key';
    let name = objectName(table, part, label);
    for (let pass = 1; taken.has(name); pass++) name = objectName(table, part, `${label}${pass}`);
    taken.add(name);
    out.push(name);
  }
  return { keys: kept.map((k) => k.cols), names: out };
}

/** The name PostgreSQL gives an index written without one: `<table>_<columns>_idx`, numbered when taken. */
export function chooseIndexName(table: string, columns: readonly string[], taken: ReadonlySet<string>): string {
  const part = columnPart(columns);
  let name = objectName(table, part, 'idx');
  for (let pass = 1; taken.has(name); pass++) name = objectName(table, part, `idx${pass}`);
  return name;
}

/**
 * The name PostgreSQL gives a FOREIGN KEY written without one: `<table>_<columns>_fkey`, numbered
 * (`fkey1`, …) when a constraint of that name exists.
 */
export function chooseForeignKeyName(table: string, columns: readonly string[], taken: ReadonlySet<string>): string {
  const part = columnPart(columns);
  let name = objectName(table, part, 'fkey');
  for (let pass = 1; taken.has(name); pass++) name = objectName(table, part, `fkey${pass}`);
  return name;
}
