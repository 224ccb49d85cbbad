/**
 * Confinement of the files SQL may open (read_csv/read_json/read_parquet/read_arrow, COPY FROM/TO a
 * file) to a set of directories. Servers give every client one (`quire serve --allow-files DIR`);
 * the library and CLI run unconfined unless asked (DatabaseOptions.access).
 *
 * Paths are compared after realpath, so `..`, symlinked files and symlinked directories cannot lead
 * out. A path outside every directory is refused with one message whether or not it exists, so a
 * client cannot probe the file system; only inside an allowed directory does "No such file" appear.
 */
import fs from 'node:fs';
import path from 'node:path';
import { QuireError } from '../common/errors.js';
import type { FileGate } from '../functions/eval-context.js';
import { expandFileGlob } from './csv.js';

const GLOB_MAGIC = /[*?[{]/;

export class FileAccess implements FileGate {
  private readonly roots: readonly string[];

  /** `dirs` must exist (a typo in a server flag should fail at start, not silently grant nothing). */
  constructor(dirs: readonly string[]) {
    this.roots = dirs.map((d) => {
      let real: string;
      try {
        real = fs.realpathSync(path.resolve(d));
      } catch {
        throw new QuireError('58P01', `allowed directory "${d}" does not exist`);
      }
      if (!fs.statSync(real).isDirectory()) throw new QuireError('22023', `allowed directory "${d}" is not a directory`);
      return real;
    });
  }

  /** The directories, resolved (for messages and documentation). */
  get directories(): readonly string[] {
    return this.roots;
  }

  private inside(real: string): boolean {
    return this.roots.some((r) => real === r || real.startsWith(r.endsWith(path.sep) ? r : r + path.sep));
  }

  private denied(given: string, forWrite: boolean): QuireError {
    return new QuireError('42501', `permission denied to ${forWrite ? 'write' : 'read'} file "${given}"`, {
      hint: this.roots.length === 0 ? 'This session may not open files.' : 'Files must be inside the directories this session was allowed (quire serve --allow-files DIR).',
    });
  }

  /** Real paths of the files a path or glob names, every one inside an allowed directory. */
  resolveRead(pattern: string, literal = false): string[] {
    const abs = path.resolve(pattern);
    if (literal || !GLOB_MAGIC.test(abs)) {
      const real = realpathOrNull(abs);
      if (real !== null) {
        if (!this.inside(real)) throw this.denied(pattern, false);
        return [real];
      }
      // Missing: say so only when its directory is an allowed one.
      const parent = realpathOrNull(path.dirname(abs));
      if (parent === null || !this.inside(parent)) throw this.denied(pattern, false);
      throw new QuireError('58P01', `could not open file "${pattern}" for reading: No such file or directory`);
    }
    // The directory before the first wildcard must itself be allowed: the walk never starts above it.
    const segs = abs.split(path.sep);
    const firstGlob = segs.findIndex((s) => GLOB_MAGIC.test(s));
    const base = segs.slice(0, firstGlob).join(path.sep) || path.sep;
    const realBase = realpathOrNull(base);
    if (realBase === null || !this.inside(realBase)) throw this.denied(pattern, false);
    const rest = segs.slice(firstGlob).join(path.sep);
    let matches: string[];
    try {
      matches = expandFileGlob(path.join(realBase, rest));
    } catch (e) {
      if (e instanceof QuireError && e.code === '58P01') throw new QuireError('58P01', `could not open file "${pattern}" for reading: No such file or directory`);
      throw e;
    }
    const out: string[] = [];
    for (const m of matches) {
      const real = realpathOrNull(m);
      // A symlink inside the directory that points out of it is not followed.
      if (real !== null && this.inside(real)) out.push(real);
    }
    if (out.length === 0) throw new QuireError('58P01', `could not open file "${pattern}" for reading: No such file or directory`);
    return [...new Set(out)];
  }

  /** The real path a file write should go to; its directory must be allowed and exist. */
  resolveWrite(file: string): string {
    const abs = path.resolve(file);
    const dir = realpathOrNull(path.dirname(abs));
    if (dir === null || !this.inside(dir)) throw this.denied(file, true);
    const target = path.join(dir, path.basename(abs));
    // An existing symlink would redirect the write: only a target that resolves inside is used.
    const real = realpathOrNull(target);
    if (real !== null && !this.inside(real)) throw this.denied(file, true);
    if (real === null) {
      let dangling = false;
      try {
        dangling = fs.lstatSync(target).isSymbolicLink();
      } catch {
        // Does not exist: a new file.
      }
      if (dangling) throw this.denied(file, true);
    }
    return real ?? target;
  }
}

function realpathOrNull(p: string): string | null {
  try {
    return fs.realpathSync(p);
  } catch {
    return null;
  }
}

/** Files a reader should open for a path or glob: confined when the session has a gate. */
export function filesToRead(pattern: string, gate: FileGate | undefined): string[] {
  return gate === undefined ? expandFileGlob(pattern) : gate.resolveRead(pattern);
}
