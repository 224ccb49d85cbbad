/**
 * The peak RSS of this process's own memory, in MB. Not process.resourceUsage().maxRSS: on Linux a
 * child starts with its parent's high-water mark (fork copies the parent's mappings, and exec keeps the
 * mark), so a child of a 400 MB parent reports at least 400 MB whatever it uses itself. VmHWM in
 * /proc/self/status is the peak of the memory exec gave this process; maxRSS where there is no /proc.
 *
 * Plain JavaScript (typed by peak-rss.d.mts): quire-process.mjs runs under Node without a TypeScript loader.
 */
import { readFileSync } from 'node:fs';

/** @returns {number} */
export function peakRssMB() {
  try {
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m !== null) return Math.round(Number(m[1]) / 1024);
  } catch {
    // No /proc: the platform's figure.
  }
  return Math.round(process.resourceUsage().maxRSS / 1024);
}
