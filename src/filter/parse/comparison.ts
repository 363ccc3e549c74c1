/**
 * A condition on one value: the value alone when it is Boolean (or an array of
 * Booleans), otherwise an operator allowed for its type and a right-hand
 * literal read by that type. Arrays and maps take no operator: they must be
 * indexed first (`lower(names[*])[*] == "a"`, not `lower(names[*]) == "a"`).
 */
import { type Comparison, type ComparisonOp, type Operation, type Truth, type ValueExpr, type Cursor, lexComparisonOp, operatorAllowed, BOOL_ARRAY, type FilterType, elementType, typeName } from '../language';
import { lexInt, lexIntSetItem, lexIpAddress, lexIpSetItem, lexRegex, lexSetOrList, lexBytesLiteral, lexStringLiteral, wildcardProblem } from '../literals';

function lexWildcard(c: Cursor) {
  const literal = lexStringLiteral(c);
  const problem = wildcardProblem(literal.value);
  if (problem !== undefined) c.fail(literal.span.start, literal.span.end, problem);
  return literal;
}

/** Reads the right side; `operatorAllowed` has already paired the operator with the type. */
function lexRhs(c: Cursor, type: FilterType, op: ComparisonOp): Operation {
  switch (op) {
    case 'in':
      return { op, rhs: lexSetOrList(c, type === 'Int' ? lexIntSetItem : type === 'Ip' ? lexIpSetItem : lexBytesLiteral) };
    case 'matches':
      return { op, rhs: lexRegex(c) };
    case 'wildcard':
    case 'strict wildcard':
      return { op, rhs: lexWildcard(c) };
    case 'contains':
      return { op, rhs: lexBytesLiteral(c) };
    case 'bitwise_and':
      return { op, rhs: lexInt(c) };
    default:
      return { op, rhs: type === 'Int' ? lexInt(c) : type === 'Ip' ? lexIpAddress(c) : lexBytesLiteral(c) };
  }
}

export function parseComparison(c: Cursor, lhs: ValueExpr): Comparison | Truth {
  const type = lhs.mapped ? BOOL_ARRAY : 'Bool';
  if (lhs.type === 'Bool') return { kind: 'truth', value: lhs, type, span: lhs.span };
  if (elementType(lhs.type) === 'Bool') {
    // An array of Booleans is a condition per element, unless it is mapped: that
    // would be an array of arrays, which nothing folds.
    if (lhs.mapped) c.fail(c.pos, c.pos, `cannot perform this operation on type ${typeName({ array: BOOL_ARRAY })}`);
    return { kind: 'truth', value: lhs, type: lhs.type, span: lhs.span };
  }
  c.skipSpace();
  const opStart = c.pos;
  const op = lexComparisonOp(c);
  if (op === undefined) return c.failRest('expected ComparisonOp');
  if (!operatorAllowed(lhs.type, op)) {
    c.fail(opStart, c.pos, `cannot perform this operation on type ${typeName(lhs.type)}`);
  }
  c.skipSpace();
  const opAndRhs = lexRhs(c, lhs.type, op);
  return { kind: 'comparison', lhs, type, span: { start: lhs.span.start, end: c.pos }, ...opAndRhs };
}
