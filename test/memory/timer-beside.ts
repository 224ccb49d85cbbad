/** The event loop beside a statement, measured by a 1 ms interval timer (shared by the stall tests). */

export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * Runs `f` beside a 1 ms interval timer: how often it fired, and the most CPU time the process used
 * between two firings. CPU rather than wall time, so that other processes loading the machine do not
 * count as the statement holding the event loop.
 */
export async function beside<X>(f: () => Promise<X>): Promise<{ value: X; ticks: number; gap: number }> {
  let ticks = 0;
  let last = cpuMs();
  let gap = 0;
  const h = setInterval(() => {
    const now = cpuMs();
    gap = Math.max(gap, now - last);
    last = now;
    ticks++;
  }, 1);
  try {
    const value = await f();
    gap = Math.max(gap, cpuMs() - last);
    return { value, ticks, gap };
  } finally {
    clearInterval(h);
  }
}
