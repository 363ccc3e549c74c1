/** Rules that cannot be used: every problem found, each naming the rule and the field. */
export class FaultRulesError extends Error {
  override readonly name = 'FaultRulesError';

  constructor(
    /** Where the rules came from (a file, or the control endpoint's body). */
    readonly source: string,
    readonly problems: readonly string[],
  ) {
    super(problems.length === 1 ? `${source}: ${problems[0]}` : `${source}:\n  ${problems.join('\n  ')}`);
  }
}
