/**
 * Value expressions: a field, or a function call, followed by any number of
 * index steps (`[0]`, `["key"]`, `[*]`). Types are checked as each step is read.
 */
import type { FieldRef, IndexStep, ValueExpr } from './ast';
import { type ArgumentParser, parseCall } from './calls';
import { type Cursor, isIdentifierChar } from './cursor';
import { FilterError } from './errors';
import { binaryToUtf8Strict } from './bytes';
import { lexInt } from './literals/integers';
import { lexStringLiteral } from './literals/strings';
import { FIELDS, FUNCTIONS } from './scheme';
import { type FilterType, elementType, isArray, isMap, typeName } from './types';

const MAX_ARRAY_INDEX = 2n ** 32n - 1n;

/** The dotted name at the cursor, without consuming it ('' when there is none). */
export function peekIdentifier(c: Cursor): string {
  return c.peekWhile((ch) => isIdentifierChar(ch) || ch === '.');
}

function lexIdentifier(c: Cursor): string {
  const start = c.pos;
  do {
    if (c.takeWhile(isIdentifierChar) === '') c.failRest('expected identifier character');
  } while (c.eat('.'));
  return c.slice(start);
}

function lexIndexStep(c: Cursor): IndexStep {
  if (c.eat('*')) return { kind: 'each' };
  if (c.peek() === '"') {
    const literal = lexStringLiteral(c);
    const key = binaryToUtf8Strict(literal.value);
    if (key === undefined) c.fail(literal.span.start, literal.span.end, 'expected utf8 string');
    return { kind: 'key', key };
  }
  const start = c.pos;
  let position: bigint;
  try {
    position = lexInt(c).value;
  } catch (error) {
    if (!(error instanceof FilterError)) throw error;
    return c.failRest('expected quoted utf8 string or positive integer', start);
  }
  if (position < 0n || position > MAX_ARRAY_INDEX) c.fail(start, c.pos, 'expected positive integer as index');
  return { kind: 'element', position: Number(position) };
}

/** The engine's debug spelling of an index step, used in its error text. */
function stepName(step: IndexStep): string {
  if (step.kind === 'each') return 'MapEach';
  if (step.kind === 'element') return `ArrayIndex(${step.position})`;
  return `MapKey(${JSON.stringify(step.key)})`;
}

function steppedType(type: FilterType, step: IndexStep): FilterType | undefined {
  if (step.kind === 'element') return isArray(type) ? type.array : undefined;
  if (step.kind === 'key') return isMap(type) ? type.map : undefined;
  return elementType(type);
}

function parseIndexes(c: Cursor, value: ValueExpr): ValueExpr {
  let node = value;
  while (c.peek() === '[') {
    const open = c.pos;
    c.pos++;
    const step = lexIndexStep(c);
    c.expect(']');
    const type = steppedType(node.type, step);
    if (type === undefined) c.fail(open, c.pos, `cannot access index ${stepName(step)} for type ${typeName(node.type)}`);
    if (step.kind === 'each' && node.mapped) c.fail(open, c.pos, 'invalid use of map each access operator');
    node = {
      kind: 'index',
      target: node,
      step,
      type,
      mapped: node.mapped || step.kind === 'each',
      span: { start: node.span.start, end: c.pos },
    };
  }
  return node;
}

export function parseValue(c: Cursor, depth: number, parseArgument: ArgumentParser): ValueExpr {
  const start = c.pos;
  const name = lexIdentifier(c);
  const field = FIELDS.get(name);
  if (field) {
    const ref: FieldRef = { kind: 'field', name, type: field.type, mapped: false, span: { start, end: c.pos } };
    return parseIndexes(c, ref);
  }
  const fn = FUNCTIONS.get(name);
  // `any` and `all` are quantifiers of the grammar, read where a condition starts.
  if (!fn || name === 'any' || name === 'all') return c.fail(start, c.pos, 'unknown identifier');
  return parseIndexes(c, parseCall(c, depth, fn, start, parseArgument));
}
