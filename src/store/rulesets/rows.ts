import type { Selectable } from 'kysely';
import { canonicalJson, fromFlag, fromJson, toFlag, toJson } from '../codecs';
import type { RulesTable, RulesetsTable } from '../schema/tables';
import type { Rule, RuleFields, RuleInput, RulePatch, Ruleset, RulesetSummary } from '../types';

/*
 * Row codecs of rulesets and rules: the API's records from the stored rows and back. Every
 * reader (a live read, a version snapshot, the seed) decodes through here, so all versions of a
 * ruleset compare equal to a live read of it.
 */

export type RulesetRow = Selectable<RulesetsTable>;
export type RuleRow = Selectable<RulesTable>;
/** A rule's row without its position, which only orders the rules of a ruleset. */
export type StoredRule = Omit<RuleRow, 'position'>;
/** The writer-chosen columns of a rule. */
export type RuleColumns = Omit<RuleRow, 'ruleset_id' | 'id' | 'position' | 'version' | 'last_updated'>;

export function toSummary(row: RulesetRow): RulesetSummary {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    ...(row.source === null ? {} : { source: row.source }),
    kind: row.kind,
    version: String(row.version),
    last_updated: row.last_updated,
    phase: row.phase,
  };
}

export function toRule(row: StoredRule): Rule {
  return { id: row.id, version: String(row.version), ...fieldsOf(row), last_updated: row.last_updated };
}

/** A rule's stored columns (its position aside) as the database would give them, from a ruleset version at hand. */
export function storedRuleIn(ruleset: Ruleset, ruleId: string): StoredRule | undefined {
  const rule = ruleset.rules.find((candidate) => candidate.id === ruleId);
  if (rule === undefined) return undefined;
  const { id, version, last_updated, ...fields } = rule;
  return { ruleset_id: ruleset.id, id, version: Number(version), last_updated, ...fieldColumns(normalizeFields(fields)) };
}

/** The writer-chosen fields of a stored rule, optional ones only when set. */
export function fieldsOf(row: StoredRule): RuleFields {
  return normalizeFields({
    action: row.action,
    action_parameters: row.action_parameters === null ? undefined : fromJson(row.action_parameters),
    expression: row.expression,
    description: row.description,
    ref: row.ref,
    enabled: fromFlag(row.enabled),
    categories: row.categories === null ? undefined : fromJson<string[]>(row.categories),
    score: row.score ?? undefined,
    score_threshold: row.score_threshold ?? undefined,
    logging: row.logging === null ? undefined : fromJson<{ enabled: boolean }>(row.logging),
  });
}

/** A new rule's fields: defaults for what the writer left out (`ref` defaults to the rule's id). */
export function fieldsFromInput(input: RuleInput, id: string): RuleFields {
  return normalizeFields({
    action: input.action,
    action_parameters: input.action_parameters,
    expression: input.expression,
    description: input.description ?? '',
    ref: input.ref === undefined || input.ref === '' ? id : input.ref,
    enabled: input.enabled ?? true,
    categories: input.categories,
    score: input.score,
    score_threshold: input.score_threshold,
    logging: input.logging,
  });
}

/**
 * The fields with the patch applied: a member set to null is removed, one left undefined kept. A
 * new action without parameters drops the old action's parameters, which were given for it.
 */
export function applyPatch(fields: RuleFields, patch: RulePatch): RuleFields {
  const merged: Record<string, unknown> = { ...fields };
  if (patch.action !== undefined && patch.action !== fields.action && patch.action_parameters === undefined) {
    delete merged.action_parameters;
  }
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete merged[key];
    } else if (value !== undefined) {
      merged[key] = value;
    }
  }
  return normalizeFields(merged as unknown as RuleFields);
}

/** The API's key order, without undefined members. */
function normalizeFields(fields: RuleFields): RuleFields {
  return {
    action: fields.action,
    ...(fields.action_parameters === undefined ? {} : { action_parameters: fields.action_parameters }),
    expression: fields.expression,
    description: fields.description,
    ref: fields.ref,
    enabled: fields.enabled,
    ...(fields.categories === undefined ? {} : { categories: fields.categories }),
    ...(fields.score === undefined ? {} : { score: fields.score }),
    ...(fields.score_threshold === undefined ? {} : { score_threshold: fields.score_threshold }),
    ...(fields.logging === undefined ? {} : { logging: fields.logging }),
  };
}

/** Equal fields, member by member; objects (parameters, categories, logging) whatever their key order. */
export function sameFields(a: RuleFields, b: RuleFields): boolean {
  const left = a as unknown as Record<string, unknown>;
  const right = b as unknown as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => {
    const [x, y] = [left[key], right[key]];
    if (x === y) return true;
    return typeof x === 'object' && typeof y === 'object' && x !== null && y !== null && canonicalJson(x) === canonicalJson(y);
  });
}

export function fieldColumns(fields: RuleFields): RuleColumns {
  return {
    action: fields.action,
    action_parameters: fields.action_parameters === undefined ? null : toJson(fields.action_parameters),
    expression: fields.expression,
    description: fields.description,
    ref: fields.ref,
    enabled: toFlag(fields.enabled),
    categories: fields.categories === undefined ? null : toJson(fields.categories),
    score: fields.score ?? null,
    score_threshold: fields.score_threshold ?? null,
    logging: fields.logging === undefined ? null : toJson(fields.logging),
  };
}
