// Routing comes first and on the document's own table (the validator's): an unknown route is
// refused before anything else, while a method the path lacks, or a path that does not decode, is
// refused in its old turn: after authentication and after the body is read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, ids, startServer, type TestServer } from './harness';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.stop());

async function answer(response: Response) {
  const body = (await response.json()) as { errors: { code: number; message: string }[] };
  return { status: response.status, codes: body.errors.map((error) => error.code), messages: body.errors.map((error) => error.message) };
}

describe('the order of routing refusals', () => {
  it('answers a method the path lacks only once the credentials are checked', async () => {
    const refused = await answer(await server.fetch(`/zones/${ids.proZone}`, { method: 'DELETE' }));
    expect(refused).toMatchObject({ status: 400, codes: [9106] });
    const allowed = await server.fetch(`/zones/${ids.proZone}`, { method: 'DELETE', headers: bearer() });
    expect({ status: allowed.status, allow: allowed.headers.get('allow') }).toEqual({ status: 405, allow: 'GET' });
  });

  it('answers a malformed body before a method the path lacks, as the body is read first', async () => {
    const response = await server.fetch(`/zones/${ids.proZone}`, {
      method: 'PUT',
      headers: { ...bearer(), 'content-type': 'application/json' },
      body: '{"name":',
    });
    expect(await answer(response)).toMatchObject({ status: 400, codes: [6007] });
  });

  it('answers a path that does not decode only once the credentials are checked', async () => {
    const refused = await answer(await server.fetch(`/zones/${ids.proZone}/rulesets/%E0%A4%A`));
    expect(refused).toMatchObject({ status: 400, codes: [9106] });
    const checked = await answer(await server.fetch(`/zones/${ids.proZone}/rulesets/%E0%A4%A`, { headers: bearer() }));
    expect(checked.status).toBe(400);
    expect(checked.codes).not.toContain(9106);
  });

  it('matches the document’s paths case for case, naming the whole path of an unknown one', async () => {
    expect((await server.fetch(`/zones/${ids.proZone}`, { headers: bearer() })).status).toBe(200);
    const upper = await answer(await server.fetch(`/ZONES/${ids.proZone}`));
    expect(upper).toMatchObject({ status: 404, codes: [7003, 7000] });
    expect(upper.messages[0]).toBe(`Could not route to /client/v4/ZONES/${ids.proZone}, perhaps your object identifier is invalid?`);
    // Whatever the method: a path in another case is no route at all.
    for (const method of ['GET', 'DELETE', 'PUT']) {
      const other = await server.fetch(`/ZONES/${ids.proZone}`, { method, headers: bearer() });
      expect({ method, status: other.status }).toEqual({ method, status: 404 });
    }
  });

  it('answers the readiness probe and the faults endpoint in any case, outside the API', async () => {
    const origin = new URL(server.baseUrl).origin;
    for (const path of ['/readyz', '/READYZ', '/readyz/']) {
      const response = await fetch(`${origin}${path}`);
      expect({ path, status: response.status, body: await response.json() }).toEqual({ path, status: 200, body: { ready: true, database: 'sqlite' } });
    }
    for (const path of ['/__faults', '/__FAULTS', '/__faults/']) {
      const response = await fetch(`${origin}${path}`, { headers: bearer() });
      expect({ path, status: response.status, body: await response.json() }).toMatchObject({ path, status: 200, body: { success: true, result: { api: [] } } });
    }
    expect((await fetch(`${origin}/__faultsx`, { headers: bearer() })).status).toBe(404);
  });
});
