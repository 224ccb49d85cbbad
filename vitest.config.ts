import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Files that each run in a process of their own: one tests process-wide first use (a lazily
 * instantiated decoder); the others measure the heap or the CPU time of a call, which the collector
 * counts in, and a heap that earlier files left large makes its pauses longer (a 4096-row insert
 * measured 260 ms of CPU in a shared worker, a few ms in its own). Every other file shares its worker
 * process with the files before it, its modules loaded once: starting a process and loading the engine
 * per file took about as long as the tests of a typical file, and with them the whole suite ran close
 * to 30 minutes on two cores.
 */
const OWN_PROCESS = [
  'test/sources/parquet-snappy-wasm.test.ts',
  'test/memory/*.test.ts',
  'test/pgwire/connections.test.ts',
  'test/sql/parse-cache.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time even on a 2-core machine: most files wait on child processes, sockets or
    // PGlite start-up, so a second worker nearly halves the suite's wall time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Builds dist/ when src/ is newer (children the tests start run the compiled engine) and makes
    // PGlite's data directory.
    globalSetup: ['test/global-setup.ts'],
    projects: [
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: OWN_PROCESS, isolate: false } },
      { extends: true, test: { name: 'own-process', include: OWN_PROCESS, isolate: true } },
    ],
  },
});
