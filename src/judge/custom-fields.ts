/**
 * The zone's custom log fields, from its `http_log_custom_fields` entry point, with the spec's
 * limit: at most 40 fields are logged (the server refuses more in one rule; rules written
 * otherwise, or several rules, are cut to the first 40).
 */
import type { Ruleset } from '../store';
import type { CustomFieldKind } from './trace';

export const MAX_CUSTOM_FIELDS = 40;

const PARAMETERS: readonly [string, CustomFieldKind][] = [
  ['request_fields', 'request_header'],
  ['response_fields', 'response_header'],
  ['cookie_fields', 'cookie'],
];

export interface CustomField {
  kind: CustomFieldKind;
  name: string;
}

export interface CustomFieldConfig {
  /** The zone's http_log_custom_fields entry point, if any. */
  ruleset_id: string | null;
  /** Logged fields, in configuration order (at most 40). */
  configured: CustomField[];
  /** Fields configured beyond the 40th: never logged. */
  ignored: CustomField[];
}

export function customFieldsOf(ruleset: Ruleset | null): CustomFieldConfig {
  const fields: CustomField[] = [];
  const seen = new Set<string>();
  for (const rule of ruleset?.rules ?? []) {
    if (!rule.enabled || rule.action !== 'log_custom_field') continue;
    for (const [parameter, kind] of PARAMETERS) {
      const list = rule.action_parameters?.[parameter];
      for (const item of Array.isArray(list) ? list : []) {
        const name = (item as { name?: unknown }).name;
        if (typeof name !== 'string' || seen.has(`${kind}:${name}`)) continue;
        seen.add(`${kind}:${name}`);
        fields.push({ kind, name });
      }
    }
  }
  return { ruleset_id: ruleset?.id ?? null, configured: fields.slice(0, MAX_CUSTOM_FIELDS), ignored: fields.slice(MAX_CUSTOM_FIELDS) };
}
