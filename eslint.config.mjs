// Lint for every workspace (typescript-eslint's type-checked rules that catch real server bugs). `npm run lint`;
// the README's test command runs it before the tests.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '.tools/**',
      'test-output/**',
      'coverage/**',
      'console/src/api/schema.d.ts',
      '**/*.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A promise nobody awaits or handles on a server path loses its error (an unhandled rejection ends the
      // process) or its ordering; mark deliberate fire-and-forget with `void`.
      '@typescript-eslint/no-floating-promises': 'error',
      // An async function where a plain callback is expected (express handlers, event listeners) drops its rejection.
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksVoidReturn: { arguments: false, attributes: false } },
      ],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/require-await': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unnecessary-condition': ['error', { allowConstantLoopConditions: true }],
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      // The compiler reports unused names (noUnusedLocals/Parameters); `_`-prefixed parameters are deliberate.
      '@typescript-eslint/no-unused-vars': 'off',
      // Casting through unknown at the edges (a stored document, a provider internal) is deliberate and commented.
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // The admin console (React): the rules of hooks.
    files: ['console/src/**/*.tsx', 'console/src/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
);
