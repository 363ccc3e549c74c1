// A stand-in for `fetch` that records each request and answers from a list, for the client's
// own tests: no server, every answer chosen by the test.

export interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string>;
}

export type Answer = Response | (() => Response | Promise<Response>);

export function envelope(result: unknown, extra: Record<string, unknown> = {}): Response {
  return Response.json({ result, success: true, errors: [], messages: [], ...extra });
}

export function fakeFetch(answers: Answer[]): { fetch: typeof fetch; requests: Recorded[] } {
  const requests: Recorded[] = [];
  const pending = [...answers];
  const fetch = (async (input: Request) => {
    requests.push({ method: input.method, url: input.url, headers: Object.fromEntries(input.headers) });
    const next = pending.shift();
    if (next === undefined) throw new Error(`no answer left for ${input.method} ${input.url}`);
    return typeof next === 'function' ? next() : next;
  }) as typeof globalThis.fetch;
  return { fetch, requests };
}
