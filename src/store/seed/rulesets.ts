import { inBatches, toJson } from '../codecs';
import { fieldColumns, toRule, toSummary } from '../rulesets/rows';
import type { WriteContext } from '../transaction/context';
import type { Ruleset } from '../types';
import type { SeedRule, SeedRuleset } from './schema';

/** A seeded ruleset at its current version, plus a snapshot of every version the file gives. */
export async function insertSeedRuleset(
  ctx: WriteContext,
  ruleset: SeedRuleset,
  owner: { account_id: string | null; zone_id: string | null },
): Promise<void> {
  const { rules, previous_versions: previous = [], ...header } = ruleset;
  const headerRow = { ...header, ...owner, source: header.source ?? null, version: Number(header.version) };
  await ctx.db.insertInto('rulesets').values(headerRow).execute();
  for (const batch of inBatches([...rules.entries()])) {
    await ctx.db
      .insertInto('rules')
      .values(batch.map(([position, rule]) => ruleRow(ruleset.id, position, rule)))
      .execute();
  }
  const versions = [...previous, { version: ruleset.version, last_updated: ruleset.last_updated, rules }];
  for (const entry of versions) {
    // Shaped exactly as the store reads rulesets back, so every version compares equal to a live read.
    const snapshot: Ruleset = {
      ...toSummary({ ...headerRow, version: Number(entry.version), last_updated: entry.last_updated }),
      rules: entry.rules.map((rule, position) => toRule(ruleRow(ruleset.id, position, rule))),
    };
    await ctx.db
      .insertInto('ruleset_versions')
      .values({
        ruleset_id: ruleset.id,
        version: Number(entry.version),
        last_updated: entry.last_updated,
        snapshot: toJson(snapshot),
      })
      .execute();
  }
}

function ruleRow(rulesetId: string, position: number, rule: SeedRule) {
  return {
    ruleset_id: rulesetId,
    id: rule.id,
    position,
    version: Number(rule.version),
    last_updated: rule.last_updated,
    ...fieldColumns(rule),
  };
}
