// Functions the platform allows only in some phases: refused in rules of other phases, accepted by validate-expr.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../src/client';
import { apiFailure, ids, startServer, type TestServer } from './harness';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.stop();
});

const REWRITE_ONLY = 'regex_replace(http.request.uri.path, "^/old/", "/new/") eq "/new/a"';

function putCustomRules(expression: string) {
  return unwrap(
    server.api.PUT('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', {
      params: { path: { zone_id: ids.businessZone, phase: 'http_request_firewall_custom' } },
      body: { rules: [{ action: 'block', expression }] },
    }),
  );
}

describe('phase-specific functions', () => {
  it('refuses a rewrite-only function in a custom rule, naming the function, where it is and the phases that allow it', async () => {
    const error = await apiFailure(putCustomRules(`ssl and ${REWRITE_ONLY}`), 400);
    expect(error.codes).toEqual([10026]);
    expect(error.errors[0]!.message).toBe(
      'rules[0].expression: function regex_replace (line 1, column 9) is not allowed in phase http_request_firewall_custom; ' +
        'it is allowed only in http_request_transform, http_request_late_transform, http_response_headers_transform, http_request_dynamic_redirect',
    );
  });

  it('reports every restricted call, nested ones included, in source order', async () => {
    const expression = 'any(concat(http.request.headers.names[*], "-x")[*] eq "a-x") or\n  to_string(cf.threat_score) eq "1"';
    const error = await apiFailure(putCustomRules(expression), 400);
    expect(error.errors.map((e) => e.message.split(' is not allowed')[0])).toEqual([
      'rules[0].expression: function concat (line 1, column 5)',
      'rules[0].expression: function to_string (line 2, column 3)',
    ]);
  });

  it('accepts functions that custom rules allow (cidr, join, lower)', async () => {
    const expression = 'cidr(ip.src, 24, 64) eq 192.0.2.0 and join(http.request.headers.names, ",") contains "x" and lower(http.host) eq "a"';
    const ruleset = await putCustomRules(expression);
    expect(ruleset.rules!.map((r) => r.expression)).toEqual([expression]);
  });

  it('refuses cidr in a managed-phase rule', async () => {
    const error = await apiFailure(
      unwrap(
        server.api.POST('/zones/{zone_id}/rulesets', {
          params: { path: { zone_id: ids.proZone } },
          body: { name: 'managed phase', kind: 'custom', phase: 'http_request_firewall_managed', rules: [{ action: 'log', expression: 'cidr(ip.src, 24, 64) eq 192.0.2.0' }] },
        }),
      ),
      400,
    );
    expect(error.errors.map((e) => e.message)).toEqual([
      'rules[0].expression: function cidr (line 1, column 1) is not allowed in phase http_request_firewall_managed; it is allowed only in http_request_firewall_custom, http_ratelimit',
    ]);
  });

  it('lets validate-expr accept the same expression, as it has no phase', async () => {
    const { data, response } = await server.api.POST('/filters/validate-expr', { body: { expression: REWRITE_ONLY } });
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ success: true, errors: [] });
  });
});
