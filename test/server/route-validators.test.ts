// Every route's request validator compiles. The validator is patched
// (patches/express-openapi-validator+5.6.2.patch: a route's schemas carry the document's
// components without its paths), and the server warms up without compiling any route
// (src/server/app.ts, warmUp), so a route whose references did not resolve would fail only at its
// first request. One request per route and method, with a JSON body where the method takes one:
// each is answered by the validator or passed on, never failed by the validator itself.
import express, { type NextFunction, type Request, type Response } from 'express';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentValidator } from '../../src/server/app';
import { validatorSpec } from '../../src/server/http/prepared-document';

const failures: string[] = [];
let baseUrl = '';
let close: () => void = () => {};

beforeAll(async () => {
  const app = express();
  app.use(documentValidator(false));
  app.use((_req, res) => res.status(204).end());
  app.use((error: { status?: number; message?: string }, req: Request, res: Response, _next: NextFunction) => {
    // The validator's own refusals carry a 4xx status; anything else is a failure of its making.
    if (!error.status || error.status >= 500) failures.push(`${req.method} ${req.path}: ${error.message}`);
    res.status(error.status && error.status < 500 ? error.status : 500).end();
  });
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close());

describe('request validators of every route', () => {
  it('compile, and answer or pass on a request', async () => {
    const { routes } = await validatorSpec();
    expect(routes.length).toBeGreaterThan(80);
    for (const route of routes) {
      const path = route.expressRoute.replace(/:([A-Za-z0-9_]+)/g, '0123456789abcdef0123456789abcdef');
      const method = route.method.toUpperCase();
      const withBody = !['GET', 'HEAD', 'DELETE'].includes(method);
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: 'Bearer route-check', ...(withBody ? { 'content-type': 'application/json' } : {}) },
        ...(withBody ? { body: '{}' } : {}),
      });
      expect(response.status, `${method} ${path}`).toBeLessThan(500);
    }
    expect(failures).toEqual([]);
  });
});
