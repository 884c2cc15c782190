import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import prettier from 'eslint-config-prettier';

/**
 * The layers of src/ (docs/architecture.md), each importing only from the layers below it:
 *   front doors: api/, public/, dashboard/ (HTTP), cli/ and jobs/; none imports another
 *   http/: the kit the HTTP doors share, including the request schemas (http/schemas/)
 *   features/: the domain, which does not know HTTP exists
 *   db/, lib/, perf/, errors.ts, context.ts
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
const FRAMEWORK_IN_FEATURES = {
  regex: String.raw`^(fastify|@fastify/[^/]+)(/|$)`,
  message: 'Features do not know HTTP exists: no fastify or @fastify/* here; a front door hands them plain values.',
};
const UPWARD_FROM_FEATURES = {
  regex: String.raw`^\.\./\.\./(\.\./)*(http|api|public|dashboard|cli|jobs)/|^\.\./\.\./(app|server|worker|services|main)\.js$`,
  message: 'Features sit below src/http/ and the front doors: they import neither.',
};
const UPWARD_FROM_HTTP = {
  regex: String.raw`^(\.\./)+(api|public|dashboard|cli|jobs)/|^\.\./(app|server|worker|services|main)\.js$`,
  message: 'src/http/ is the kit the front doors share: it imports no front door.',
};
/** The front doors. None imports another: what two of them share belongs in src/http/. */
const FRONT_DOORS = ['api', 'public', 'dashboard', 'cli', 'jobs'];
const OTHER_DOORS = (door) => ({
  regex: String.raw`^(\.\./)+(${FRONT_DOORS.filter((other) => other !== door).join('|')})/`,
  message: 'A front door does not import another: what two doors share belongs in src/http/.',
});
const UPWARD_FROM_FOUNDATION = {
  regex: String.raw`^(\.\./)+(features|http|api|public|dashboard|jobs|cli)/|^\.\./(app|server|worker|services)\.js$`,
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
    rules: { 'no-restricted-imports': restricted(SIBLING_FEATURE_INTERNALS, FRAMEWORK_IN_FEATURES, UPWARD_FROM_FEATURES) },
  },
  {
    files: ['src/http/**/*.ts'],
    rules: { 'no-restricted-imports': restricted(FEATURE_INTERNALS, UPWARD_FROM_HTTP) },
  },
  ...FRONT_DOORS.map((door) => ({
    files: [`src/${door}/**/*.ts`, `src/${door}/**/*.tsx`],
    rules: { 'no-restricted-imports': restricted(FEATURE_INTERNALS, OTHER_DOORS(door)) },
  })),
  {
    files: ['src/db/**/*.ts', 'src/lib/**/*.ts', 'src/perf/**/*.ts', 'src/errors.ts', 'src/context.ts'],
    rules: { 'no-restricted-imports': restricted(UPWARD_FROM_FOUNDATION) },
  },
  {
    files: ['src/db/**/*.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    // Client code: the browser scripts the dashboard and the public page serve as they are (no
    // bundler), so plain scripts in the browser's globals, with uPlot and htmx loaded before them.
    files: ['src/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { ...globals.browser, uPlot: 'readonly', htmx: 'readonly' },
    },
  },
  prettier,
);
