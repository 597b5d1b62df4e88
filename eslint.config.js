import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message:
            'Business time is ctx.now(); real elapsed time is wallClockMs() or stopwatch() (src/infra/wall-clock.ts).',
        },
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message:
            'Business time is ctx.now(); real elapsed time is wallClockMs() or stopwatch() (src/infra/wall-clock.ts).',
        },
      ],
    },
  },
);
