/**
 * The zone's custom log fields (its `http_log_custom_fields` entry point) and their values for
 * one request, with the limits of the spec: at most 40 fields, only the first instance of a
 * repeated header (or cookie), values over 8 KB truncated.
 */
import type { Store } from '../store';
import type { HeaderLine, SimulatedRequest, SimulatedResponse } from './request';
import { truncateUtf8 } from './text';
import type { CustomFieldKind, CustomFieldsTrace } from './types';

export const MAX_CUSTOM_FIELDS = 40;
/** 8 KB: a longer value is cut to this many bytes of UTF-8. */
export const MAX_CUSTOM_FIELD_BYTES = 8192;

const PARAMETERS: readonly [string, CustomFieldKind][] = [
  ['request_fields', 'request_header'],
  ['response_fields', 'response_header'],
  ['cookie_fields', 'cookie'],
];

export type CustomFieldConfig = Omit<CustomFieldsTrace, 'truncated'>;

export async function readCustomFields(store: Store, zoneId: string): Promise<CustomFieldConfig> {
  const ruleset = await store.rulesets.getEntryPoint({ zone_id: zoneId }, 'http_log_custom_fields');
  const fields: { kind: CustomFieldKind; name: string }[] = [];
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

export interface CustomFieldValues {
  RequestHeaders: Record<string, string>;
  ResponseHeaders: Record<string, string>;
  Cookies: Record<string, string>;
  truncated: string[];
}

/**
 * Values of the configured fields that the request (and the response, when the request reached
 * the origin) carries; absent headers and cookies are left out.
 */
export function customFieldValues(config: CustomFieldConfig, request: SimulatedRequest, response: SimulatedResponse | undefined): CustomFieldValues {
  const values: CustomFieldValues = { RequestHeaders: {}, ResponseHeaders: {}, Cookies: {}, truncated: [] };
  const groups = {
    request_header: ['RequestHeaders', (name: string) => firstHeader(request.headers, name)],
    response_header: ['ResponseHeaders', (name: string) => (response ? firstHeader(response.headers, name) : undefined)],
    cookie: ['Cookies', (name: string) => request.cookies.find(([cookie]) => cookie === name)?.[1]],
  } as const;
  for (const { kind, name } of config.configured) {
    const [group, lookup] = groups[kind];
    const value = lookup(name);
    if (value === undefined) continue;
    const logged = truncateUtf8(value, MAX_CUSTOM_FIELD_BYTES);
    if (logged !== value) values.truncated.push(`${group}.${name}`);
    values[group][name] = logged;
  }
  return values;
}

/** Header names are configured in lower case and match the request's in any case. */
function firstHeader(headers: readonly HeaderLine[], name: string): string | undefined {
  return headers.find(([header]) => header.toLowerCase() === name)?.[1];
}
