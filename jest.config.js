// Three tiers (CONVENTIONS.md): unit (*.test.ts beside the code), integration (test/*.int.test.ts, real
// MongoDB-compatible store and NATS), e2e (every service as a process). One global setup provides the store.
const { createJsWithTsPreset } = require('ts-jest');

const base = {
  ...createJsWithTsPreset({ tsconfig: '<rootDir>/tsconfig.json' }),
  testEnvironment: 'node',
  // oidc-provider, jose, openid-client and otplib's @noble/@scure deps are ESM only: let ts-jest transpile them to CommonJS on Node 20.
  transformIgnorePatterns: [
    '/node_modules/(?!(oidc-provider|jose|openid-client|oauth4webapi|otplib|@otplib|@noble/hashes|@scure/base)/)',
  ],
  moduleNameMapper: { '^@idp/(.*)$': '<rootDir>/libs/$1/src' },
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  rootDir: __dirname,
};

module.exports = {
  globalSetup: '<rootDir>/libs/testing/src/jest-global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/jest-global-teardown.ts',
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/{libs,services}/*/src/**/*.test.ts'] },
    {
      ...base,
      displayName: 'integration',
      testMatch: ['<rootDir>/{libs,services}/*/test/**/*.int.test.ts'],
      setupFilesAfterEnv: ['<rootDir>/libs/testing/jest.setup-integration.ts'],
    },
    {
      ...base,
      displayName: 'e2e',
      testMatch: ['<rootDir>/e2e/tests/**/*.e2e.test.ts'],
      setupFilesAfterEnv: ['<rootDir>/e2e/jest.setup.ts'],
    },
  ],
};
