import tseslint from 'typescript-eslint';

const SERVICES = ['gateway', 'matching', 'batch', 'webhook-dispatcher', 'analytics', 'embedded'];

/** A package never imports a service; a service imports packages, never another service. */
const noServiceImports = (allowed = []) => ({
  'no-restricted-imports': [
    'error',
    {
      paths: SERVICES.filter((name) => !allowed.includes(name)).map((name) => ({
        name: `@vop/${name}`,
        message:
          'Only services/embedded composes services; move what two services need into a package.',
      })),
      patterns: [
        {
          group: ['**/services/**', '../../services/*'],
          message: 'Import a package by its name, never a service by its path.',
        },
      ],
    },
  ],
});

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.infra/**', '.vop-data/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  { files: ['packages/**/*.ts'], rules: noServiceImports() },
  ...SERVICES.filter((name) => name !== 'embedded').map((name) => ({
    files: [`services/${name}/**/*.ts`],
    rules: noServiceImports([name]),
  })),
  {
    // Test assertions read loosely typed JSON bodies.
    files: ['**/*.test.ts', 'test/**/*.ts', 'packages/testing/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
