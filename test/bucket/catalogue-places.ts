// Where the catalogue suites run: a data directory, and a PostgreSQL database (the file's one
// throwaway server; each place a database copied from one migrated template, which takes a few
// milliseconds). A place is what two catalogues share to see each other's buckets.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { openBucketCatalogue, type BucketCatalogue, type RuntimeOptions } from '../../src/bucket';
import { startPostgres, type PostgresCluster } from '../support/postgres';

export type PlaceKind = 'disk' | 'postgres';
export const PLACE_KINDS: PlaceKind[] = ['disk', 'postgres'];

export interface Place {
  kind: PlaceKind;
  /** The data directory (every place has one; on PostgreSQL nothing is kept there). */
  dataDir: string;
  /** The database, on PostgreSQL. */
  databaseUrl?: string;
}

export interface CataloguePlaces {
  /** A fresh, empty place. */
  fresh(kind: PlaceKind): Promise<Place>;
  /** A catalogue on `place` (a fresh one when absent), closed after the test. */
  open(kind: PlaceKind, place?: Place, options?: { defaults?: RuntimeOptions }): Promise<{ catalogue: BucketCatalogue; place: Place }>;
}

/** Registers the hooks of a suite that opens catalogues on both kinds of place. */
export function useCataloguePlaces(): CataloguePlaces {
  let cluster: PostgresCluster | undefined;
  let template: string | undefined;
  let databases = 0;
  const directories: string[] = [];
  const catalogues: BucketCatalogue[] = [];
  beforeAll(async () => {
    cluster = await startPostgres();
    const url = await cluster.createDatabase('catalogue_template');
    // Migrated once, then closed: a template must have no connection while it is copied.
    await (await openBucketCatalogue({ dataDir: tmpdir(), databaseUrl: url })).close();
    template = new URL(url).pathname.slice(1);
  }, 60_000);
  afterAll(() => cluster?.stop());
  afterEach(async () => {
    await Promise.all(catalogues.splice(0).map((catalogue) => catalogue.close()));
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });
  const fresh = async (kind: PlaceKind): Promise<Place> => {
    const dataDir = mkdtempSync(join(tmpdir(), 'catalogue-test-'));
    directories.push(dataDir);
    if (kind === 'disk') return { kind, dataDir };
    const name = `catalogue_${process.pid}_${++databases}`;
    await cluster!.query(cluster!.url('postgres'), `create database ${name} template ${template}`);
    return { kind, dataDir, databaseUrl: cluster!.url(name) };
  };
  return {
    fresh,
    async open(kind, place, options = {}) {
      const at = place ?? (await fresh(kind));
      const catalogue = await openBucketCatalogue({ dataDir: at.dataDir, databaseUrl: at.databaseUrl, ...options });
      catalogues.push(catalogue);
      return { catalogue, place: at };
    },
  };
}
