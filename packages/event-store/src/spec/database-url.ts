/** The PostgreSQL server the tests run against; @vop/testing cannot be used here (it depends on this package). */
export function testDatabaseUrl(): string {
  const url = process.env.VOP_TEST_DATABASE_URL;
  if (url === undefined || url === '') {
    throw new Error(
      'VOP_TEST_DATABASE_URL is not set. Run `pnpm test`, or `bash infra/local/postgres.sh start` and ' +
        '`export VOP_TEST_DATABASE_URL=$(bash infra/local/postgres.sh url)`.',
    );
  }
  return url;
}
