import type { Config } from 'jest';

// ESM throughout: ts-jest's default-esm preset under --experimental-vm-modules.
const project = {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/apps', '<rootDir>/scripts', '<rootDir>/bench'],
  testMatch: ['**/*.test.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
} satisfies Config;

// The queue-heavy test files run a second time with the queues on BullMQ's PostgreSQL backend
// (QUEUE_BACKEND=postgres), so that both backends are held to the same behaviour.
const onPostgresQueues = [
  'apps/executor/test/execution.test.ts',
  'apps/executor/test/held-attempts.test.ts',
  'apps/executor/test/park-resume.test.ts',
  'apps/executor/test/concurrency-slots.test.ts',
  'apps/executor/test/fair-share.test.ts',
  'apps/executor/test/host-budgets-executors.test.ts',
  'apps/executor/test/shutdown.test.ts',
  'apps/scheduler/test/recovery.test.ts',
  'apps/notifier/test/callbacks.test.ts',
  'apps/api/test/rate-limit.test.ts',
  'apps/api/test/public-rate-limit.test.ts',
  // The fault suite (docs/RELIABILITY.md), but for the Redis faults (redis-loss), which the
  // PostgreSQL backend cannot have. The stops (signals to `npm start`, minutes of run time) and the
  // fire ledger's outage (real minute boundaries) depend little on the queues: on PostgreSQL they
  // run at full size only (npm run test:faults), to keep `npm test` short.
  'scripts/faults/dead-executor.test.ts',
  'scripts/faults/dead-notifier.test.ts',
  'scripts/faults/stalled-executor.test.ts',
  'scripts/faults/postgres-faults.test.ts',
  ...(process.env.FAULT_SCALE === 'full' ? ['scripts/faults/stops.test.ts', 'scripts/faults/fire-ledger.test.ts'] : []),
];

const config: Config = {
  projects: [
    project,
    {
      ...project,
      displayName: 'queues on postgres',
      testMatch: onPostgresQueues.map((file) => `<rootDir>/${file}`),
      setupFiles: ['<rootDir>/packages/core/test/queues-on-postgres.setup.cjs'],
    },
  ],
  globalSetup: '<rootDir>/packages/core/test/global-setup.mjs',
  globalTeardown: '<rootDir>/packages/core/test/global-teardown.mjs',
  testTimeout: 60_000,
  maxWorkers: 2,
};

export default config;
