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
  {
    // Route files stay thin: a write and its transaction belong to the domain's service functions,
    // which the handler calls (docs/architecture.md "A request's path").
    files: ['src/**/routes.ts', 'src/**/*-routes.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='transaction']",
          message: "No transactions in route handlers: move the write into the domain's service function.",
        },
        {
          selector: "Identifier[name='trx']",
          message: "No transactions in route handlers: move the write into the domain's service function.",
        },
        {
          selector: "TSTypeReference[typeName.name='Transaction']",
          message: "No transactions in route handlers: move the write into the domain's service function.",
        },
      ],
    },
  },
);
