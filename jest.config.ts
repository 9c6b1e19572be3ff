import type { Config } from 'jest';

// ESM throughout: ts-jest's default-esm preset under --experimental-vm-modules.
const config: Config = {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/apps', '<rootDir>/scripts', '<rootDir>/bench'],
  testMatch: ['**/*.test.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  globalSetup: '<rootDir>/packages/core/test/global-setup.mjs',
  globalTeardown: '<rootDir>/packages/core/test/global-teardown.mjs',
  testTimeout: 60_000,
  maxWorkers: 2,
};

export default config;
