// The document as the server prepares it before answering: what the bundle carries computed at
// build time (scripts/bundles.mjs runs this same function), and each app's own copy of it.
import { describe, expect, it } from 'vitest';
import { loadDocument, loadValidationDocument } from '../../src/server/http/openapi-document';
import { prepareDocument, preparedWording, readableValidationDocument, validatorSpec } from '../../src/server/http/prepared-document';

describe('the prepared document', () => {
  it('is the validation document with the routes the validator serves under /client/v4', async () => {
    const prepared = await prepareDocument();
    expect(prepared.basePaths).toEqual(['/client/v4/']);
    const document = JSON.parse(prepared.validatorDocument) as { paths: Record<string, unknown>; servers: unknown };
    expect(document.servers).toEqual([{ url: '/client/v4' }]);
    expect(Object.keys(document.paths)).toEqual(Object.keys(loadValidationDocument().paths as object));
    // The validator's document has no discriminator mappings (Ajv refuses them); the document as written has.
    expect(prepared.validatorDocument).not.toContain('"mapping"');
    expect(JSON.stringify(loadDocument())).toContain('"mapping"');
    const entryPoint = prepared.routes.find((route) => route.openApiRoute === '/client/v4/zones/{zone_id}/rulesets/phases/{phase}/entrypoint' && route.method === 'GET');
    expect(entryPoint).toMatchObject({ basePath: '/client/v4', expressRoute: '/client/v4/zones/:zone_id/rulesets/phases/:phase/entrypoint' });
    expect(entryPoint?.pathParams.sort()).toEqual(['phase', 'zone_id']);
  });

  it('keeps the wording of the document as written: pattern messages and the discriminators’ tags', async () => {
    const { wording } = await prepareDocument();
    const fromSources = preparedWording();
    expect(new Map(wording.patterns)).toEqual(fromSources.patterns);
    expect(new Map(wording.tags)).toEqual(fromSources.tags);
    expect(fromSources.tags.get('action')).toContain('execute');
    expect(fromSources.patterns.size).toBeGreaterThan(0);
  });

  it('gives each app a copy of its own, with a serial of its own', async () => {
    const [first, second] = await Promise.all([validatorSpec(), validatorSpec()]);
    expect(first.apiDoc).toEqual(second.apiDoc);
    expect(first.apiDoc).not.toBe(second.apiDoc);
    expect(first.routes[0]).not.toBe(second.routes[0]);
    expect(first.serial).not.toBe(second.serial);
    expect(readableValidationDocument()).not.toBe(readableValidationDocument());
  });
});
