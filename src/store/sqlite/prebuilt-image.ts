/**
 * A new data directory's database as the build made it: migrated and seeded with the project's
 * seed file (fixtures/seed.json), whose SHA-256 it names. Nothing here in the sources, where
 * every new database is migrated and seeded when opened; scripts/bundles.mjs replaces this module
 * in the bundle by one naming the file it wrote beside the bundles (dist/store-image.sqlite), so
 * a start on a new data directory copies 0.5 MB instead of running the migrations and writing the
 * seed (see new-database.ts).
 */
export interface PrebuiltImage {
  /** The database file. */
  file: URL;
  /** The SHA-256 of the seed file's text the database was seeded from. */
  seedSha256: string;
}

export const prebuiltImage: PrebuiltImage | undefined = undefined;
