/** The database holds bucket tables written by a newer version: opening it could corrupt them. */
export class BucketSchemaTooNewError extends Error {
  override readonly name = 'BucketSchemaTooNewError';

  constructor(
    readonly location: string,
    readonly unknownMigrations: readonly string[],
  ) {
    super(
      `database ${location} has bucket schema migrations this version does not know ` +
        `(${unknownMigrations.join(', ')}); it was written by a newer version. ` +
        'Upgrade the toolkit or point it at another database.',
    );
  }
}
