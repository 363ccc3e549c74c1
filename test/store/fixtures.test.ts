import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildSeed } from '../../fixtures/generator/build';
import { oversizedFirewallRule } from '../../fixtures/generator/firewall-rules';
import { compile, MAX_EXPRESSION_LENGTH, parse, validate, type RequestContext } from '../../src/filter';
import { DEFAULT_SEED_FILE, type SeedRule, type SeedRuleset } from '../../src/store';
import { OWASP_RULESET_ID, OWASP_THRESHOLD_RULE_ID } from './contract/fixtures';

const seed = buildSeed();
const owasp = seed.managed_rulesets.find((ruleset) => ruleset.id === OWASP_RULESET_ID)!;

describe('fixtures', () => {
  it('match what the generator builds (run npx tsx fixtures/generator/main.ts to refresh)', () => {
    expect(readFileSync(DEFAULT_SEED_FILE, 'utf8')).toBe(`${JSON.stringify(seed, null, 2)}\n`);
  });

  it('hold only expressions the rules language accepts, but the one meant to be too long', () => {
    const oversized = oversizedFirewallRule();
    const expressions = [
      ...seed.managed_rulesets.flatMap(rulesExpressions),
      ...seed.zones.flatMap((zone) => [
        ...zone.rulesets.flatMap(rulesExpressions),
        ...zone.waf.firewall_rules.filter((rule) => rule.id !== oversized.id).map((rule) => rule.expression),
      ]),
    ];
    expect(expressions.length).toBeGreaterThan(400);
    const failures = expressions
      .map((expression) => ({ expression, result: validate(expression) }))
      .filter(({ result }) => !result.ok)
      .map(({ expression, result }) => `${expression}: ${result.ok ? '' : result.error.message}`);
    expect(failures).toEqual([]);

    expect(oversized.expression.length).toBeGreaterThan(MAX_EXPRESSION_LENGTH);
    const refused = validate(oversized.expression);
    expect(refused.ok ? 'accepted' : refused.error.reason).toBe(`expression is longer than the limit of ${MAX_EXPRESSION_LENGTH} characters`);
    const shortened = oversized.expression.replace(/\{([^}]*)\}/, (_, body: string) => `{${body.split(' ').slice(0, 40).join(' ')}}`);
    expect(validate(shortened).ok).toBe(true);
  });

  it('spread the OWASP rules over the four paranoia levels', () => {
    const scoring = owasp.rules.filter((rule) => rule.id !== OWASP_THRESHOLD_RULE_ID);
    const perLevel = [1, 2, 3, 4].map((level) => scoring.filter((rule) => rule.categories?.includes(`paranoia-level-${level}`)).length);
    expect(perLevel.every((count) => count >= 2)).toBe(true);
    expect(perLevel.reduce((a, b) => a + b)).toBe(scoring.length);
    expect(scoring.every((rule) => rule.action === 'log' && (rule.score ?? 0) > 0)).toBe(true);
    expect(owasp.rules.at(-1)).toMatchObject({ id: OWASP_THRESHOLD_RULE_ID, action: 'block', score_threshold: 40 });
  });

  describe('OWASP threat scores of typical requests (as the generator documents them)', () => {
    const cases: [string, Request, number[]][] = [
      ['an ordinary browser request', { path: '/products', query: 'page=2&sort=price' }, [0, 0, 0, 2]],
      ['UNION-based SQL injection', { path: '/products', query: "id=1' UNION SELECT name,pass FROM users-- " }, [30, 40, 40, 42]],
      ['a script tag', { path: '/search', query: 'q=<script>alert(document.cookie)</script>' }, [30, 40, 40, 42]],
      ['an event handler', { path: '/search', query: 'q=<img src=x onerror=alert(1)>' }, [30, 40, 40, 42]],
      ['path traversal', { path: '/download', query: 'file=../../../../etc/passwd' }, [45, 45, 45, 45]],
      ['a scanner user agent', { path: '/', userAgent: 'sqlmap/1.7.2#stable (https://sqlmap.org)' }, [15, 15, 15, 15]],
      ['Shellshock', { path: '/cgi-bin/status', userAgent: '() { :; }; /bin/bash -c "cat /etc/passwd"' }, [30, 30, 30, 30]],
    ];
    for (const [name, request, expected] of cases) {
      it(`${name}: ${expected.join(' / ')} at PL1..PL4`, () => {
        expect([1, 2, 3, 4].map((level) => owaspScore(owasp, contextOf(request), level))).toEqual(expected);
      });
    }
  });
});

function rulesExpressions(ruleset: SeedRuleset): string[] {
  return [ruleset.rules, ...(ruleset.previous_versions ?? []).map((version) => version.rules)].flatMap((rules) =>
    rules.map((rule) => rule.expression),
  );
}

interface Request {
  path: string;
  query?: string;
  userAgent?: string;
}

/** The request fields the OWASP fixture rules read, for a GET from a browser-like client. */
function contextOf({ path, query = '', userAgent = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0' }: Request): RequestContext {
  const uri = query === '' ? path : `${path}?${query}`;
  const headers = { host: ['example.org'], 'user-agent': [userAgent], accept: ['text/html'] };
  return {
    'http.request.method': 'GET',
    'http.host': 'example.org',
    'http.request.uri': uri,
    'raw.http.request.uri': uri,
    'http.request.uri.path': path,
    'http.request.uri.path.extension': path.includes('.') ? (path.split('.').pop() ?? '') : '',
    'http.request.uri.query': query,
    'http.request.headers': headers,
    'http.request.headers.names': Object.keys(headers),
    'http.request.headers.values': Object.values(headers).flat(),
    'http.user_agent': userAgent,
    'http.referer': '',
    'http.cookie': '',
    'http.request.body.raw': '',
    'http.request.body.size': 0,
  };
}

/** Sum of the scores of the matching rules up to a paranoia level. */
function owaspScore(ruleset: SeedRuleset, context: RequestContext, level: number): number {
  const levelOf = (rule: SeedRule) => Number(rule.categories?.find((tag) => tag.startsWith('paranoia-level-'))?.slice(-1));
  return ruleset.rules
    .filter((rule) => rule.score !== undefined && levelOf(rule) <= level)
    .filter((rule) => compile(parse(rule.expression)).evaluate(context))
    .reduce((total, rule) => total + (rule.score ?? 0), 0);
}
