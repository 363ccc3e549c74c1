/**
 * Conditions: `simple (op simple)*` with `and` tighter than `xor` tighter than
 * `or`, where a simple condition is `( ... )`, `not simple`, `any(...)`,
 * `all(...)` or a comparison. Operator chains are read in a loop with an
 * operator stack (no recursion per operand), and a chain of one operator
 * becomes one n-ary node. Function arguments live here too, since an argument
 * may itself be a condition.
 */
import { type Argument, type Expression, type Logical, type LogicalOp, type Quantifier, isExpression, isLiteral, type Cursor, isHexDigit, isIdentifierChar, FilterError, PRECEDENCE, lexComparisonOp, lexLogicalOp, lexNot, startsWithNot, BOOL_ARRAY, type FilterType, isArray, sameType, typeName } from '../language';
import { parseComparison } from './comparison';
import { lexInt, lexIpAddress, lexBytesLiteral, lexStringLiteral } from '../literals';
import { enterLevel } from './nesting';
import { parseValue, peekIdentifier } from './values';

/** Both sides Bool, or both arrays; like the engine, a mismatch is reported where reading stopped, after the right side. */
function combine(c: Cursor, op: LogicalOp, left: Expression, right: Expression): Logical {
  const bothArrays = isArray(left.type) && isArray(right.type);
  if (!bothArrays && !(left.type === 'Bool' && right.type === 'Bool')) {
    c.failRest(`expected value of type ${typeName(left.type)}, but got ${typeName(right.type)}`);
  }
  const span = { start: left.span.start, end: right.span.end };
  if (left.kind === 'logical' && left.op === op) {
    // `left` was built by this parse and is not shared yet, so extending it in place is safe.
    (left.operands as Expression[]).push(right);
    return { ...left, span };
  }
  return { kind: 'logical', op, operands: [left, right], type: left.type, span };
}

/** The one operand of `any`/`all` must be an array of Booleans. */
function quantifierOperand(c: Cursor, arg: Argument): Expression {
  const type: FilterType = arg.kind === 'bytes' ? 'Bytes' : arg.kind === 'int' ? 'Int' : arg.kind === 'ip' ? 'Ip' : arg.type;
  if (!sameType(type, BOOL_ARRAY)) c.fail(arg.span.start, arg.span.end, `expected value of type Array(Bool), but got ${typeName(type)}`);
  if (isExpression(arg)) return arg;
  if (isLiteral(arg)) throw new Error('a literal passed the Array(Bool) check');
  return { kind: 'truth', value: arg, type: arg.type, span: arg.span };
}

/**
 * `any(x)` / `all(x)`: one argument, read like a function argument (so a
 * condition joined with `or` needs its own parentheses), folded to one Boolean.
 */
function parseQuantifier(c: Cursor, depth: number, name: 'any' | 'all'): Quantifier {
  const start = c.pos;
  c.pos += name.length;
  c.skipSpace();
  const inner = enterLevel(c, depth, c.pos, c.end);
  c.expect('(');
  c.skipSpace();
  const operand = quantifierOperand(c, parseArgument(c, inner));
  c.skipSpace();
  c.expect(')');
  return { kind: 'quantifier', name, operand, type: 'Bool', span: { start, end: c.pos } };
}

/** `any` or `all` when followed by `(` (spaces allowed between), as the engine reads a quantifier. */
function peekQuantifier(c: Cursor): 'any' | 'all' | undefined {
  const name = peekIdentifier(c);
  if (name !== 'any' && name !== 'all') return undefined;
  let at = c.pos + name.length;
  while (at < c.end && /[ \r\n]/.test(c.source[at] ?? '')) at++;
  return c.source[at] === '(' && at < c.end ? name : undefined;
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
  const quantifier = peekQuantifier(c);
  if (quantifier) return parseQuantifier(c, depth, quantifier);
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

function followedByOperator(c: Cursor): boolean {
  const start = c.pos;
  c.skipSpace();
  const found = lexComparisonOp(c) !== undefined;
  c.pos = start;
  return found;
}

const isNameChar = (ch: string): boolean => isIdentifierChar(ch) && ch !== '';
/** A letter past `f` or `_`: no number or byte string starts with it. */
const isFieldOnly = (ch: string): boolean => isNameChar(ch) && !isHexDigit(ch);

/** The engine's look at the first three characters: certainly a name, not a number or byte string. */
function looksLikeName(c: Cursor): boolean {
  const [a, b, d] = [c.peek(), c.peek(1), c.peek(2)];
  return isFieldOnly(a) || (isNameChar(a) && isFieldOnly(b)) || (isNameChar(a) && isNameChar(b) && isFieldOnly(d));
}

/** Runs `read`, or rewinds and answers undefined when it refuses the input. */
function attempt<T>(c: Cursor, read: () => T): T | undefined {
  const start = c.pos;
  try {
    return read();
  } catch (error) {
    if (!(error instanceof FilterError)) throw error;
    c.pos = start;
    return undefined;
  }
}

function parseArgument(c: Cursor, depth: number): Argument {
  const first = c.peek();
  const second = c.peek(1);
  if (first === '"' || (first === 'r' && (second === '"' || second === '#'))) return lexStringLiteral(c);
  if (first === '(' || startsWithNot(c) || peekQuantifier(c)) return parseLogical(c, depth);
  const valueOrComparison = (): Argument => {
    const value = parseValue(c, depth, parseArgument);
    return followedByOperator(c) ? parseComparison(c, value) : value;
  };
  if (looksLikeName(c)) return valueOrComparison();
  // Otherwise the engine tries a value, an address, a number, then a byte string, and
  // reports anything else as unrecognised at the argument's start.
  const start = c.pos;
  const found =
    attempt(c, valueOrComparison) ?? attempt(c, () => lexIpAddress(c)) ?? attempt(c, () => lexInt(c)) ?? attempt(c, () => lexBytesLiteral(c));
  return found ?? c.failRest('unrecognised input', start);
}
