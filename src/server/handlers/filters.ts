import { validate } from '../../filter';
import { ApiError, type ErrorEnvelope } from '../http/errors';
import type { Handlers } from '../operations';

/**
 * A failed filter validation, answered exactly as the real service answers it: 400, the one
 * error carrying only its message (no code), `messages` null.
 */
class FilterValidationFailure extends ApiError {
  constructor(readonly detail: string) {
    super(400, []);
    this.message = detail;
  }

  override envelope(): ErrorEnvelope {
    return { result: null, success: false, errors: [{ message: this.detail }], messages: null };
  }
}

function check(expression: string): { result: null } {
  const outcome = validate(expression);
  if (!outcome.ok) throw new FilterValidationFailure(outcome.error.message);
  return { result: null };
}

export const filterHandlers: Pick<Handlers, 'validateFilterExpression' | 'validateFilterExpressionByQuery'> = {
  async validateFilterExpression(context) {
    return check(context.body.expression);
  },
  async validateFilterExpressionByQuery(context) {
    return check(context.query.expression);
  },
};
