// A request that carries nothing but a method and a path is validated once: its repeats skip the
// request steps and get the accepted operation and path parameters; anything else, and every
// refusal, goes through the steps each time.
import type { Request, RequestHandler, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { rememberAcceptedRequests } from '../../src/server/http/validation-memo';

const document = {
  components: { parameters: { ZoneId: { name: 'zone_id', in: 'path' }, Trace: { name: 'x-trace', in: 'header' } } },
  paths: {
    '/zones/{zone_id}': {
      parameters: [{ $ref: '#/components/parameters/ZoneId' }],
      get: { operationId: 'getZone', parameters: [{ name: 'page', in: 'query' }] },
      delete: { operationId: 'deleteZone', parameters: [{ $ref: '#/components/parameters/Trace' }] },
    },
    '/jobs/{job_id}': { get: { operationId: 'getJob', parameters: [{ name: 'job_id', in: 'path' }] } },
  },
};

type Validated = Request & { openapi?: { schema: { operationId: string }; pathParams: Record<string, unknown> } };

/** A stand-in for the validator: accepts `/zones/<id>` and `/jobs/<number>` (coerced), counting its runs. */
function fakeValidator() {
  const runs = { count: 0 };
  const step: RequestHandler = (req: Validated, _res, next) => {
    runs.count += 1;
    const [, kind, id] = req.originalUrl.split('?')[0]!.split('/');
    if (kind === 'jobs') {
      if (!/^\d+$/.test(id!)) return next(Object.assign(new Error('job_id must be an integer'), { status: 400 }));
      req.openapi = { schema: { operationId: 'getJob' }, pathParams: { job_id: Number(id) } };
    } else {
      req.openapi = { schema: { operationId: req.method === 'DELETE' ? 'deleteZone' : 'getZone' }, pathParams: { zone_id: id } };
    }
    next();
  };
  return { runs, step };
}

function request(method: string, url: string, headers: Record<string, string> = {}): Validated {
  return { method, originalUrl: url, headers } as unknown as Validated;
}

/** Runs the middleware, answering the error it passed on (undefined when it accepted). */
function run(middleware: RequestHandler, req: Validated): unknown {
  let outcome: unknown = 'not called';
  middleware(req, {} as Response, (error?: unknown) => (outcome = error));
  return outcome;
}

describe('remembered validation verdicts', () => {
  it('runs the steps once for repeats of an accepted method and path, handing each its own parameters', () => {
    const { runs, step } = fakeValidator();
    const memo = rememberAcceptedRequests([step], document);
    const first = request('GET', '/jobs/42');
    expect(run(memo, first)).toBeUndefined();
    const second = request('GET', '/jobs/42');
    expect(run(memo, second)).toBeUndefined();
    expect(runs.count).toBe(1);
    // The coerced value the validator produced, in a copy a handler may change without effect.
    expect(second.openapi).toMatchObject({ schema: { operationId: 'getJob' }, pathParams: { job_id: 42 } });
    expect(second.params).toBe(second.openapi!.pathParams);
    second.openapi!.pathParams.job_id = 7;
    const third = request('GET', '/jobs/42');
    run(memo, third);
    expect(third.openapi!.pathParams).toEqual({ job_id: 42 });
    // Another path, or another method on the same path, is validated on its own.
    run(memo, request('GET', '/jobs/43'));
    run(memo, request('HEAD', '/jobs/42'));
    expect(runs.count).toBe(3);
  });

  it('never remembers a refusal', () => {
    const { runs, step } = fakeValidator();
    const memo = rememberAcceptedRequests([step], document);
    expect((run(memo, request('GET', '/jobs/x')) as Error).message).toBe('job_id must be an integer');
    expect((run(memo, request('GET', '/jobs/x')) as Error).message).toBe('job_id must be an integer');
    expect(runs.count).toBe(2);
  });

  it('validates every time a request with a query string, a body or a content type', () => {
    const { runs, step } = fakeValidator();
    const memo = rememberAcceptedRequests([step], document);
    for (let i = 0; i < 2; i += 1) {
      run(memo, request('GET', '/zones/z1?page=1'));
      run(memo, request('GET', '/zones/z1?'));
      run(memo, request('GET', '/zones/z1', { 'content-type': 'application/json' }));
      run(memo, request('GET', '/zones/z1', { 'content-length': '2' }));
      run(memo, request('GET', '/zones/z1', { 'transfer-encoding': 'chunked' }));
    }
    expect(runs.count).toBe(10);
    // An empty body is no body.
    run(memo, request('GET', '/zones/z1', { 'content-length': '0' }));
    run(memo, request('GET', '/zones/z1', { 'content-length': '0' }));
    expect(runs.count).toBe(11);
  });

  it('validates every time an operation with a header parameter', () => {
    const { runs, step } = fakeValidator();
    const memo = rememberAcceptedRequests([step], document);
    run(memo, request('DELETE', '/zones/z1'));
    run(memo, request('DELETE', '/zones/z1'));
    expect(runs.count).toBe(2);
  });

  it('keeps at most its capacity, dropping the least recently used', () => {
    const { runs, step } = fakeValidator();
    const memo = rememberAcceptedRequests([step], document, 2);
    run(memo, request('GET', '/jobs/1'));
    run(memo, request('GET', '/jobs/2'));
    run(memo, request('GET', '/jobs/1')); // used: /jobs/2 is now the oldest
    run(memo, request('GET', '/jobs/3')); // drops /jobs/2
    expect(runs.count).toBe(3);
    run(memo, request('GET', '/jobs/1'));
    run(memo, request('GET', '/jobs/3'));
    expect(runs.count).toBe(3);
    run(memo, request('GET', '/jobs/2'));
    expect(runs.count).toBe(4);
  });
});

describe('the server with remembered verdicts', () => {
  it('answers repeats exactly as the first time, accepted or refused', async () => {
    const { startServer, bearer, json, ids } = await import('./harness');
    const server = await startServer();
    try {
      const job = await server.fetch(`/zones/${ids.proZone}/logpush/jobs`, {
        ...json('POST', { dataset: 'http_requests', destination_conf: 's3://bucket/logs?region=us-east-1', logpull_options: 'fields=ClientIP' }),
      });
      expect(job.status).toBe(200);
      const { id } = ((await job.json()) as { result: { id: number } }).result;
      const paths = [
        `/zones/${ids.proZone}/logpush/jobs/${id}`, // an integer path parameter, coerced
        `/zones/${ids.proZone}/logpush/jobs/not-a-number`, // refused by the validator
        `/zones/${ids.proZone}/rulesets/phases/http_request_firewall_managed/entrypoint`,
        `/zones/${ids.proZone}/rulesets/phases/not_a_phase/entrypoint`,
      ];
      for (const path of paths) {
        const answers = [];
        for (let i = 0; i < 3; i += 1) {
          const response = await server.fetch(path, { headers: bearer() });
          answers.push({ status: response.status, body: await response.text() });
        }
        expect(answers[1], path).toEqual(answers[0]);
        expect(answers[2], path).toEqual(answers[0]);
      }
      const statuses = await Promise.all(paths.map(async (path) => (await server.fetch(path, { headers: bearer() })).status));
      expect(statuses).toEqual([200, 400, 200, 400]);
    } finally {
      await server.stop();
    }
  });
});
