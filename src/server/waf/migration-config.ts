import type { PageRule } from '../../store';
import { paranoiaOverrides } from './paranoia';
import { MANAGED_RULESET_ID, OWASP_RULESET_ID } from './managed-rulesets';
import type { PreviousWaf } from './previous-waf';

/** A rule of the migration payload: not stored yet, so `id`, `version` and `ref` are empty. */
export interface MigrationRule {
  id: '';
  version: '';
  ref: '';
  action: 'execute' | 'skip';
  action_parameters: Record<string, unknown>;
  expression: string;
  description: string;
  enabled: boolean;
}

const thresholdBySensitivity: Record<string, number> = { high: 25, medium: 40, low: 60 };
const actionByMode: Record<string, string> = { block: 'block', challenge: 'challenge', simulate: 'log' };

function rule(action: MigrationRule['action'], action_parameters: Record<string, unknown>, expression: string, description: string, enabled = true): MigrationRule {
  return { id: '', version: '', ref: '', action, action_parameters, expression, description, enabled };
}

function quote(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** A page rule's URL pattern as a rules-language condition on the full URI. */
function pageRuleExpression(pageRule: PageRule): string | null {
  const pattern = pageRule.targets.find((t) => t.target === 'url')?.constraint.value;
  if (!pattern) return null;
  // Page rule patterns usually omit the scheme; a leading `*` already covers it.
  const full = /^https?:\/\//i.test(pattern) || pattern.startsWith('*') ? pattern : `http*://${pattern}`;
  return `http.request.full_uri wildcard ${quote(full)}`;
}

function turnsWafOff(pageRule: PageRule): boolean {
  return pageRule.status === 'active' && pageRule.actions.some((a) => a.id === 'disable_security' || (a.id === 'waf' && a.value === 'off'));
}

/**
 * The new managed rules configuration equivalent to a zone's previous WAF (migration rules 4-6):
 * skip rules for firewall rules that bypass the WAF and for page rules that turn it off, the
 * managed ruleset, and the OWASP ruleset at PL2 with the previous global sensitivity and action
 * as an override of its last rule. Rule- and group-level settings are not migrated (rule 5):
 * nothing below reads the packages' groups or rules.
 */
export function migrationConfig(previous: PreviousWaf, owaspLastRuleId: string): { name: string; rules: MigrationRule[] } {
  const config = previous.config;
  const rules: MigrationRule[] = [];
  for (const fw of config.firewall_rules) {
    if (fw.action === 'bypass' && fw.products.includes('waf') && !fw.paused) {
      rules.push(rule('skip', { ruleset: 'current' }, fw.expression, `Migrated firewall rule ${fw.id}: ${fw.description}`.trim()));
    }
  }
  for (const pageRule of config.page_rules) {
    const expression = turnsWafOff(pageRule) ? pageRuleExpression(pageRule) : null;
    if (expression) rules.push(rule('skip', { ruleset: 'current' }, expression, `Migrated page rule ${pageRule.id} (WAF off)`));
  }
  rules.push(rule('execute', { id: MANAGED_RULESET_ID, version: 'latest' }, 'true', 'Execute the managed ruleset'));
  const owasp = previous.owasp;
  const sensitivity = owasp?.sensitivity ?? 'medium';
  rules.push(
    rule(
      'execute',
      {
        id: OWASP_RULESET_ID,
        version: 'latest',
        overrides: {
          categories: paranoiaOverrides(2),
          rules: [
            {
              id: owaspLastRuleId,
              score_threshold: thresholdBySensitivity[sensitivity] ?? 40,
              action: actionByMode[owasp?.action_mode ?? 'block'] ?? 'block',
            },
          ],
        },
      },
      'true',
      'Execute the OWASP core ruleset',
      sensitivity !== 'off',
    ),
  );
  return { name: 'default', rules };
}
