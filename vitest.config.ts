import { readdirSync, readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

// Test files share their worker's modules (isolate: false): every file starts its own servers on
// its own database, so nothing a module holds carries meaning from one file to the next, and the
// suite does not pay for importing the service anew for each of its files (a third of its time).
//
// The files that measure their own process's memory get a fresh process each, so that nothing
// earlier files left running is measured with them.
const MEMORY_TESTS = ['test/dashboard/files.test.ts', 'test/files/limits.test.ts'];

// The stress and durability tests (a server killed mid-delivery and restarted, a worker process
// beside the server, bursts and floods of deliveries) are the slowest and the least tied to one
// database or Node version: CI runs them once, `npm test` with the rest. Tests of what one
// database alone does stay in the suite, which skips them on the other database.
const SLOW_TESTS = [
  'test/webhooks/durability.test.ts',
  'test/webhooks/burst.test.ts',
  'test/webhooks/minute-cap.test.ts',
  'test/analytics/worker-process.test.ts',
];

// The event-loop stall test measures how long the server's thread goes unanswered: other test
// files running beside it on the same cores would be measured too, so it runs after them, alone.
const STALL_TEST = 'test/analytics/event-loop-stall.test.ts';

// The files that drive a real browser (useBrowser): what a person sees, through the services
// the API tests cover on both databases. CI runs each once, half of them on each database
// (`--shard`), which keeps its run under 15 minutes on two cores; `npm test` runs them all.
const BROWSER_TESTS = readdirSync('test', { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/${file}`)
  .filter((file) => ![STALL_TEST, ...MEMORY_TESTS, ...SLOW_TESTS].includes(file) && readFileSync(file, 'utf8').includes('useBrowser('));

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    isolate: false,
    // Generous: CI runs both legs at once on two cores, on machines up to three times slower than
    // a developer's (a test taking 10 s here took over 30 there). A test that hangs still fails.
    testTimeout: 90_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: [STALL_TEST, ...MEMORY_TESTS, ...SLOW_TESTS, ...BROWSER_TESTS],
          sequence: { groupOrder: 0 },
        },
      },
      // A browser test walks several pages, each a round of Chromium, the server and the database
      // on a CI machine whose two cores run both legs at once: up to a minute and more there.
      {
        extends: true,
        test: { name: 'browser', include: BROWSER_TESTS, testTimeout: 120_000, hookTimeout: 60_000, sequence: { groupOrder: 0 } },
      },
      { extends: true, test: { name: 'slow', include: SLOW_TESTS, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'memory', include: MEMORY_TESTS, isolate: true, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'stall', include: [STALL_TEST], sequence: { groupOrder: 1 } } },
    ],
  },
});
