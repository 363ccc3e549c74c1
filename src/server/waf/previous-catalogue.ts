import type { PreviousWafPackage } from '../../store';

/**
 * The groups and rules of the previous WAF's two packages. They are the platform's, the same in
 * every zone (only a zone's package ids differ): a zone keeps nothing but the modes it changed
 * from these defaults (`PreviousWafOverride`). Ids are the ones the fixtures and the examples use.
 */
export type DetectionMode = PreviousWafPackage['detection_mode'];

export interface CatalogueRule {
  id: string;
  description: string;
  /** The order the rules run in within their package, as the real service shows it: a numeric string. */
  priority: string;
  /** Traditional (managed package) rules only: the action the rule takes in mode `default`. */
  default_mode?: 'block' | 'challenge' | 'simulate';
}

export interface CatalogueGroup {
  id: string;
  name: string;
  description: string;
  rules: readonly CatalogueRule[];
}

/** Modes a group can take, in either package. */
export const GROUP_MODES = ['on', 'off'] as const;
/** Modes a rule can take: OWASP (anomaly) rules are on or off; managed (traditional) rules choose an action. */
export const RULE_MODES: Record<DetectionMode, readonly string[]> = {
  anomaly: ['on', 'off'],
  traditional: ['default', 'disable', 'simulate', 'block', 'challenge'],
};
/** The mode of a rule or group nobody changed. */
export const DEFAULT_RULE_MODE: Record<DetectionMode, string> = { anomaly: 'on', traditional: 'default' };
export const DEFAULT_GROUP_MODE = 'on';

const OWASP_GROUPS: readonly CatalogueGroup[] = [
  {
    id: '3e1c5fbef05e2cbf06facf65515a66d3',
    name: 'OWASP Protocol Violations',
    description: 'Requests that break the HTTP protocol or leave out headers every browser sends.',
    rules: [
      { id: '960011', description: 'GET or HEAD Request with Body Content', priority: '10' },
      { id: '960015', description: 'Request Missing an Accept Header', priority: '11' },
    ],
  },
  {
    id: '2c0bac458b866173ff63751314de216a',
    name: 'OWASP SQL Injection Attacks',
    description: 'SQL injection attempts in the request.',
    rules: [
      { id: '950901', description: 'SQL Injection Attack: Common Injection Testing Detected', priority: '20' },
      { id: '959073', description: 'SQL Injection Attack', priority: '21' },
      { id: '981176', description: 'Inbound Anomaly Score Exceeded (SQLi)', priority: '22' },
    ],
  },
  {
    id: 'bce73ee49082c71ef00733b29d7edd2c',
    name: 'OWASP XSS Attacks',
    description: 'Cross-site scripting attempts in the request.',
    rules: [
      { id: '958052', description: 'Cross-site Scripting (XSS) Attack', priority: '30' },
      { id: '973300', description: 'Possible XSS Attack Detected - HTML Tag Handler', priority: '31' },
    ],
  },
  {
    id: 'a4606305d8d9974b35368e9f59b6dcca',
    name: 'OWASP Bad Robots',
    description: 'Security scanners and misbehaving robots.',
    rules: [{ id: '990002', description: 'Request Indicates a Security Scanner Scanned the Site', priority: '40' }],
  },
];

const MANAGED_GROUPS: readonly CatalogueGroup[] = [
  {
    id: '650fb83bbf2b730517f1c6dee63709f3',
    name: 'Platform Specials',
    description: 'Rules against attacks the platform sees across many sites.',
    rules: [
      { id: '100015', description: 'Block requests with suspicious Content-Type', priority: '5', default_mode: 'block' },
      { id: '100016', description: 'Version Control - Information Disclosure', priority: '6', default_mode: 'challenge' },
    ],
  },
  {
    id: '9683b9f8ed9a2cc551e4832d2da8be95',
    name: 'Drupal',
    description: 'Known vulnerabilities of Drupal.',
    rules: [
      { id: '100004', description: 'Drupal - Code Execution - CVE:2018-7600', priority: '15', default_mode: 'block' },
      { id: '100005', description: 'Drupal - Dangerous File Upload', priority: '16', default_mode: 'simulate' },
    ],
  },
  {
    id: '1317234c67dcd15af2989df18be9ca75',
    name: 'WordPress',
    description: 'Known vulnerabilities of WordPress.',
    rules: [{ id: '100000', description: 'WordPress - Dangerous File Upload', priority: '25', default_mode: 'block' }],
  },
];

/** The groups of a package, by its detection mode. */
export function catalogueGroups(mode: DetectionMode): readonly CatalogueGroup[] {
  return mode === 'anomaly' ? OWASP_GROUPS : MANAGED_GROUPS;
}
