/**
 * Progress of long loads (file readers, connector scans, COPY), for the CLI's --progress bar.
 * Readers report units done out of an expected total; a listener (the CLI) renders them. With no
 * listener a report costs one function call, so readers report unconditionally.
 */

export interface ProgressTask {
  readonly label: string;
  /** Expected units, or 0 when unknown; lowered when a reader learns it can skip some. */
  total: number;
  readonly unit: string;
  done: number;
}

export interface ProgressHandle {
  advance(n: number): void;
  /** `n` expected units will not be read after all (pruned): they leave the total. */
  skip(n: number): void;
  done(): void;
}

type Listener = (tasks: readonly ProgressTask[]) => void;

const active = new Set<ProgressTask>();
let listener: Listener | null = null;

/** Installs (or, with null, removes) the one progress listener; it is called on every change. */
export function setProgressListener(l: Listener | null): void {
  listener = l;
}

export function activeProgress(): readonly ProgressTask[] {
  return [...active];
}

export function reportProgress(label: string, total: number, unit: string): ProgressHandle {
  const task: ProgressTask = { label, total: Number.isFinite(total) && total > 0 ? total : 0, unit, done: 0 };
  active.add(task);
  listener?.([...active]);
  return {
    advance(n: number): void {
      task.done += n;
      listener?.([...active]);
    },
    skip(n: number): void {
      if (task.total === 0 || n <= 0) return;
      task.total = Math.max(task.done, task.total - n);
      listener?.([...active]);
    },
    done(): void {
      if (active.delete(task)) listener?.([...active]);
    },
  };
}
