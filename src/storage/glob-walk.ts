/**
 * File globs (`*`, `?`, `[...]`, `{a,b}` within a path segment, `**` for any depth) for the read_*
 * table functions. Node 20 has no fs.glob, hence this small matcher.
 *
 * Table functions bind synchronously, but a walk such as '/**\/x' can read the whole filesystem. So
 * the statement paths walk globs asynchronously before binding (prewalkGlobs: one directory read
 * per await, cancellable, bounded) and leave the listing where binding finds it; a glob that reaches
 * binding without that (a pattern computed at bind time) gets a synchronous walk with a much smaller
 * bound, so it can never hold the event loop for long.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Node } from '@pgsql/types';
import { QuireError } from '../common/errors.js';

export const GLOB_MAGIC = /[*?[{]/;

/** Directories an asynchronous walk may read. */
export const MAX_WALK_DIRS = 100_000;
/** Directories a synchronous walk (at bind time) may read. */
export const MAX_SYNC_WALK_DIRS = 1_000;
/** Files a glob may match. */
export const MAX_GLOB_FILES = 100_000;

function globToRegExp(seg: string): RegExp {
  let re = '';
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const j = seg.indexOf(']', i + 2);
      if (j === -1) re += '\\[';
      else {
        let body = seg.slice(i + 1, j);
        if (body.startsWith('!')) body = '^' + body.slice(1);
        re += '[' + body.replace(/\\/g, '\\\\') + ']';
        i = j;
      }
    } else if (c === '{') {
      const j = seg.indexOf('}', i);
      if (j === -1) re += '\\{';
      else {
        re += '(?:' + seg.slice(i + 1, j).split(',').map((p) => p.replace(/[.+^$()|\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')).join('|') + ')';
        i = j;
      }
    } else re += c.replace(/[.+^$()|\\\]]/g, '\\$&');
  }
  return new RegExp('^' + re + '$');
}

/** What the walk needs from the filesystem; the drivers answer it synchronously or asynchronously. */
type Request = { readdir: string } | { exists: string };
type Answer = fs.Dirent[] | boolean | null;

/** The walk itself, written once: it yields filesystem requests and returns the matches. */
function* walker(pattern: string, maxDirs: number): Generator<Request, string[], Answer> {
  const abs = path.isAbsolute(pattern);
  const segs = pattern.split(/[/\\]+/).filter((s, i) => s !== '' || i === 0);
  let base = abs ? (segs[0] === '' ? '/' : segs[0]! + '/') : '.';
  let k = abs ? 1 : 0;
  const prefix: string[] = [];
  while (k < segs.length && !GLOB_MAGIC.test(segs[k]!)) prefix.push(segs[k++]!);
  if (prefix.length > 0) base = path.join(base, ...prefix);
  const out: string[] = [];
  let dirs = 0;
  // An explicit stack instead of recursion: '**' over a deep tree must not exhaust the call stack.
  const stack: [string, number][] = [[base, k]];
  while (stack.length > 0) {
    const [dir, i] = stack.pop()!;
    if (i === segs.length) {
      out.push(dir);
      if (out.length > MAX_GLOB_FILES) throw new QuireError('54000', `file glob "${pattern}" matches more than ${MAX_GLOB_FILES} files`);
      continue;
    }
    const seg = segs[i]!;
    if (!GLOB_MAGIC.test(seg)) {
      const p = path.join(dir, seg);
      if ((yield { exists: p }) === true) stack.push([p, i + 1]);
      continue;
    }
    if (++dirs > maxDirs) {
      throw new QuireError('54000', `file glob "${pattern}" walks more than ${maxDirs} directories`, {
        hint: 'Name a narrower directory before the first wildcard.',
      });
    }
    const entries = (yield { readdir: dir }) as fs.Dirent[] | null;
    if (entries === null) continue;
    if (seg === '**') {
      for (const e of entries) if (e.isDirectory() && !e.name.startsWith('.')) stack.push([path.join(dir, e.name), i]);
      stack.push([dir, i + 1]);
      continue;
    }
    const re = globToRegExp(seg);
    const last = i === segs.length - 1;
    for (const e of entries) {
      if (!re.test(e.name) || (e.name.startsWith('.') && !seg.startsWith('.'))) continue;
      if (last ? !e.isDirectory() : e.isDirectory() || e.isSymbolicLink()) stack.push([path.join(dir, e.name), i + 1]);
    }
  }
  return out;
}

