/** Reads a variable the test setup must provide, failing with directions instead of a confusing connection error. */
export function requireEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value.trim() === '') {
    throw new Error(
      `${name} is not set. Run the tests with \`pnpm test\`, which starts the local servers and sets it; ` +
        'or start them yourself with the scripts in infra/local/ (for PostgreSQL: `bash infra/local/postgres.sh start`, ' +
        'then `export VOP_TEST_DATABASE_URL=$(bash infra/local/postgres.sh url)`).',
    );
  }
  return value;
}
