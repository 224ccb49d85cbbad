import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ when src/ is newer: children the tests start run the compiled engine.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time even on a 2-core machine: most files wait on child processes, sockets or
    // PGlite start-up, so a second worker nearly halves the suite's wall time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
