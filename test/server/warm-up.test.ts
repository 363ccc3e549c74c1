// The server's warm-up (src/server/app.ts, warmUp) makes the validator's request validators before
// the server listens, and compiles no route's validator: each route's is compiled by the first
// request to it, so a start pays for none it does not serve.
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { documentValidator, warmUp } from '../../src/server/app';

// The validator's own modules, as it requires them (CommonJS: a spy on an export is seen by its callers).
const require = createRequire(import.meta.url);
const ajvFactory = require('express-openapi-validator/dist/framework/ajv') as { createRequestAjv: (...args: unknown[]) => unknown };
const AjvCore = (require('ajv/dist/core') as { default: { prototype: { addSchema: (schema: unknown, key?: string) => unknown } } }).default;

afterEach(() => vi.restoreAllMocks());

describe('the validator warm-up', () => {
  it('makes the request validators before the server listens, and compiles no route', async () => {
    const created = vi.spyOn(ajvFactory, 'createRequestAjv');
    const registered = vi.spyOn(AjvCore.prototype, 'addSchema');
    const validator = documentValidator(false);
    await warmUp(validator);
    // One Ajv for parameters (coercing), one for bodies, each holding the document's components.
    expect(created).toHaveBeenCalledTimes(2);
    // The components are registered; a route's schemas would be too, under the route's key
    // (`GET-/zones/{zone_id}-not_provided`), and compiled.
    const keys = registered.mock.calls.map(([, key]) => key);
    expect(keys.filter((key) => key?.startsWith('#/components/schemas/')).length).toBeGreaterThan(100);
    expect(keys.filter((key) => typeof key === 'string' && !key.startsWith('#/components/'))).toEqual([]);
  });
});
