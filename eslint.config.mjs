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
  // The browser UIs' modules (the admin web UI, the vendor portal and the kit they share) run in the browser.
  {
    files: ['src/admin/ui/**/*.js', 'src/portal/ui/**/*.js', 'src/ui-kit/**/*.js'],
    languageOptions: { sourceType: 'module', globals: globals.browser },
  },
  // Plain ES modules run by node as child processes of tests (test/support/oidc-provider/).
  {
    files: ['test/**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: globals.node },
  },
);
