import type { RouteMetadata } from 'express-openapi-validator/dist/framework/openapi.spec.loader.js';

/**
 * What the server derives from the document before it can answer: the validation document as
 * the validator loads it (its references bundled, its routes listed) and the wording of the
 * validator's complaints. The bundle of `npm start` carries it computed at build time
 * (scripts/bundles.mjs writes it into this module), so a start parses one JSON text where
 * it took the bundling, deep copies and walks of a 500 KB document; from the sources,
 * prepared-document.ts computes it at start-up, with the same function.
 */
export interface PreparedDocument {
  /** The validation document after the validator's loader, as JSON: parsed afresh for each app, since the validator changes what it is given. */
  validatorDocument: string;
  basePaths: string[];
  routes: RouteMetadata[];
  wording: { patterns: [string, string][]; tags: [string, string[]][] };
}

/**
 * The prepared document computed at build time. Nothing here in the sources (the server then
 * prepares it at start-up); scripts/bundles.mjs replaces this module in the bundle by one
 * holding it.
 */
export const prebuiltDocument: PreparedDocument | undefined = undefined;
