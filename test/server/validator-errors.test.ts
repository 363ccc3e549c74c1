// The validator's complaints about a value that matches no alternative of an anyOf or oneOf,
// condensed to one line per place (src/server/http/validator-errors.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { condenseAlternatives, joinAlternatives, placeOf } from '../../src/server/http/validator-errors';
import { unwrap } from '../../src/client';
import { UNKNOWN_ACTION } from '../support/rule-wording';
import { apiFailure, ids, startServer, type TestServer } from './harness';

const item = (path: string, message: string) => ({ path, message });
const ANY = 'must match a schema in anyOf';

describe('condenseAlternatives', () => {
  it('joins the alternatives refusing the value itself into one line at its place', () => {
    expect(condenseAlternatives([item('/body/headers/a', 'must be string'), item('/body/headers/a', 'must be array'), item('/body/headers/a', ANY)])).toEqual([
      item('/body/headers/a', 'must be string or array'),
    ]);
  });

  it('keeps only the complaints from inside an alternative the value got into', () => {
    expect(
      condenseAlternatives([item('/body/headers/a', 'must be string'), item('/body/headers/a/0', 'must be string'), item('/body/headers/a', ANY)]),
    ).toEqual([item('/body/headers/a/0', 'must be string')]);
  });

  it('leaves other complaints alone, in their order, and condenses an anyOf nested in another one\'s alternative', () => {
    const items = [
      item('/body/name', 'must be string'),
      item('/body/value', 'must be string'),
      item('/body/value/0', 'must be integer'),
      item('/body/value/0', 'must be boolean'),
      item('/body/value/0', ANY),
      item('/body/value', ANY),
      item('/body/other', 'must be boolean'),
    ];
    expect(condenseAlternatives(items)).toEqual([
      item('/body/name', 'must be string'),
      item('/body/value/0', 'must be integer or boolean'),
      item('/body/other', 'must be boolean'),
    ]);
  });

  it('condenses each failed place on its own, and oneOf as anyOf', () => {
    const ONE = 'must match exactly one schema in oneOf';
    expect(
      condenseAlternatives([item('/body/a', 'must be null'), item('/body/a', 'must be object'), item('/body/a', ONE), item('/body/b', 'must be string'), item('/body/b', 'must be array'), item('/body/b', ANY)]),
    ).toEqual([item('/body/a', 'must be null or object'), item('/body/b', 'must be string or array')]);
  });

  it('keeps an anyOf complaint with nothing to join, and returns the list untouched without one', () => {
    expect(condenseAlternatives([item('/body/a', ANY)])).toEqual([item('/body/a', ANY)]);
    const plain = [item('/body/a', 'must be string'), item('/body/b', 'must be integer')];
    expect(condenseAlternatives(plain)).toEqual(plain);
  });

  it('stays linear with many failed places (a body of 20,000 bad values)', () => {
    const items = Array.from({ length: 20_000 }, (_, i) => [item(`/body/h/k${i}`, 'must be string'), item(`/body/h/k${i}`, 'must be array'), item(`/body/h/k${i}`, ANY)]).flat();
    const condensed = condenseAlternatives(items);
    expect(condensed).toHaveLength(20_000);
    expect(condensed[19_999]).toEqual(item('/body/h/k19999', 'must be string or array'));
  });
});

describe('joinAlternatives', () => {
  it('says the shared words once', () => {
    expect(joinAlternatives(['must be string', 'must be integer', 'must be boolean'])).toBe('must be string, integer or boolean');
    expect(joinAlternatives(['must match format "ipv4"', 'must match format "ipv6"'])).toBe('must match format "ipv4" or "ipv6"');
    expect(joinAlternatives(['must be string', 'must have required property \'id\''])).toBe("must be string or have required property 'id'");
    expect(joinAlternatives(['is wrong'])).toBe('is wrong');
    expect(joinAlternatives(['alpha', 'beta'])).toBe('alpha or beta');
  });
});

describe('placeOf', () => {
  it('reads JSON pointers and the dotted form', () => {
    expect(placeOf('/query/account.id')).toBe('query/account.id');
    expect(placeOf('.body.name')).toBe('body/name');
  });
});

describe('through the server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** The messages of the 400 answering a PUT of the custom-rules entry point with `rule` alone. */
  async function refusalOf(rule: object): Promise<string[]> {
    const call = server.api.PUT('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', {
      params: { path: { zone_id: ids.proZone, phase: 'http_request_firewall_custom' } },
      body: { rules: [rule] } as never,
    });
    const refused = await apiFailure(unwrap(call), 400);
    expect(refused.codes).toEqual(refused.errors.map(() => 10021));
    return refused.errors.map((e) => e.message);
  }

  it('names the allowed actions of a rule whose action is unknown, as the mock does', async () => {
    expect(await refusalOf({ action: 'explode', expression: 'true' })).toEqual([UNKNOWN_ACTION]);
  });

  it('says a rule without an action, or with one that is not a string, lacks it, naming the actions', async () => {
    const lacking =
      'body/rules/0/action is missing or not a string; it must be one of: execute, log_custom_field, skip, block, managed_challenge, js_challenge, challenge, log';
    expect(await refusalOf({ expression: 'true' })).toEqual([lacking]);
    expect(await refusalOf({ action: 5, expression: 'true' })).toEqual([lacking]);
  });
});
