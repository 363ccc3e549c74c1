/**
 * Prints a tree back as an expression: word operators, single spaces, and each
 * literal in the style it was written (quoted, raw or byte string), so that
 * parsing the output gives the same tree apart from source positions.
 */
import { type Argument, type BytesLiteral, type Comparison, type Expression, type RegexLiteral, type SetItem, type ValueExpr, isExpression, binaryToUtf8Strict, utf8ToBinary, PRECEDENCE } from '../language';

function hexByte(code: number): string {
  return `\\x${code.toString(16).padStart(2, '0')}`;
}

function quoted(value: string): string {
  const text = binaryToUtf8Strict(value);
  let out = '"';
  if (text === undefined) {
    for (const ch of value) {
      const code = ch.charCodeAt(0);
      out += ch === '"' || ch === '\\' ? `\\${ch}` : code >= 0x20 && code < 0x7f ? ch : hexByte(code);
    }
  } else {
    for (const ch of text) {
      const code = ch.codePointAt(0) ?? 0;
      out += ch === '"' || ch === '\\' ? `\\${ch}` : code < 0x20 || code === 0x7f ? hexByte(code) : ch;
    }
  }
  return `${out}"`;
}

function raw(text: string, hashes: number): string {
  const fence = '#'.repeat(hashes);
  return `r${fence}"${text}"${fence}`;
}

/** A raw string's fence must not occur in its text; this finds the smallest that does not. */
function fittingHashes(text: string, atLeast: number): number {
  let hashes = atLeast;
  while (text.includes(`"${'#'.repeat(hashes)}`)) hashes++;
  return hashes;
}

function bytesLiteral(literal: BytesLiteral): string {
  if (literal.style === 'hex' && literal.value.length >= 2) {
    return Array.from(literal.value, (ch) => ch.charCodeAt(0).toString(16).padStart(2, '0')).join(':');
  }
  const text = binaryToUtf8Strict(literal.value);
  if (literal.style === 'raw' && text !== undefined) return raw(text, fittingHashes(text, literal.hashes));
  return quoted(literal.value);
}

/**
 * The quoted spelling of a regex, mirroring how quoted regex literals are read
 * (backslashes kept, `\"` outside a class read as `"`), or undefined when the
 * pattern has no quoted spelling (a trailing backslash, or `\"` outside a class).
 */
function quotedRegex(pattern: string): string | undefined {
  let out = '"';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] ?? '';
    if (ch === '\\') {
      const next = pattern[i + 1];
      if (next === undefined || (next === '"' && !inClass)) return undefined;
      out += `\\${next}`;
      i++;
      continue;
    }
    if (ch === '"' && !inClass) out += '\\"';
    else out += ch;
    if (ch === '[' && !inClass) inClass = true;
    else if (ch === ']' && inClass) inClass = false;
  }
  return `${out}"`;
}

function regexLiteral(literal: RegexLiteral): string {
  const asQuoted = literal.style === 'quoted' ? quotedRegex(literal.pattern) : undefined;
  return asQuoted ?? raw(literal.pattern, fittingHashes(literal.pattern, literal.hashes));
}

function setItem(item: SetItem): string {
  switch (item.kind) {
    case 'bytes':
      return bytesLiteral(item);
    case 'int':
      return item.value.toString();
    case 'int-range':
      return `${item.from}..${item.to}`;
    case 'ip':
      return item.address;
    case 'ip-cidr':
      return `${item.address}/${item.prefix}`;
    case 'ip-range':
      return `${item.from}..${item.to}`;
  }
}

function rhs(node: Comparison): string {
  const value = node.rhs;
  switch (value.kind) {
    case 'set':
      return `{${value.items.map(setItem).join(' ')}}`;
    case 'list':
      return `$${value.name}`;
    case 'regex':
      return regexLiteral(value);
    default:
      return setItem(value);
  }
}

function argument(arg: Argument): string {
  if (arg.kind === 'bytes' || arg.kind === 'int' || arg.kind === 'ip') return setItem(arg);
  return isExpression(arg) ? expression(arg) : valueExpr(arg);
}

function valueExpr(node: ValueExpr): string {
  switch (node.kind) {
    case 'field':
      return node.name;
    case 'call':
      return `${node.name}(${node.args.map(argument).join(', ')})`;
    case 'index': {
      const step = node.step;
      const index = step.kind === 'each' ? '*' : step.kind === 'element' ? String(step.position) : quoted(utf8ToBinary(step.key));
      return `${valueExpr(node.target)}[${index}]`;
    }
  }
}

/** An operand of a logical operator or of `not`, parenthesised when it would otherwise regroup. */
function operand(node: Expression, parentPrecedence: number): string {
  const text = expression(node);
  return node.kind === 'logical' && PRECEDENCE[node.op] <= parentPrecedence ? `(${text})` : text;
}

function expression(node: Expression): string {
  switch (node.kind) {
    case 'group':
      return `(${expression(node.inner)})`;
    case 'not':
      return `not ${operand(node.operand, Number.POSITIVE_INFINITY)}`;
    case 'quantifier':
      return `${node.name}(${expression(node.operand)})`;
    case 'logical':
      return node.operands.map((o) => operand(o, PRECEDENCE[node.op])).join(` ${node.op} `);
    case 'truth':
      return valueExpr(node.value);
    case 'comparison':
      return `${valueExpr(node.lhs)} ${node.op} ${rhs(node)}`;
  }
}

export function formatExpression(ast: Expression): string {
  return expression(ast);
}
