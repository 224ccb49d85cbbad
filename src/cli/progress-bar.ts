/**
 * `quire --progress`: one line on stderr for loads that run longer than a second (file readers,
 * connector scans), redrawn at most ten times a second and erased when the load ends. Loads shorter
 * than a second print nothing, so scripted runs with --progress stay clean for quick statements.
 */
import { setProgressListener, type ProgressTask } from '../storage/progress.js';

const DELAY_MS = 1000;
const REDRAW_MS = 100;
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

export function installProgressBar(out: NodeJS.WriteStream): void {
  let started = 0;
  let lastDraw = 0;
  let shown = false;
  setProgressListener((tasks) => {
    const now = Date.now();
    if (tasks.length === 0) {
      if (shown) out.write('\r\x1b[K');
      shown = false;
      started = 0;
      return;
    }
    if (started === 0) started = now;
    if (now - started < DELAY_MS || now - lastDraw < REDRAW_MS) return;
    lastDraw = now;
    shown = true;
    out.write('\r\x1b[K' + renderProgress(tasks[tasks.length - 1]!, now - started));
  });
}
