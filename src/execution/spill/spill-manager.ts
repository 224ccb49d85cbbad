/**
 * Owner of one operator execution's spill files. Files live in a private directory
 * (`<temp_directory>/quire-<pid>-XXXXXX`) created on the first spill; `close()` deletes it with
 * everything in it and must run in the operator's `finally`, so success, errors and cancellation
 * (the consumer's generator `return()`, or 57014 from checkCancel) all clean up. Directories that are
 * still open when the process exits are removed synchronously by an exit hook, as a last resort.
 *
 * Metrics (EXPLAIN ANALYZE): bytes written, runs, files, peak bytes on disk.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { mkdtemp, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { QuireError } from '../../common/errors.js';
import type { DataType } from '../../common/types.js';
import type { QueryMemory } from '../memory-pool.js';
import { RunWriter, type SpillRun } from './run-file.js';

const liveDirs = new Set<string>();
let exitHook = false;

function installExitHook(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const d of liveDirs) {
      try {
        rmSync(d, { recursive: true, force: true });
      } catch {
        // Nothing more can be done while exiting.
      }
    }
  });
}

/** Spill directories not yet removed (tests assert this is empty after a statement). */
export function liveSpillDirectories(): readonly string[] {
  return [...liveDirs];
}

export interface SpillMetrics {
  bytesWritten: number;
  runs: number;
  files: number;
  peakDiskBytes: number;
}

export class SpillManager {
  private dir: string | null = null;
  private creating: Promise<string> | null = null;
  private seq = 0;
  private onDisk = 0;
  private readonly files = new Map<string, number>();
  private readonly writers = new Set<RunWriter>();
  readonly metrics: SpillMetrics = { bytesWritten: 0, runs: 0, files: 0, peakDiskBytes: 0 };

  constructor(
    readonly memory: QueryMemory,
    /** Used in file names, so a leftover file tells which operator wrote it. */
    readonly label: string,
  ) {}

  private async directory(): Promise<string> {
    if (this.dir !== null) return this.dir;
    this.creating ??= (async () => {
      try {
        mkdirSync(this.memory.tempDirectory, { recursive: true });
        const d = await mkdtemp(join(this.memory.tempDirectory, `quire-${process.pid}-`));
        installExitHook();
        liveDirs.add(d);
        this.dir = d;
        return d;
      } catch (e) {
        throw new QuireError('58P01', `could not create temporary directory in "${this.memory.tempDirectory}": ${e instanceof Error ? e.message : String(e)}`);
      }
    })();
    return this.creating;
  }

  /** A writer for a new run file; finish() it, then pass the run to delete() when it has been read. */
  async createRun(types: readonly DataType[]): Promise<RunWriter> {
    const dir = await this.directory();
    const path = join(dir, `${this.label}-${this.seq++}.run`);
    this.files.set(path, 0);
    this.metrics.files++;
    const w = new RunWriter(path, types, this.memory.temp, this.memory.compression, (bytes) => {
      this.metrics.bytesWritten += bytes;
      this.files.set(path, (this.files.get(path) ?? 0) + bytes);
      this.onDisk += bytes;
      if (this.onDisk > this.metrics.peakDiskBytes) this.metrics.peakDiskBytes = this.onDisk;
    });
    this.writers.add(w);
    return w;
  }

  /** Finishes a writer and counts the run. */
  async finishRun(w: RunWriter): Promise<SpillRun> {
    const run = await w.finish();
    this.writers.delete(w);
    this.metrics.runs++;
    return run;
  }

  /** Deletes a run's file as soon as it has been merged, returning its bytes to the temp budget. */
  async delete(run: SpillRun): Promise<void> {
    const bytes = this.files.get(run.path);
    if (bytes === undefined) return;
    this.files.delete(run.path);
    this.onDisk -= bytes;
    this.memory.temp.release(bytes);
    await unlink(run.path).catch(() => undefined);
  }

  /** Removes every file and the directory. Idempotent; never throws (it runs in finally blocks). */
  async close(): Promise<void> {
    for (const w of this.writers) await w.abandon();
    this.writers.clear();
    for (const bytes of this.files.values()) this.memory.temp.release(bytes);
    this.files.clear();
    this.onDisk = 0;
    if (this.creating !== null && this.dir === null) await this.creating.catch(() => undefined);
    const d = this.dir;
    this.dir = null;
    this.creating = null;
    if (d === null) return;
    await rm(d, { recursive: true, force: true }).catch(() => undefined);
    liveDirs.delete(d);
  }
}
