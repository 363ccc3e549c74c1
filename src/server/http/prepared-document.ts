import type { Spec } from 'express-openapi-validator/dist/framework/openapi.spec.loader.js';
import { basePath, documentWording, loadDocument, loadValidationDocument, type DocumentWording } from './openapi-document';
import { prebuiltDocument, type PreparedDocument } from './prebuilt-document';

export type { PreparedDocument };

/** Runs the validator's own loader (reference bundling, routes) on the validation document. */
export async function prepareDocument(): Promise<PreparedDocument> {
  // Loaded here only: the bundle's start never runs the loader.
  const { OpenApiSpecLoader } = await import('express-openapi-validator/dist/framework/openapi.spec.loader.js');
  const spec = await new OpenApiSpecLoader({
    // The document's server is the templated `{base_url}`; this server always lives at /client/v4.
    apiDoc: { ...loadValidationDocument(), servers: [{ url: basePath }] } as never,
    validateApiSpec: false,
    $refParser: { mode: 'bundle' },
  }).load();
  const wording = documentWording(loadDocument());
  const validatorDocument = JSON.stringify(spec.apiDoc);
  // The request validator hands Ajv the components only (see patches/README.md).
  if (validatorDocument.includes('"$ref":"#/paths/')) {
    throw new Error('The validation document refers into #/paths; the request validator resolves references in #/components only.');
  }
  return {
    validatorDocument,
    basePaths: spec.basePaths,
    routes: spec.routes,
    wording: { patterns: [...wording.patterns], tags: [...wording.tags].map(([key, values]) => [key, [...values]]) },
  };
}

/** Apart from the validator's loader's own serials: the response validator matches a request to its app by it. */
let serial = 1_000_000;

/** The validator's input for one app: a fresh copy of the loaded document, ready at once in the bundle. */
export function validatorSpec(): Promise<Spec> {
  const prepared = prebuiltDocument ? Promise.resolve(prebuiltDocument) : prepareDocument();
  return prepared.then((document) => ({
    apiDoc: JSON.parse(document.validatorDocument) as Spec['apiDoc'],
    basePaths: [...document.basePaths],
    routes: document.routes.map((route) => ({ ...route, pathParams: [...route.pathParams] })),
    serial: (serial += 1),
  }));
}

/** The validation document for the server's own reading (routes of faults, the memo); not the validator's copy. */
export function readableValidationDocument(): Record<string, unknown> {
  return prebuiltDocument ? (JSON.parse(prebuiltDocument.validatorDocument) as Record<string, unknown>) : loadValidationDocument();
}

/** The wording of the validator's complaints, from the document as written. */
export function preparedWording(): DocumentWording {
  if (!prebuiltDocument) return documentWording(loadDocument());
  const { patterns, tags } = prebuiltDocument.wording;
  return { patterns: new Map(patterns), tags: new Map(tags) };
}
