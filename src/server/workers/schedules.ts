/**
 * Cron triggers as the API takes them: each expression checked as the platform checks it (10100
 * naming the expression and what is wrong), each kept once, and the account's limit.
 */
import { CronExpressionError, parseCronExpression } from '../../cron-expressions';
import { badRequest } from '../http/errors';
import { WorkerCodes } from './upload';

/** The platform's limit on cron triggers, over all of an account's scripts (paid plans; free plans have 5). */
export const MAX_CRON_TRIGGERS_PER_ACCOUNT = 250;

/** The expressions, each checked and kept once in the order first sent; the first bad one is refused. */
export function checkedCrons(crons: string[]): string[] {
  for (const cron of crons) {
    try {
      parseCronExpression(cron);
    } catch (error) {
      if (error instanceof CronExpressionError) throw badRequest(`${error.message}.`, WorkerCodes.invalidCron);
      throw error;
    }
  }
  return [...new Set(crons)];
}
