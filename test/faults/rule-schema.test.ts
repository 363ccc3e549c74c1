// The checks a fault rule passes before it is installed: every problem reported at once, each
// naming the rule (by place and name) and the field, with what was given.
import { describe, expect, it } from 'vitest';
import { FaultRulesError, FaultSet, splitFaces } from '../../src/faults';

const api = new FaultSet('api', { operations: new Set(['listZones', 'getZone', 'listZoneRulesets']) });
const s3 = new FaultSet('s3', { operations: new Set(['PutObject', 'GetObject']) });

/** The problems a list of rules is refused with. */
function problems(set: FaultSet, list: unknown): readonly string[] {
  try {
    set.replace(list, 'test rules');
  } catch (error) {
    expect(error).toBeInstanceOf(FaultRulesError);
    expect((error as FaultRulesError).message).toMatch(/^test rules:[ \n]/);
    return (error as FaultRulesError).problems;
  }
  throw new Error('expected the rules to be refused');
}

describe('API rules', () => {
  it('takes a well-formed list and lists it back with counters at zero', () => {
    api.replace(
      [
        { name: 'two-429s', match: { operationId: 'listZones' }, status: 429, first: 2 },
        { match: { method: 'get', path: '/zones/*/rulesets' }, delayMs: 50, probability: 0.5, seed: 7 },
        { drop: 'mid-response' },
      ],
      'test rules',
    );
    expect(api.list()).toEqual([
      { name: 'two-429s', match: { operationId: 'listZones' }, status: 429, first: 2, matched: 0, injected: 0 },
      { name: 'api[1]', match: { method: 'GET', path: '/zones/*/rulesets' }, delayMs: 50, probability: 0.5, seed: 7, matched: 0, injected: 0 },
      { name: 'api[2]', drop: 'mid-response', matched: 0, injected: 0 },
    ]);
  });

  it('refuses an operationId the document does not have, suggesting the closest', () => {
    expect(problems(api, [{ match: { operationId: 'listzone' }, status: 500 }])).toEqual([
      'api[0]: match.operationId "listzone" is not an operationId of the API document (did you mean listZones?)',
    ]);
    expect(problems(api, [{ name: 'typo', match: { operationId: 'deleteEverything' }, status: 500 }])).toEqual([
      'api[0] "typo": match.operationId "deleteEverything" is not an operationId of the API document',
    ]);
  });

  it('refuses a probability outside 0..1, and says what it got', () => {
    expect(problems(api, [{ status: 503, probability: 1.5 }])).toEqual(['api[0]: probability must be a number from 0 to 1, not 1.5']);
    expect(problems(api, [{ status: 503, probability: -0.1 }])).toEqual(['api[0]: probability must be a number from 0 to 1, not -0.1']);
    expect(problems(api, [{ status: 503, probability: '50%' }])).toEqual(['api[0]: probability must be a number from 0 to 1, not "50%"']);
  });

  it('refuses a status that is not an error', () => {
    expect(problems(api, [{ name: 'ok', status: 200 }])).toEqual(['api[0] "ok": status must be an error status from 400 to 599, not 200']);
    expect(problems(api, [{ status: 302 }])).toEqual(['api[0]: status must be an error status from 400 to 599, not 302']);
    expect(problems(api, [{ status: 600 }])).toEqual(['api[0]: status must be an error status from 400 to 599, not 600']);
    expect(problems(api, [{ status: 429.5 }])).toEqual(['api[0]: status must be an error status from 400 to 599, not 429.5']);
  });

  it('asks for the body of a status whose platform answer is not known', () => {
    expect(problems(api, [{ status: 409 }])).toEqual([
      'api[0]: status 409 has no documented answer of the platform: give errors: [{code, message}] for it',
    ]);
    api.replace([{ status: 409, errors: [{ code: 1001, message: 'conflict on purpose' }] }], 'test rules');
    expect(api.size).toBe(1);
  });

  it('refuses unknown fields, naming them and the fields it takes', () => {
    expect(problems(api, [{ status: 500, times: 2 }])).toEqual([
      'api[0]: unknown field "times" (fields: name, match, status, retryAfter, errors, delayMs, drop, first, probability, seed)',
    ]);
    expect(problems(api, [{ status: 500, match: { bucket: 'b' } }])).toEqual(['api[0]: match: unknown field "bucket" (fields: operationId, method, path)']);
    // S3's fields are not the API's.
    expect(problems(api, [{ status: 500, code: 'SlowDown' }])[0]).toMatch(/^api\[0\]: unknown field "code"/);
  });

  it('refuses rules that contradict themselves or do nothing', () => {
    expect(problems(api, [{ match: { operationId: 'listZones' } }])).toEqual(['api[0]: does nothing: give it a status, a delayMs or a drop']);
    expect(problems(api, [{ status: 500, drop: 'before-response' }])).toEqual([
      'api[0]: status and drop exclude each other: a dropped connection answers nothing',
    ]);
    expect(problems(api, [{ status: 500, first: 1, probability: 0.5 }])).toEqual([
      'api[0]: first and probability exclude each other: give one, or neither for always',
    ]);
    expect(problems(api, [{ status: 500, seed: 3 }])).toEqual(['api[0]: seed needs a probability to draw from']);
    expect(problems(api, [{ delayMs: 10, retryAfter: 1 }])).toEqual(['api[0]: retryAfter needs a status to go with']);
    expect(problems(api, [{ match: { operationId: 'listZones', method: 'GET' }, status: 500 }])).toEqual([
      'api[0]: match takes an operationId, or a method and/or a path, not both',
    ]);
    expect(problems(api, [{ drop: 'sometimes' }])).toEqual(['api[0]: drop must be before-response or mid-response, not "sometimes"']);
    expect(problems(api, [{ delayMs: 300_001 }])).toEqual(['api[0]: delayMs must be a whole number of milliseconds from 0 to 300000, not 300001']);
    expect(problems(api, [{ match: { method: 'FETCH' }, status: 500 }])).toEqual([
      'api[0]: match.method must be one of GET, HEAD, POST, PUT, PATCH, DELETE, not "FETCH"',
    ]);
    expect(problems(api, [{ match: { path: 'zones' }, status: 500 }])).toEqual(['api[0]: match.path must start with "/", not "zones"']);
  });

  it('reports every problem of every rule at once, and keeps the rules it had', () => {
    api.replace([{ status: 500 }], 'test rules');
    expect(problems(api, [{ status: 200 }, { name: 'b', status: 503, probability: 2 }, 'nonsense', { name: 'b', status: 503 }, { name: 'b', status: 500 }])).toEqual([
      'api[0]: status must be an error status from 400 to 599, not 200',
      'api[1] "b": probability must be a number from 0 to 1, not 2',
      'api[2]: must be an object with fields name, match, status, retryAfter, errors, delayMs, drop, first, probability, seed, not "nonsense"',
      'api[4] "b": name "b" is given to an earlier rule too; names must be unique',
    ]);
    expect(api.list().map((rule) => rule.status)).toEqual([500]);
    expect(problems(api, { status: 500 })).toEqual(['api must be a list of rules, not {"status":500}']);
  });
});

