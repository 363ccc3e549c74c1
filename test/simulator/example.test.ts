// The document's example of the extension operation is a real simulation: its request example
// (which fixes the ray id and the time through overrides) run on the seeded store answers exactly
// the response example. After a deliberate change, `npx vitest run test/simulator/example.test.ts -u`
// rewrites the example; then `npm run generate`.
import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { simulate } from '../../src/simulator';
import type { Store } from '../../src/store';
import { PRO, openStore } from './helpers';

const examples = new URL('../../openapi/components/examples/', import.meta.url);
let store: Store;
beforeAll(async () => {
  store = await openStore();
});
afterAll(async () => {
  await store?.close();
});

it('the response example is what the request example simulates to on the seeded Pro zone', async () => {
  const request = (parse(readFileSync(new URL('SimulationRequestXss.yaml', examples), 'utf8')) as { value: unknown }).value;
  const result = await simulate(store, PRO, request);
  const example = {
    summary: "The XSS attempt scores 40 at paranoia level 2, above the zone's threshold of 25: managed challenge",
    value: { success: true, errors: [], messages: [], result },
  };
  // YAML 1.1 quoting keeps timestamps and yes/no-like strings strings for every reader of the document.
  await expect(stringify(example, { lineWidth: 0, version: '1.1' })).toMatchFileSnapshot(new URL('SimulationChallenged.yaml', examples).pathname);
});
