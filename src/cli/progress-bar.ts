/**
 * `quire --progress`: one line on stderr for loads that run longer than a second (file readers,
 * connector scans), redrawn at most ten times a second and erased when the load ends. Loads shorter
 * than a second print nothing, so scripted runs with --progress stay clean for quick statements.
 * When stderr is not a terminal (redirected to a file or a pipe) there is nothing to redraw: a plain
 * line is written every few seconds instead, and a last one when the load ends.
 */
import { setProgressListener, type ProgressTask } from '../storage/progress.js';

const DELAY_MS = 1000;
const REDRAW_MS = 100;
const PLAIN_EVERY_MS = 5000;
const WIDTH = 30;

function human(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

export function renderProgress(t: ProgressTask, elapsedMs: number): string {
  const secs = `${(elapsedMs / 1000).toFixed(1)}s`;
  if (t.total > 0) {
    const f = Math.min(1, t.done / t.total);
    const full = Math.round(f * WIDTH);
    return `[${'#'.repeat(full)}${'-'.repeat(WIDTH - full)}] ${(f * 100).toFixed(0).padStart(3)}% ${human(t.done)}/${human(t.total)} ${t.unit} ${t.label} ${secs}`;
  }
  return `${human(t.done)} ${t.unit} ${t.label} ${secs}`;
}

export function installProgressBar(out: NodeJS.WriteStream | NodeJS.WritableStream & { isTTY?: boolean }): void {
  const tty = out.isTTY === true;
  let started = 0;
  let lastDraw = 0;
  let shown = false;
  let last: ProgressTask | null = null;
  setProgressListener((tasks) => {
    const now = Date.now();
    if (tasks.length === 0) {
      if (shown) out.write(tty ? '\r\x1b[K' : `${renderProgress(last!, now - started)} done\n`);
      shown = false;
      started = 0;
      last = null;
      return;
    }
    if (started === 0) started = now;
    last = tasks[tasks.length - 1]!;
    if (now - started < DELAY_MS || now - lastDraw < (tty ? REDRAW_MS : PLAIN_EVERY_MS)) return;
    lastDraw = now;
    shown = true;
    out.write(tty ? '\r\x1b[K' + renderProgress(last, now - started) : renderProgress(last, now - started) + '\n');
  });
}