describe('S3 rules', () => {
  it('fills in S3 codes and messages from the status or the code', () => {
    s3.replace(
      [
        { name: 'slow', match: { operation: 'PutObject', bucket: 'photos' }, status: 503, first: 1 },
        { name: 'internal', code: 'InternalError' },
        { name: 'custom', status: 500, code: 'InternalError', message: 'disk on fire' },
      ],
      'test rules',
    );
    const slow = s3.decide({ method: 'PUT', path: '/photos/a.jpg', operation: 'PutObject', bucket: 'photos' });
    expect(slow?.effect).toEqual({ delayMs: 0, status: 503, code: 'SlowDown', message: 'Please reduce your request rate.' });
    const internal = s3.decide({ method: 'GET', path: '/other/a.jpg', operation: 'GetObject', bucket: 'other' });
    expect(internal).toEqual({ rule: 'internal', effect: { delayMs: 0, status: 500, code: 'InternalError', message: 'We encountered an internal error. Please try again.' } });
  });

  it('refuses unknown operations, statuses with no S3 code and codes with no status', () => {
    expect(problems(s3, [{ match: { operation: 'putobject' }, status: 503 }])).toEqual([
      's3[0]: match.operation "putobject" is not an operation of the S3 endpoint (did you mean PutObject?)',
    ]);
    expect(problems(s3, [{ status: 404 }])).toEqual([
      's3[0]: status 404 stands for no S3 error by itself: give a code (for example InternalError, SlowDown, ServiceUnavailable, RequestTimeout, AccessDenied)',
    ]);
    expect(problems(s3, [{ code: 'NoSuchThing' }])).toEqual([
      's3[0]: code "NoSuchThing" is not one this endpoint knows the status of (InternalError, SlowDown, ServiceUnavailable, RequestTimeout, AccessDenied): give a status too',
    ]);
    expect(problems(s3, [{ status: 404, code: 'NoSuchThing' }])).toEqual([
      's3[0]: code "NoSuchThing" needs a message: S3\'s wording for it is not known here',
    ]);
    expect(problems(s3, [{ status: 204, code: 'SlowDown' }])).toEqual(['s3[0]: status must be an error status from 400 to 599, not 204']);
    expect(problems(s3, [{ match: { operationId: 'PutObject' }, status: 503 }])).toEqual(['s3[0]: match: unknown field "operationId" (fields: operation, bucket)']);
  });
});

describe('rules documents', () => {
  it('takes api and s3 lists, either optional, and refuses anything else', () => {
    expect(splitFaces({ api: [], s3: [] }, 'doc')).toEqual({ api: [], s3: [] });
    expect(splitFaces(null, 'doc')).toEqual({});
    expect(() => splitFaces({ faults: [] }, 'doc')).toThrow('doc: unknown section "faults" (sections: api, s3)');
    expect(() => splitFaces([], 'doc')).toThrow('doc: must be an object with the lists "api" and/or "s3", not []');
  });
});
