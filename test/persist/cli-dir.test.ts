/** `quire DBPATH`: the CLI opens (or creates) a database directory; --progress draws on stderr. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { installProgressBar, renderProgress } from '../../src/cli/progress-bar.js';
import { reportProgress, setProgressListener } from '../../src/storage/progress.js';
import { QUIRE_CLI } from '../harness/compiled.js';

const tmp = mkdtempSync(join(tmpdir(), 'quire-cli-dir-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function quire(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [QUIRE_CLI, ...args], { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('quire DBPATH', () => {
  it('creates the directory, and tables created there are there after a restart', async () => {
    const w = await quire(['mydb', '-c', 'CREATE TABLE t AS SELECT i FROM generate_series(1, 5) i']);
    expect(w.stderr).toBe('');
    expect(w.code).toBe(0);
    const r = await quire(['-A', '-t', 'mydb/', '--progress', '-c', 'SELECT sum(i) FROM t']);
    expect(r.stdout).toBe('15\n');
    // A quick statement draws no progress bar.
    expect(r.stderr).toBe('');
  });
});

describe('progress bar', () => {
  it('renders a bar with a known total and a counter without one', () => {
    expect(renderProgress({ label: 'read_parquet', total: 200, unit: 'rows', done: 50 }, 1500)).toBe(`[${'#'.repeat(8)}${'-'.repeat(22)}]  25% 50/200 rows read_parquet 1.5s`);
    expect(renderProgress({ label: 'pg.t', total: 0, unit: 'rows', done: 1_500_000 }, 2000)).toBe('1.5M rows pg.t 2.0s');
  });

  it('starts drawing after a second and erases itself when the load ends', () => {
    vi.useFakeTimers();
    try {
      let out = '';
      installProgressBar({ isTTY: true, write: (s: string) => ((out += s), true) } as unknown as NodeJS.WriteStream);
      const h = reportProgress('read_parquet', 100, 'rows');
      h.advance(10);
      expect(out).toBe('');
      vi.advanceTimersByTime(1500);
      h.advance(40);
      expect(out).toMatch(/\[#{15}-{15}\]  50% 50\/100 rows read_parquet 1\.5s$/);
      h.done();
      expect(out.endsWith('\r\x1b[K')).toBe(true);
    } finally {
      setProgressListener(null);
      vi.useRealTimers();
    }
  });

  it('writes plain lines, no terminal controls, when stderr is a file or a pipe', () => {
    vi.useFakeTimers();
    try {
      let out = '';
      installProgressBar({ isTTY: false, write: (s: string) => ((out += s), true) } as unknown as NodeJS.WriteStream);
      const h = reportProgress('read_csv', 100, 'rows');
      vi.advanceTimersByTime(1500);
      h.advance(30);
      vi.advanceTimersByTime(6000);
      h.advance(30);
      h.done();
      expect(out).not.toContain('\x1b');
      expect(out).not.toContain('\r');
      expect(out.trim().split('\n')).toEqual([expect.stringMatching(/30\/100 rows read_csv 1\.5s$/), expect.stringMatching(/60\/100 rows read_csv 7\.5s$/), expect.stringMatching(/ done$/)]);
    } finally {
      setProgressListener(null);
      vi.useRealTimers();
    }
  });
});
