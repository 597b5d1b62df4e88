import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const CLOCK_MESSAGE =
  'Business time is ctx.now(); real elapsed time is wallClockMs() or stopwatch() (src/infra/wall-clock.ts).';
const ONE_CLOCK = [
  { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: CLOCK_MESSAGE },
  { selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']", message: CLOCK_MESSAGE },
];
const TRANSACTION_MESSAGE = "No transactions in route handlers: move the write into the domain's service function.";
const NO_TRANSACTIONS = [
  { selector: "CallExpression[callee.property.name='transaction']", message: TRANSACTION_MESSAGE },
  { selector: "Identifier[name='trx']", message: TRANSACTION_MESSAGE },
  { selector: "TSTypeReference[typeName.name='Transaction']", message: TRANSACTION_MESSAGE },
];

export default tseslint.config(
  { ignores: ['node_modules', 'data', 'bench/results', 'coverage', '.tmp', 'sdk/dist', 'sdk/src/schema.d.ts', 'dashboard/dist'] },
  { files: ['bin/**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
  { files: ['sdk/scripts/**/*.mjs'], languageOptions: { globals: { URL: 'readonly' } } },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  // One clock: business time in src/ is the context's (ctx.now(), which tests set). The real clock is
  // read only in src/infra (timeouts, windows, TTLs, id timestamps: no business rules live there), by
  // the service's default clock (src/service.ts), and elsewhere through src/infra/wall-clock.ts, whose
  // names say why (durations, pacing a remote platform).
  {
    files: ['src/**/*.ts'],
    ignores: ['src/infra/**', 'src/service.ts'],
    rules: { 'no-restricted-syntax': ['error', ...ONE_CLOCK] },
  },
  // Route files stay thin: a write and its transaction belong to the domain's service functions, which
  // the handler calls (docs/architecture.md "A request's path"). A later block's no-restricted-syntax
  // replaces an earlier one's, so route files repeat the clock rule.
  {
    files: ['src/**/routes.ts', 'src/**/*-routes.ts'],
    rules: { 'no-restricted-syntax': ['error', ...ONE_CLOCK, ...NO_TRANSACTIONS] },
  },
);
