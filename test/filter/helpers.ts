import { type Expression, format } from '../../src/filter/index';

/**
 * The grouping of a parsed condition as an S-expression, with each comparison
 * printed by `format` inside `<...>`: `(or <ssl> (and <a eq 1> <b>))`.
 */
export function shape(node: Expression): string {
  switch (node.kind) {
    case 'logical':
      return `(${node.op} ${node.operands.map(shape).join(' ')})`;
    case 'not':
      return `(not ${shape(node.operand)})`;
    case 'group':
      return `(paren ${shape(node.inner)})`;
    case 'quantifier':
      return `(${node.name} ${shape(node.operand)})`;
    default:
      return `<${format(node)}>`;
  }
}

/** The tree without source positions, for comparing trees parsed from different texts. */
export function withoutSpans(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSpans);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'span')
      .map(([key, inner]) => [key, withoutSpans(inner)]),
  );
}
