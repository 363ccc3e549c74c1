/**
 * Ruleset versions compiled for evaluation: each rule's expression parsed and compiled once. A
 * stored version never changes (every write makes a new one), so a version is compiled once per
 * process and shared by every zone that runs it (the OWASP ruleset by all of them).
 */
import { type CompiledFilter, compile, validate } from '../filter';
import { LruMap } from '../in-place-caches';
import type { Rule, Ruleset } from '../store';

export interface CompiledRule {
  readonly rule: Rule;
  /** The compiled expression; null when the stored expression cannot be compiled (see `problem`). */
  readonly filter: CompiledFilter | null;
  /** Why the expression cannot be evaluated (a stored expression this engine refuses). */
  readonly problem: string | null;
}

export interface CompiledRuleset {
  readonly id: string;
  readonly name: string;
  /** `root` (account entry point), `zone` (zone entry point), `managed` or `custom`. */
  readonly kind: string;
  readonly phase: string;
  readonly version: string;
  readonly rules: readonly CompiledRule[];
}

/** Ruleset versions to keep compiled: every entry point of a few dozen zones, and the managed rulesets. */
const VERSIONS_KEPT = 512;
/** Expressions to keep compiled: the same expression in several rulesets (or versions) compiles once. */
const EXPRESSIONS_KEPT = 8192;

export class RulesetCompiler {
  readonly #versions = new LruMap<string, CompiledRuleset>(VERSIONS_KEPT);
  readonly #expressions = new LruMap<string, CompiledFilter | string>(EXPRESSIONS_KEPT);

  /** The ruleset at its version, compiled (once per version). */
  ruleset(ruleset: Ruleset): CompiledRuleset {
    const key = `${ruleset.id}@${ruleset.version}`;
    let compiled = this.#versions.get(key);
    if (compiled === undefined) {
      compiled = Object.freeze({
        id: ruleset.id,
        name: ruleset.name,
        kind: ruleset.kind,
        phase: ruleset.phase,
        version: ruleset.version,
        rules: Object.freeze(ruleset.rules.map((rule) => this.#rule(rule))),
      });
      this.#versions.set(key, compiled);
    }
    return compiled;
  }

  #rule(rule: Rule): CompiledRule {
    let filter = this.#expressions.get(rule.expression);
    if (filter === undefined) {
      const checked = validate(rule.expression);
      filter = checked.ok ? compile(checked.ast) : checked.error.message;
      this.#expressions.set(rule.expression, filter);
    }
    return Object.freeze(typeof filter === 'string' ? { rule, filter: null, problem: filter } : { rule, filter, problem: null });
  }
}
