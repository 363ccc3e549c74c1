/**
 * Function calls: arity, argument kind (literal or not), argument type and
 * literal values are checked against the scheme's function table as each
 * argument is read. `[*]` is accepted in the first argument only; a call whose
 * first argument goes through `[*]` runs once per element and its value is the
 * array of the results (`lower(names[*])` is an `Array(Bytes)`), which can be
 * indexed again (`lower(names[*])[*] == "a"`), as in the engine.
 */
import { type Argument, type FunctionCall, isLiteral, type Cursor, type FunctionInfo, paramAt, type FilterType, typeName } from '../language';
import { literalArgumentProblem } from './function-literals';
import { enterLevel } from './nesting';
import { isMapped } from './mapping';

export type ArgumentParser = (c: Cursor, depth: number) => Argument;

function argumentType(arg: Argument): FilterType {
  if (arg.kind === 'bytes') return 'Bytes';
  if (arg.kind === 'int') return 'Int';
  if (arg.kind === 'ip') return 'Ip';
  return arg.type;
}

function checkArgument(c: Cursor, fn: FunctionInfo, index: number, arg: Argument, earlier: readonly Argument[]): void {
  const param = paramAt(fn, index);
  if (!param) return;
  const { start, end } = arg.span;
  const literal = isLiteral(arg);
  if (param.kind === 'field' && literal) {
    c.fail(start, end, `invalid kind of argument #${index}: expected argument of kind Field, but got Literal`);
  }
  if (param.kind === 'literal' && !literal) {
    c.fail(start, end, `invalid kind of argument #${index}: expected argument of kind Literal, but got Field`);
  }
  const type = argumentType(arg);
  const earlierTypes = earlier.map(argumentType);
  if (!param.type.accepts(type, earlierTypes)) {
    const expected = param.type.describe(earlierTypes);
    c.fail(start, end, `invalid type of argument #${index}: expected value of type ${expected}, but got ${typeName(type)}`);
  }
  if (!literal || arg.kind === 'ip') return;
  if (param.range && arg.kind === 'int') {
    const [low, high] = param.range;
    if (arg.value < BigInt(low) || arg.value > BigInt(high)) {
      c.fail(start, end, `invalid value of argument #${index}: expected an integer from ${low} to ${high}`);
    }
  }
  const problem = literalArgumentProblem(fn.name, index, arg, earlier);
  if (problem !== undefined) c.fail(start, end, `invalid value of argument #${index}: ${problem}`);
}

/** Reads `( arg, arg, ... )` after a function's name; the cursor is just past the name. */
export function parseArguments<T extends Argument>(
  c: Cursor,
  depth: number,
  fn: FunctionInfo,
  nameStart: number,
  parseArgument: (c: Cursor, depth: number) => T,
): T[] {
  c.skipSpace();
  // The engine counts the level from the opening parenthesis on.
  const inner = enterLevel(c, depth, c.pos, c.end);
  c.expect('(');
  c.skipSpace();
  const args: T[] = [];
  while (!c.atEnd && c.peek() !== ')') {
    if (args.length > 0) {
      c.expect(',');
      c.skipSpace();
    }
    const argStart = c.pos;
    const arg = parseArgument(c, inner);
    if (args.length > 0 && isMapped(arg)) c.fail(argStart, c.pos, 'invalid use of map each access operator');
    if (fn.maxArgs !== undefined && args.length >= fn.maxArgs) c.failRest('invalid number of arguments', argStart);
    checkArgument(c, fn, args.length, arg, args);
    args.push(arg);
    c.skipSpace();
  }
  if (args.length < fn.minArgs) c.failRest('invalid number of arguments');
  c.expect(')');
  return args;
}

export function parseCall(
  c: Cursor,
  depth: number,
  fn: FunctionInfo,
  nameStart: number,
  parseArgument: ArgumentParser,
): FunctionCall {
  const args = parseArguments(c, depth, fn, nameStart, parseArgument);
  const first = args[0];
  const returned = fn.returnType(args.map(argumentType));
  return {
    kind: 'call',
    name: fn.name,
    args,
    type: first !== undefined && isMapped(first) ? { array: returned } : returned,
    mapped: false,
    span: { start: nameStart, end: c.pos },
  };
}
