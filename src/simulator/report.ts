/** A simulation result as a readable trace, for terminals. */
import type { PhaseTrace, RuleTrace, RulesetTrace, ScoreTrace } from '../judge';
import type { SimulationResult } from './types';

export function formatReport(result: SimulationResult): string {
  const { request, zone } = result;
  const lines: string[] = [
    `${request.method} ${request.url} on zone ${zone.name} (${zone.id})`,
    `  ${request.http_version} from ${request.client_ip ?? 'an unknown client'}, ray ${request.ray_id}, ${request.timestamp}`,
    '',
    'Phases',
    ...result.phases.flatMap((phase, i) => phaseLines(phase, i + 1)),
    '',
    ...owaspLines(result),
    outcomeLine(result),
    ...logLines(result),
  ];
  if (result.warnings.length > 0) lines.push('', 'Warnings', ...result.warnings.map((warning) => `  - ${warning}`));
  return `${lines.join('\n')}\n`;
}

function phaseLines(phase: PhaseTrace, number: number): string[] {
  const head = `  ${number}. ${phase.phase}`;
  if (phase.status !== 'evaluated') return [`${head}: ${phase.status.replace(/_/g, ' ')}${phase.note ? ` (${phase.note})` : ''}`];
  return [head, ...phase.rulesets.flatMap((ruleset) => rulesetLines(ruleset, '     ', false))];
}

/** Entry points show every rule; managed rulesets (dozens of rules) only the ones that did something. */
function rulesetLines(ruleset: RulesetTrace, indent: string, onlyNotable: boolean): string[] {
  const matched = ruleset.rules.filter((rule) => rule.outcome === 'matched').length;
  const disabled = ruleset.rules.filter((rule) => rule.outcome === 'disabled').length;
  const counts = `${matched} of ${ruleset.rules.length} rules matched${disabled > 0 ? `, ${disabled} disabled` : ''}`;
  const shown = onlyNotable ? ruleset.rules.filter(isNotable) : ruleset.rules;
  return [
    `${indent}ruleset "${ruleset.name}" (${ruleset.kind}, version ${ruleset.version}): ${counts}`,
    ...shown.flatMap((rule) => ruleLines(rule, `${indent}  `)),
  ];
}

function isNotable(rule: RuleTrace): boolean {
  return rule.outcome === 'matched' || rule.outcome === 'skipped' || rule.outcome === 'invalid_expression' || rule.score_threshold !== undefined;
}

function ruleLines(rule: RuleTrace, indent: string): string[] {
  const points = rule.score !== undefined && rule.outcome === 'matched' ? ` +${rule.score}` : '';
  const lines = [`${indent}[${rule.outcome.replace(/_/g, ' ')}] ${rule.action}${points} ${label(rule)}${rule.note ? `: ${rule.note}` : ''}`];
  const execution = rule.execution;
  if (execution) {
    if (execution.ruleset) lines.push(...rulesetLines(execution.ruleset, `${indent}    `, true));
    else lines.push(`${indent}    ${execution.note ?? 'nothing ran'}`);
  }
  return lines;
}

/** The rule's ref and description (managed rules often start the description with the ref), else its id. */
function label(rule: { id: string; ref: string; description: string }): string {
  const ref = rule.ref === rule.id || rule.description.startsWith(rule.ref) ? '' : rule.ref;
  return [ref, rule.description].filter((part) => part !== '').join(' ') || rule.id;
}

function owaspLines(result: SimulationResult): string[] {
  if (result.owasp === null) return ['OWASP threat score: the OWASP core ruleset did not run'];
  const owasp = result.owasp.score;
  return [
    `OWASP threat score: ${owasp.total}${owasp.paranoia_level === null ? '' : ` at paranoia level ${owasp.paranoia_level}`}, ${thresholdText(owasp)}: ${
      owasp.exceeded ? `exceeded, action ${owasp.action}${owasp.threshold_rule_enabled ? '' : ' (but its rule is disabled)'}` : 'not exceeded'
    }`,
    ...owasp.contributions.map((c) => `  +${c.score} ${label({ id: c.rule_id, ref: c.ref, description: c.description })}`),
  ];
}

function thresholdText(score: ScoreTrace): string {
  return `threshold ${score.threshold}${score.threshold_overridden ? ` (overridden; default ${score.default_threshold})` : ' (default)'}`;
}

function outcomeLine(result: SimulationResult): string {
  const { outcome } = result;
  const status = outcome.status === null ? 'status unknown: no response described' : `status ${outcome.status}`;
  if (outcome.action === null || outcome.rule === null) return `Outcome: no rule ended the request (${status})`;
  const rule = outcome.rule;
  return `Outcome: ${outcome.action} (${status}) by rule ${rule.rule_id} "${rule.description || rule.ref}" of ruleset "${rule.ruleset_name}" in ${rule.phase}`;
}

function logLines(result: SimulationResult): string[] {
  const { custom_fields: custom, entries } = result.log;
  const lines = [
    '',
    `Custom log fields: ${custom.configured.length === 0 ? 'none configured' : custom.configured.map((field) => `${field.name} (${field.kind.replace('_', ' ')})`).join(', ')}`,
  ];
  if (custom.truncated.length > 0) lines.push(`  truncated to 8 KB: ${custom.truncated.join(', ')}`);
  for (const { job, entry, unavailable } of entries) {
    lines.push(`Log entry of job ${job.id}${job.name ? ` "${job.name}"` : ''}${job.enabled ? '' : ' (disabled)'}:`);
    for (const [name, value] of Object.entries(entry)) lines.push(`  ${name}: ${JSON.stringify(value)}`);
    if (unavailable.length > 0) lines.push(`  (not known to a simulation: ${unavailable.join(', ')})`);
  }
  return lines;
}
