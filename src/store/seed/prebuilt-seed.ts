/**
 * What the build found of the project's seed file (fixtures/seed.json): the SHA-256 of the text
 * it checked and, only when the check changed what the file says (an unknown key dropped), the
 * checked seed as JSON. Nothing here in the sources, where every seed file is checked when a
 * store is seeded; scripts/bundles.mjs replaces this module in the bundle by one holding them, so
 * a start on a new data directory skips checking a 300 KB file the build checked already (see
 * checked-seed.ts).
 */
export interface PrebuiltSeed {
  sha256: string;
  seed?: string;
}

export const prebuiltSeed: PrebuiltSeed | undefined = undefined;
