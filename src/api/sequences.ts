/**
 * A session's sequence functions: name resolution (the session's TEMP sequences first, then the shared
 * ones, then serial/identity columns' own sequences), and currval/lastval, which are per session.
 */
import { QuireError } from '../common/errors.js';
import type { SequenceAccess } from '../functions/eval-context.js';
import { isTempTableKey, tempTableKey, type Catalog } from '../storage/catalog.js';
import { catalogSequences, type Sequence } from '../storage/sequence.js';

/**
 * A relation name as regclass input reads it: unquoted parts fold to lower case, "quoted" ones keep
 * their case, and a schema (public, pg_temp) may precede the name.
 */
export function sequenceNameOf(text: string): string {
  const parts: string[] = [];
  const re = /\s*(?:"((?:[^"]|"")*)"|([^."\s]+))\s*(\.|$)/y;
  let m: RegExpExecArray | null;
  let at = 0;
  while (at < text.length && (m = re.exec(text)) !== null) {
    parts.push(m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]!.toLowerCase());
    at = re.lastIndex;
    if (m[3] === '') break;
  }
  if (at < text.length || parts.length === 0 || parts.length > 3) throw new QuireError('42602', `invalid name syntax`);
  return parts[parts.length - 1]!;
}

export class SessionSequences {
  private readonly current = new Map<Sequence, number>();
  /** The sequence nextval last advanced: lastval() is its currval. */
  private last: Sequence | null = null;

  constructor(
    private readonly sessionId: number,
    private readonly catalog: () => Catalog,
  ) {}

  /** The sequence a name denotes for this session, or undefined. */
  find(name: string): Sequence | undefined {
    const c = this.catalog();
    const own = c.sequences.get(tempTableKey(this.sessionId, name)) ?? c.sequences.get(name);
    if (own !== undefined) return own;
    const mine = tempTableKey(this.sessionId, name);
    for (const { key, seq } of catalogSequences(new Map(), c.tables)) {
      if (key === mine || (key === name && !isTempTableKey(key))) return seq;
    }
    return undefined;
  }

  resolve(text: string): Sequence {
    const name = sequenceNameOf(text);
    const s = this.find(name);
    if (s !== undefined) return s;
    const c = this.catalog();
    if (c.getTable(name) !== undefined || c.views.has(name)) {
      throw new QuireError('42809', `cannot open relation "${name}"`, { detail: `This operation is not supported for ${c.views.has(name) ? 'views' : 'tables'}.` });
    }
    throw new QuireError('42P01', `relation "${name}" does not exist`);
  }

  /** Records a value this session drew (nextval, a serial column's default). */
  drew(seq: Sequence, value: number): number {
    this.current.set(seq, value);
    this.last = seq;
    return value;
  }

  forget(seq: Sequence): void {
    this.current.delete(seq);
    if (this.last === seq) this.last = null;
  }

  /** The functions' view for one statement; names resolve once per statement. */
  access(): SequenceAccess {
    const cache = new Map<string, Sequence>();
    const get = (text: string): Sequence => {
      let s = cache.get(text);
      if (s === undefined) {
        s = this.resolve(text);
        cache.set(text, s);
      }
      return s;
    };
    return {
      nextval: (text) => {
        const s = get(text);
        return this.drew(s, s.nextval());
      },
      currval: (text) => {
        const s = get(text);
        const v = this.current.get(s);
        if (v === undefined) throw new QuireError('55000', `currval of sequence "${s.name}" is not yet defined in this session`);
        return v;
      },
      setval: (text, value, isCalled) => {
        const s = get(text);
        s.setval(value, isCalled);
        // With is_called the value becomes this session's currval (not its lastval), as in PostgreSQL.
        if (isCalled) this.current.set(s, Number(value));
      },
      lastval: () => {
        const v = this.last === null ? undefined : this.current.get(this.last);
        if (v === undefined) throw new QuireError('55000', 'lastval is not yet defined in this session');
        return v;
      },
    };
  }
}
