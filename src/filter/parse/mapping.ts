/** Whether an argument or value goes through `[*]`, so that it stands for each element in turn. */
import { type Argument, isExpression, isLiteral } from '../language';

export function isMapped(arg: Argument): boolean {
  return !isLiteral(arg) && !isExpression(arg) && arg.mapped;
}