function finish(pattern: string, out: string[]): string[] {
  const uniq = [...new Set(out)].sort();
  if (uniq.length === 0) throw new QuireError('58P01', `could not open file "${pattern}" for reading: No such file or directory`);
  return path.isAbsolute(pattern) ? uniq : uniq.map((p) => (p.startsWith('./') ? p.slice(2) : p));
}

/** Listings walked ahead of binding, by pattern; short-lived, as a listing is only true for a moment. */
const walked = new Map<string, { files: string[]; at: number }>();
const WALKED_TTL_MS = 5_000;
const WALKED_LIMIT = 64;

/**
 * Files matching a glob, sorted; a pattern without wildcards is returned as is (opening it reports a
 * missing file). Synchronous, for binding: uses the listing prewalkGlobs left, else a small walk.
 */
export function expandGlobSync(pattern: string): string[] {
  if (!GLOB_MAGIC.test(pattern)) return [pattern];
  const hit = walked.get(pattern);
  if (hit !== undefined && performance.now() - hit.at < WALKED_TTL_MS) return finish(pattern, hit.files);
  const w = walker(pattern, MAX_SYNC_WALK_DIRS);
  let r = w.next(null);
  while (!r.done) {
    const q = r.value;
    let a: Answer;
    if ('readdir' in q) {
      try {
        a = fs.readdirSync(q.readdir, { withFileTypes: true });
      } catch {
        a = null;
      }
    } else a = fs.existsSync(q.exists);
    r = w.next(a);
  }
  return finish(pattern, r.value);
}

/**
 * Walks a glob asynchronously: each directory read is an await, so other clients keep being served,
 * and `check` (cancel, statement timeout) runs between reads.
 */
export async function expandGlob(pattern: string, check: () => void = () => {}): Promise<string[]> {
  if (!GLOB_MAGIC.test(pattern)) return [pattern];
  const w = walker(pattern, MAX_WALK_DIRS);
  let r = w.next(null);
  while (!r.done) {
    check();
    const q = r.value;
    let a: Answer;
    if ('readdir' in q) {
      try {
        a = await fs.promises.readdir(q.readdir, { withFileTypes: true });
      } catch {
        a = null;
      }
    } else {
      a = await fs.promises.access(q.exists).then(
        () => true,
        () => false,
      );
    }
    r = w.next(a);
  }
  check();
  return r.value;
}

/** Table functions whose first argument is a path or glob. */
export const FILE_FUNCTIONS: ReadonlySet<string> = new Set(['read_csv', 'read_csv_rejects', 'read_json', 'read_parquet', 'read_arrow']);

/**
 * Before binding a statement: walks the globs its read_* calls name as string constants, so binding
 * (synchronous) does not have to.
 */
export async function prewalkGlobs(stmt: Node, check: () => void): Promise<void> {
  const patterns = new Set<string>();
  const visit = (x: unknown): void => {
    if (x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) {
      for (const y of x) visit(y);
      return;
    }
    const o = x as Record<string, unknown>;
    const fc = o.FuncCall as { funcname?: { String?: { sval?: string } }[]; args?: unknown[] } | undefined;
    if (fc !== undefined) {
      const name = fc.funcname?.[fc.funcname.length - 1]?.String?.sval?.toLowerCase();
      const first = fc.args?.[0] as { A_Const?: { sval?: { sval?: string } } } | undefined;
      const p = first?.A_Const?.sval?.sval;
      if (name !== undefined && FILE_FUNCTIONS.has(name) && p !== undefined && GLOB_MAGIC.test(p)) patterns.add(p);
    }
    for (const v of Object.values(o)) visit(v);
  };
  visit(stmt);
  for (const p of patterns) {
    const files = await expandGlob(p, check);
    if (walked.size >= WALKED_LIMIT) walked.delete(walked.keys().next().value!);
    walked.set(p, { files, at: performance.now() });
  }
}
