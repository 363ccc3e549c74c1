// A rule write checks the request first, outside any store transaction, then makes one store
// call; what it checked still holds when it writes, however writes of the same ruleset interleave.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { unwrap } from '../../src/client';
import { ids, startServer, type TestServer } from './harness';

let server: TestServer;
const zone_id = ids.businessZone;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.stop();
});

const block = (host: string) => ({ action: 'block' as const, expression: `http.host eq "${host}"`, description: host });

it('writes a rule with one store call after its checks: no store transaction runs the server\'s code', async () => {
  const transaction = vi.spyOn(server.store, 'transaction');
  const ruleset = await unwrap(
    server.api.POST('/zones/{zone_id}/rulesets', { params: { path: { zone_id } }, body: { name: 'checked', kind: 'custom', phase: 'http_request_firewall_custom', rules: [] } }),
  );
  transaction.mockClear();
  const path = { zone_id, ruleset_id: ruleset.id };
  const added = await unwrap(server.api.POST('/zones/{zone_id}/rulesets/{ruleset_id}/rules', { params: { path }, body: block('a.example') }));
  const rule_id = added.rules![0]!.id!;
  await unwrap(server.api.PATCH('/zones/{zone_id}/rulesets/{ruleset_id}/rules/{rule_id}', { params: { path: { ...path, rule_id } }, body: { description: 'A' } }));
  await unwrap(server.api.PUT('/zones/{zone_id}/rulesets/{ruleset_id}', { params: { path }, body: { rules: [block('b.example')] } }));
  // A refused check writes nothing and opens no transaction either.
  const refused = await server.api.POST('/zones/{zone_id}/rulesets/{ruleset_id}/rules', { params: { path }, body: { ...block('c.example'), expression: 'http.host eq' } });
  expect(refused.response.status).toBe(400);
  expect(transaction).not.toHaveBeenCalled();
  transaction.mockRestore();
  expect((await unwrap(server.api.GET('/zones/{zone_id}/rulesets/{ruleset_id}', { params: { path } }))).version).toBe('4');
});

it('applies every one of concurrent PATCHes of one rule, each checked against the rule it changes', async () => {
  const ruleset = await unwrap(
    server.api.POST('/zones/{zone_id}/rulesets', {
      params: { path: { zone_id } },
      body: { name: 'raced', kind: 'custom', phase: 'http_request_firewall_custom', rules: [block('a.example')] },
    }),
  );
  const path = { zone_id, ruleset_id: ruleset.id, rule_id: ruleset.rules![0]!.id! };
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) => unwrap(server.api.PATCH('/zones/{zone_id}/rulesets/{ruleset_id}/rules/{rule_id}', { params: { path }, body: { description: `d${i}` } }))),
  );
  expect(answers.map((answer) => Number(answer.version)).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
  const final = await unwrap(server.api.GET('/zones/{zone_id}/rulesets/{ruleset_id}', { params: { path } }));
  expect(final.version).toBe('9');
  expect(final.rules![0]!.version).toBe('9');
  // The last write's description stands, in the answer of the write that made version 9.
  expect(final.rules![0]!.description).toBe(answers.find((answer) => answer.version === '9')!.rules![0]!.description);
});

it('checks a PATCH again when another write changed the rule between its check and its write', async () => {
  const ruleset = await unwrap(
    server.api.POST('/zones/{zone_id}/rulesets', {
      params: { path: { zone_id } },
      body: { name: 'overtaken', kind: 'custom', phase: 'http_request_firewall_custom', rules: [block('a.example')] },
    }),
  );
  const scope = { zone_id };
  const rule_id = ruleset.rules![0]!.id!;
  const rulesets = server.store.rulesets;
  const updateRule = rulesets.updateRule.bind(rulesets);
  const read = vi.spyOn(rulesets, 'getWritable');
  // Another writer changes the rule's action after this PATCH read and checked it, before it writes.
  const write = vi.spyOn(rulesets, 'updateRule').mockImplementationOnce(async (...args) => {
    await updateRule(scope, ruleset.id, rule_id, { action: 'log' });
    return updateRule(...args);
  });
  const patched = await unwrap(
    server.api.PATCH('/zones/{zone_id}/rulesets/{ruleset_id}/rules/{rule_id}', {
      params: { path: { zone_id, ruleset_id: ruleset.id, rule_id } },
      body: { description: 'kept' },
    }),
  );
  expect(read).toHaveBeenCalledTimes(2);
  expect(write).toHaveBeenCalledTimes(2);
  read.mockRestore();
  write.mockRestore();
  expect(patched.rules![0]).toMatchObject({ action: 'log', description: 'kept', version: '3' });
  expect(patched.version).toBe('3');
});

it('keeps the one custom fields rule of a phase when another is added between the check and the write: refused as the check would', async () => {
  const entryPoint = await unwrap(
    server.api.POST('/zones/{zone_id}/rulesets', {
      params: { path: { zone_id } },
      body: { name: 'fields', kind: 'zone', phase: 'http_log_custom_fields', rules: [] },
    }),
  );
  const scope = { zone_id };
  const path = { zone_id, ruleset_id: entryPoint.id };
  const field = (name: string) => ({ action: 'log_custom_field' as const, expression: 'true', action_parameters: { request_fields: [{ name }] } });
  const rulesets = server.store.rulesets;
  const addRule = rulesets.addRule.bind(rulesets);
  const write = vi.spyOn(rulesets, 'addRule').mockImplementationOnce(async (...args) => {
    await addRule(scope, entryPoint.id, field('first'));
    return addRule(...args);
  });
  const refused = await server.api.POST('/zones/{zone_id}/rulesets/{ruleset_id}/rules', { params: { path }, body: field('second') });
  write.mockRestore();
  expect(refused.response.status).toBe(400);
  expect(refused.error?.errors).toEqual([{ code: 20200, message: 'the http_log_custom_fields ruleset holds one log_custom_field rule, not 2' }]);
  const stored = await unwrap(server.api.GET('/zones/{zone_id}/rulesets/{ruleset_id}', { params: { path } }));
  expect(stored.rules!.map((rule) => ('action_parameters' in rule ? rule.action_parameters : undefined))).toEqual([{ request_fields: [{ name: 'first' }] }]);
  // With the rule in place, the check itself refuses the same way.
  const checked = await server.api.POST('/zones/{zone_id}/rulesets/{ruleset_id}/rules', { params: { path }, body: field('third') });
  expect(checked.error?.errors).toEqual(refused.error?.errors);
});
