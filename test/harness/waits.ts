/** Helpers for tests of statements that wait on other sessions (row locks, unique keys). */

export const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Whether `p` is still pending after a few turns of the event loop; `p` keeps its outcome. */
export async function pending(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  p.then(
    () => (settled = true),
    () => (settled = true),
  );
  await pause(60);
  return !settled;
}
