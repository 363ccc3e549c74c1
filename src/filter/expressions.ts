/**
 * Conditions: `simple (op simple)*` with `and` tighter than `xor` tighter than
 * `or`, where a simple condition is `( ... )`, `not simple`, `any(...)`,
 * `all(...)` or a comparison. Operator chains are read in a loop with an
 * operator stack (no recursion per operand), and a chain of one operator
 * becomes one n-ary node. Function arguments live here too, since an argument
 * may itself be a condition.
 */
import type { Argument, Expression, Logical, LogicalOp, Quantifier } from './ast';
import { parseArguments } from './calls';
import { parseComparison } from './comparison';
import { type Cursor, isDigit } from './cursor';
import { lexInt } from './literals/integers';
import { lexBytesLiteral, lexStringLiteral } from './literals/strings';
import { enterLevel } from './nesting';
import { PRECEDENCE, lexComparisonOp, lexLogicalOp, lexNot, startsWithNot } from './operators';
import { FIELDS, FUNCTIONS } from './scheme';
import { sameType, typeName } from './types';
import { parseValue, peekIdentifier } from './values';

function combine(c: Cursor, op: LogicalOp, left: Expression, right: Expression): Logical {
  if (!sameType(left.type, right.type)) {
    c.fail(right.span.start, right.span.end, `expected value of type ${typeName(left.type)}, but got ${typeName(right.type)}`);
  }
  const span = { start: left.span.start, end: right.span.end };
  if (left.kind === 'logical' && left.op === op) {
    // `left` was built by this parse and is not shared yet, so extending it in place is safe.
    (left.operands as Expression[]).push(right);
    return { ...left, span };
  }
  return { kind: 'logical', op, operands: [left, right], type: left.type, span };
}

function parseQuantifier(c: Cursor, depth: number, name: 'any' | 'all'): Quantifier {
  const start = c.pos;
  c.pos += name.length;
  const fn = FUNCTIONS.get(name);
  if (!fn) throw new Error(`the scheme catalogue lacks the ${name} quantifier`);
  const [operand] = parseArguments(c, depth, fn, start, parseLogical);
  if (!operand) throw new Error(`the scheme catalogue lets ${name} take no argument`);
  return { kind: 'quantifier', name, operand, type: 'Bool', span: { start, end: c.pos } };
}

function parseSimple(c: Cursor, depth: number): Expression {
  const start = c.pos;
  if (c.peek() === '(') {
    const inner = enterLevel(c, depth, start, start + 1);
    c.pos++;
    c.skipSpace();
    const expr = parseLogical(c, inner);
    c.skipSpace();
    c.expect(')');
    return { kind: 'group', inner: expr, type: expr.type, span: { start, end: c.pos } };
  }
  if (lexNot(c)) {
    const inner = enterLevel(c, depth, start, c.pos);
    c.skipSpace();
    const operand = parseSimple(c, inner);
    return { kind: 'not', operand, type: operand.type, span: { start, end: c.pos } };
  }
  const name = peekIdentifier(c);
  if (name === 'any' || name === 'all') return parseQuantifier(c, depth, name);
  return parseComparison(c, parseValue(c, depth, parseArgument));
}

export function parseLogical(c: Cursor, depth: number): Expression {
  const operands: Expression[] = [parseSimple(c, depth)];
  const operators: LogicalOp[] = [];
  const reduce = (): void => {
    const op = operators.pop();
    const right = operands.pop();
    const left = operands.pop();
    if (!op || !right || !left) throw new Error('operator stack out of step with operands');
    operands.push(combine(c, op, left, right));
  };
  for (;;) {
    const beforeSpace = c.pos;
    c.skipSpace();
    const op = lexLogicalOp(c);
    if (op === undefined) {
      c.pos = beforeSpace;
      break;
    }
    c.skipSpace();
    while (operators.length > 0 && PRECEDENCE[operators[operators.length - 1] ?? op] >= PRECEDENCE[op]) reduce();
    operators.push(op);
    operands.push(parseSimple(c, depth));
  }
  while (operators.length > 0) reduce();
  const [result] = operands;
  if (!result) throw new Error('operator stack out of step with operands');
  return result;
}

const HEX_BYTES = /^[0-9a-fA-F]{2}[:.-][0-9a-fA-F]/;

function followedByOperator(c: Cursor): boolean {
  const start = c.pos;
  c.skipSpace();
  const found = lexComparisonOp(c) !== undefined;
  c.pos = start;
  return found;
}

/**
 * One function argument: a string or integer literal (or byte string), a full
 * condition when it starts with `(`, `not`, `any(` or `all(`, or a value
 * optionally followed by one comparison (`lower(http.host) == "a"` inside a call).
 */
function parseArgument(c: Cursor, depth: number): Argument {
  const first = c.peek();
  const second = c.peek(1);
  if (first === '"' || (first === 'r' && (second === '"' || second === '#'))) return lexStringLiteral(c);
  const name = peekIdentifier(c);
  if (first === '(' || startsWithNot(c) || name === 'any' || name === 'all') return parseLogical(c, depth);
  if (!FIELDS.has(name) && !FUNCTIONS.has(name)) {
    if (HEX_BYTES.test(c.source.slice(c.pos, c.pos + 4))) return lexBytesLiteral(c);
    if (first === '-' || isDigit(first)) return lexInt(c);
  }
  const value = parseValue(c, depth, parseArgument);
  return followedByOperator(c) ? parseComparison(c, value) : value;
}
