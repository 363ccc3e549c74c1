// Custom rules written with the engine's mapped forms (functions over [*] indexed again, nested [*],
// quantifiers over Boolean arrays, dialect regexes), simulated against request fixtures.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { simulate } from '../../src/simulator';
import type { Store } from '../../src/store';
import { PRO, deploy, fixture, openStore, simulateFixture, type FixtureName } from './helpers';

const CUSTOM = 'http_request_firewall_custom';

let store: Store;
beforeEach(async () => {
  store = await openStore();
});
afterEach(async () => {
  await store.close();
});

async function blockedBy(expression: string, name: FixtureName): Promise<boolean> {
  await deploy(store, CUSTOM, [{ action: 'block', expression, description: 'under test' }]);
  const result = await simulateFixture(store, name);
  return result.outcome.action === 'block';
}

/** [expression, blocks the benign browser, blocks the form-body SQL injection] */
const CASES: ReadonlyArray<readonly [string, boolean, boolean]> = [
  ['any(lower(http.request.headers.names[*])[*] == "content-type")', false, true],
  ['any(lower(http.request.headers.names[*])[*] == "accept-language")', true, false],
  ['any(url_decode(http.request.body.form.values[*])[*] contains "\' or \'1\'=\'1")', false, true],
  ['any(http.request.body.form.values[*] contains "\' or \'1\'=\'1")', false, false],
  ['any(http.request.headers[*][*] contains "Firefox/128.0")', true, true],
  ['any(starts_with(lower(http.request.headers.names[*])[*], "accept"))', true, true],
  ['all(starts_with(lower(http.request.headers.names[*])[*], "accept"))', false, false],
  ['any( http.request.headers[ "accept" ][ * ] matches "(?x) ^ text / html $ # exactly" )', false, true],
  ['http.request.uri.path matches "^/\\<login\\>$"', false, true],
  ['any(len(http.request.headers.names[*])[*] eq 15)', true, false],
];

describe('custom rules with mapped expressions', () => {
  it.each(CASES)('%s', async (expression, onBrowser, onInjection) => {
    expect([await blockedBy(expression, 'benign-browser'), await blockedBy(expression, 'sqli-form-body')]).toEqual([onBrowser, onInjection]);
  });

  it('reports the matching rule of a request only the mapped form catches', async () => {
    await deploy(store, CUSTOM, [
      { action: 'log', expression: 'any(http.request.body.form.values[*] contains "1\'=\'1")', description: 'raw values' },
      { action: 'block', expression: 'any(url_decode(http.request.body.form.values[*])[*] contains "1\'=\'1")', description: 'decoded values' },
    ]);
    const result = await simulate(store, PRO, fixture('sqli-form-body'));
    expect(result.matched_rules.map((r) => r.description)).toEqual(['decoded values']);
    expect(result.outcome).toMatchObject({ action: 'block', status: 403 });
  });
});
