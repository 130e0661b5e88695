#!/usr/bin/env node
// pnpm links a bin when it installs, before the first build: this file is there then, dist/ is not.
try {
  await import('../dist/main.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('/dist/main.js'))
    throw error;
  process.stderr.write('vop-batch is not built yet: run `pnpm build` (or `pnpm start`) first\n');
  process.exit(2);
}
