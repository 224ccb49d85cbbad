/** SET, RESET and SHOW of session settings. */
import type { Node } from '@pgsql/types';
import { QuireError } from '../common/errors.js';
import { isValidTimeZone, normalizeTimeZoneSetting } from '../common/timezone.js';
import { T } from '../common/types.js';
import { nodeBody, nodeTag, type AnyNode } from '../sql/ast.js';
import type { QueryResult } from './database.js';
import type { UtilityHost } from './utility.js';
import { result } from './statement-support.js';

export function setVariable(host: UtilityHost, b: AnyNode): QueryResult {
  const kind = b.kind as string;
  const name = ((b.name as string | undefined) ?? '').toLowerCase();
  if (kind === 'VAR_RESET_ALL') {
    for (const [k] of host.session.all()) host.session.set(k, null);
    return result('RESET', 'RESET');
  }
  if (kind === 'VAR_RESET' || kind === 'VAR_SET_DEFAULT') {
    host.session.set(name, null);
    return result(kind === 'VAR_RESET' ? 'RESET' : 'SET', kind === 'VAR_RESET' ? 'RESET' : 'SET');
  }
  if (kind === 'VAR_SET_MULTI') {
    // SET TRANSACTION …, SET SESSION CHARACTERISTICS: accepted, single-user engine.
    return result('SET', 'SET');
  }
  const args = ((b.args as Node[] | undefined) ?? []).map((a) => {
    const t = nodeTag(a);
    const ab = nodeBody<AnyNode>(a);
    if (t === 'A_Const') {
      if (ab.sval) return (ab.sval as { sval?: string }).sval ?? '';
      if (ab.ival !== undefined) return String((ab.ival as { ival?: number }).ival ?? 0);
      if (ab.fval) return (ab.fval as { fval?: string }).fval ?? '';
      if (ab.boolval) return (ab.boolval as { boolval?: boolean }).boolval ? 'on' : 'off';
    }
    if (t === 'TypeCast') {
      const inner = nodeBody<AnyNode>(ab.arg as Node);
      return ((inner.sval as { sval?: string } | undefined)?.sval ?? String((inner.ival as { ival?: number } | undefined)?.ival ?? ''));
    }
    throw new QuireError('22023', `invalid value for parameter "${name}"`);
  });
  let value = args.join(', ');
  if (name === 'timezone') {
    const z = normalizeTimeZoneSetting(value);
    if (z === null || !isValidTimeZone(z)) {
      throw new QuireError('22023', `invalid value for parameter "TimeZone": "${value}"`);
    }
    value = z;
  }
  host.session.set(name, value);
  return result('SET', 'SET');
}


export function showVariable(host: UtilityHost, b: AnyNode): QueryResult {
  const name = b.name as string;
  if (name === 'all') {
    return result('SHOW', 'SHOW', {
      columns: [
        { name: 'name', type: T.text },
        { name: 'setting', type: T.text },
      ],
      rows: host.session.all(),
      rowCount: host.session.all().length,
    });
  }
  const v = host.session.show(name === 'timezone' ? 'timezone' : name);
  return result('SHOW', 'SHOW', { columns: [{ name: name === 'timezone' ? 'TimeZone' : name, type: T.text }], rows: [[v]], rowCount: 1 });
}
