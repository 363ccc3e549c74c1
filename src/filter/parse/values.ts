/**
 * Value expressions: a field, or a function call, followed by any number of
 * index steps (`[0]`, `["key"]`, `[*]`). Types are checked as each step is read.
 * Like the engine, `[` must follow the value directly, spaces may pad the index
 * inside the brackets, and several `[*]` may follow one another: each one maps
 * over the elements the previous steps produced (the results are flattened).
 */
import { type FieldRef, type IndexStep, type ValueExpr, type Cursor, isIdentifierChar, FilterError, binaryToUtf8Strict, FIELDS, FUNCTIONS, type FilterType, elementType, isArray, isMap, typeName } from '../language';
import { type ArgumentParser, parseCall } from './calls';
import { lexInt, lexStringLiteral } from '../literals';

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

/** The engine reports bad index tokens as a missing literal named by the whole expectation, from the token on. */
function failIndex(c: Cursor, start: number, expectation: string): never {
  return c.failRest(`expected literal ${JSON.stringify(expectation)}`, start);
}

function lexIndexStep(c: Cursor): IndexStep {
  if (c.eat('*')) return { kind: 'each' };
  const start = c.pos;
  if (c.peek() === '"') {
    const key = binaryToUtf8Strict(lexStringLiteral(c).value);
    if (key === undefined) failIndex(c, start, 'expected utf8 string');
    return { kind: 'key', key };
  }
  let position: bigint;
  try {
    position = lexInt(c).value;
  } catch (error) {
    if (!(error instanceof FilterError)) throw error;
    return failIndex(c, start, 'expected quoted utf8 string or positive integer');
  }
  if (position < 0n || position > MAX_ARRAY_INDEX) failIndex(c, start, 'expected positive integer as index');
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
    c.skipSpace();
    const step = lexIndexStep(c);
    c.skipSpace();
    c.expect(']');
    const type = steppedType(node.type, step);
    if (type === undefined) c.fail(open, c.pos, `cannot access index ${stepName(step)} for type ${typeName(node.type)}`);
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
