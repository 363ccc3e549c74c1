/** Errors the simulator raises on purpose; anything else escaping it is a bug or a store failure. */
export abstract class SimulationError extends Error {
  abstract readonly code: string;
  override get name(): string {
    return this.constructor.name;
  }
}

/** The zone named does not exist in the store. */
export class UnknownZoneError extends SimulationError {
  readonly code = 'unknown_zone';
  constructor(readonly zoneId: string) {
    super(`zone ${zoneId} not found`);
  }
}

/** One problem with a request description: where (`headers.accept`) and what. */
export interface DescriptionIssue {
  readonly path: string;
  readonly message: string;
}

/** The request description is not one the simulator can build a request from. */
export class InvalidRequestDescriptionError extends SimulationError {
  readonly code = 'invalid_request_description';
  constructor(readonly issues: readonly DescriptionIssue[]) {
    super(`invalid request description: ${issues.map(describeIssue).join('; ')}`);
  }
}

export function describeIssue(issue: DescriptionIssue): string {
  return issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`;
}
