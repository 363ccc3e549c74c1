/**
 * Rulesets and their versions: the repository, the per-transaction claims that move a ruleset
 * to its next version once, the version snapshots kept at commit, the store's version cache and
 * the platform's managed rulesets read once, and the row codecs. The rest of the store reaches
 * them only through this seam.
 */
export { rulesetRepository } from './repository';
export { insertSeedRuleset } from './seed';
export { RulesetCaches } from './version-cache';
