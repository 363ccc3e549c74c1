import { validate } from '../../filter';
import type { Handlers } from '../http/operations';

/** A failed filter validation: answered with the special envelope (`messages: null`, message only). */
export class FilterValidationFailure extends Error {}

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
