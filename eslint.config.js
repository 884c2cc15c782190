import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import prettier from 'eslint-config-prettier';

/**
 * The layers of src/ (docs/architecture.md): http and dashboard → features → db, lib, perf.
 * A feature is used through its index.ts only; its repository and other modules are its own.
 */
const FEATURE_INTERNALS = {
  regex: String.raw`(^|/)features/[^/]+/(?!index\.js$)[^/]+$`,
  message: "Use a feature through its index.ts ('…/features/<name>/index.js'), never its internals.",
};
const SIBLING_FEATURE_INTERNALS = {
  regex: String.raw`^\.\./(?!\.)[^/]+/(?!index\.js$)[^/]+$`,
  message: "Use another feature through its index.ts ('../<name>/index.js'), never its internals.",
};
const HTTP_FROM_SERVICES = {
  regex: String.raw`^(\.\./)+(http|dashboard)/`,
  message: 'Only route files (*.routes.ts) of a feature may use src/http/; services do not know HTTP exists.',
};
const UPWARD_FROM_FOUNDATION = {
  regex: String.raw`^(\.\./)+(features|http|dashboard|jobs|cli)/|^\.\./(app|server|worker|services)\.js$`,
  message: 'db/, lib/, perf/, errors.ts and context.ts sit below the features and the front doors: they import neither.',
};
const restricted = (...patterns) => ['error', { patterns }];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    rules: {
      'no-restricted-imports': restricted(FEATURE_INTERNALS),
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='transaction'][arguments.length=0]",
          message: 'Open transactions with transaction() from src/db/transaction.ts, so after-commit work runs.',
        },
      ],
    },
  },
  {
    files: ['src/features/**/*.ts'],
    rules: { 'no-restricted-imports': restricted(SIBLING_FEATURE_INTERNALS, HTTP_FROM_SERVICES) },
  },
  {
    files: ['src/features/**/*.routes.ts'],
    rules: { 'no-restricted-imports': restricted(SIBLING_FEATURE_INTERNALS) },
  },
  {
    files: ['src/db/**/*.ts', 'src/lib/**/*.ts', 'src/perf/**/*.ts', 'src/errors.ts', 'src/context.ts'],
    rules: { 'no-restricted-imports': restricted(UPWARD_FROM_FOUNDATION) },
  },
  {
    files: ['src/db/**/*.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  prettier,
);
