import tseslint from 'typescript-eslint';

const SERVICES = ['gateway', 'matching', 'batch', 'webhook-dispatcher', 'analytics', 'embedded'];

/**
 * Routes are mounted on routers that match as the route-family table does, case-sensitively and
 * strictly (packages/http/src/router.ts, issue 39): Express's own Router is not imported elsewhere.
 */
const EXPRESS_ROUTER = {
  name: 'express',
  importNames: ['Router'],
  allowTypeImports: true,
  message: 'Build routers with createRouter() from @vop/http (case-sensitive and strict).',
};

/** A package never imports a service; a service imports packages, never another service. */
const noServiceImports = (allowed = []) => ({
  '@typescript-eslint/no-restricted-imports': [
    'error',
    {
      paths: [
        ...SERVICES.filter((name) => !allowed.includes(name)).map((name) => ({
          name: `@vop/${name}`,
          message:
            'Only services/embedded composes services; move what two services need into a package.',
        })),
        EXPRESS_ROUTER,
      ],
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
  { ignores: ['**/dist/**', '**/node_modules/**', '.infra/**', '.vop-data/**', '.vop-scheme/**'] },
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
  {
    files: ['**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='express'][property.name='Router']",
          message: EXPRESS_ROUTER.message,
        },
      ],
    },
  },
  { files: ['packages/**/*.ts'], rules: noServiceImports() },
  {
    files: ['bench/**/*.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: [EXPRESS_ROUTER] }],
    },
  },
  ...SERVICES.filter((name) => name !== 'embedded').map((name) => ({
    files: [`services/${name}/**/*.ts`],
    rules: noServiceImports([name]),
  })),
  {
    // The one place Express's Router is built.
    files: ['packages/http/src/router.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': 'off' },
  },
  {
    // Tests build Express's default routers on purpose, to show what the guard refuses.
    files: ['**/*.test.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    // Test assertions read loosely typed JSON bodies.
    files: ['**/*.test.ts', 'test/**/*.ts', 'packages/testing/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
