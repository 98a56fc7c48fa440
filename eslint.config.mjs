// Lint: typescript-eslint recommended rules over src, test and bench.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'jest.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // The admin web UI's script runs in the browser, as a module.
  {
    files: ['src/admin/ui/**/*.js'],
    languageOptions: { sourceType: 'module', globals: globals.browser },
  },
);
