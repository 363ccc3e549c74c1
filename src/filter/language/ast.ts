/**
 * The typed syntax tree. Every node carries its source span; value and
 * expression nodes carry their type as checked during the parse. Byte-string
 * values are binary strings (one character per byte, see bytes.ts).
 */
import type { Span } from './errors';
import type { FilterType } from './types';

/** How a string literal was written, so that it prints back the same way. */
export type StringStyle = 'quoted' | 'raw' | 'hex';

export interface BytesLiteral {
  readonly kind: 'bytes';
  /** The bytes, as a binary string. */
  readonly value: string;
  readonly style: StringStyle;
  /** Number of `#` around a raw string. */
  readonly hashes: number;
  readonly span: Span;
}

export interface IntLiteral {
  readonly kind: 'int';
  readonly value: bigint;
  readonly span: Span;
}

export interface RegexLiteral {
  readonly kind: 'regex';
  /** The pattern handed to the regex engine (after the literal's own escapes). */
  readonly pattern: string;
  readonly style: 'quoted' | 'raw';
  readonly hashes: number;
  readonly span: Span;
}

export interface IpLiteral {
  readonly kind: 'ip';
  /** Canonical text of the address. */
  readonly address: string;
  readonly span: Span;
}

export interface IntRangeItem {
  readonly kind: 'int-range';
  readonly from: bigint;
  readonly to: bigint;
  readonly span: Span;
}

export interface IpCidrItem {
  readonly kind: 'ip-cidr';
  readonly address: string;
  readonly prefix: number;
  readonly span: Span;
}

export interface IpRangeItem {
  readonly kind: 'ip-range';
  readonly from: string;
  readonly to: string;
  readonly span: Span;
}

export type SetItem = BytesLiteral | IntLiteral | IntRangeItem | IpLiteral | IpCidrItem | IpRangeItem;

export interface SetLiteral {
  readonly kind: 'set';
  readonly items: readonly SetItem[];
  readonly span: Span;
}

/** `$name`: a list kept outside the expression (supplied at compile time). */
export interface ListReference {
  readonly kind: 'list';
  readonly name: string;
  readonly span: Span;
}

/**
 * Value nodes. `type` is the type of one value; `mapped` says the node went
 * through `[*]`, so it stands for each element of a collection in turn.
 */
export interface FieldRef {
  readonly kind: 'field';
  readonly name: string;
  readonly type: FilterType;
  readonly mapped: false;
  readonly span: Span;
}

export type IndexStep =
  | { readonly kind: 'element'; readonly position: number }
  | { readonly kind: 'key'; readonly key: string }
  | { readonly kind: 'each' };

export interface IndexAccess {
  readonly kind: 'index';
  readonly target: ValueExpr;
  readonly step: IndexStep;
  readonly type: FilterType;
  readonly mapped: boolean;
  readonly span: Span;
}

/** A function argument. No function takes an address literal, but the engine reads one (and then refuses it by kind or type). */
export type Argument = ValueExpr | BytesLiteral | IntLiteral | IpLiteral | Expression;

/**
 * A call whose first argument is mapped runs once per element: its `type` is
 * then `Array(R)` for a function returning `R`, and the call itself is a
 * single (array) value, never mapped.
 */
export interface FunctionCall {
  readonly kind: 'call';
  readonly name: string;
  readonly args: readonly Argument[];
  readonly type: FilterType;
  readonly mapped: false;
  readonly span: Span;
}

export type ValueExpr = FieldRef | IndexAccess | FunctionCall;

export type OrderingOp = 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge';
export type ComparisonOp = OrderingOp | 'bitwise_and' | 'contains' | 'matches' | 'wildcard' | 'strict wildcard' | 'in';

/** An operator with the right-hand side it takes. */
export type Operation =
  | { readonly op: OrderingOp; readonly rhs: BytesLiteral | IntLiteral | IpLiteral }
  | { readonly op: 'bitwise_and'; readonly rhs: IntLiteral }
  | { readonly op: 'contains'; readonly rhs: BytesLiteral }
  | { readonly op: 'matches'; readonly rhs: RegexLiteral }
  | { readonly op: 'wildcard' | 'strict wildcard'; readonly rhs: BytesLiteral }
  | { readonly op: 'in'; readonly rhs: SetLiteral | ListReference };

export type Comparison = {
  readonly kind: 'comparison';
  readonly lhs: ValueExpr;
  /** `Bool`, or `Array(Bool)` when the left side is mapped with `[*]`. */
  readonly type: FilterType;
  readonly span: Span;
} & Operation;

/**
 * A Boolean value used as a condition without an operator (`ssl`,
 * `starts_with(...)`); also an array of Booleans as the operand of
 * `any`/`all` (`any(starts_with(names[*], "x-"))`), typed `Array(Bool)`.
 */
export interface Truth {
  readonly kind: 'truth';
  readonly value: ValueExpr;
  readonly type: FilterType;
  readonly span: Span;
}

export type LogicalOp = 'and' | 'xor' | 'or';

export interface Logical {
  readonly kind: 'logical';
  readonly op: LogicalOp;
  /** Two or more operands; a chain of one operator is one node. */
  readonly operands: readonly Expression[];
  readonly type: FilterType;
  readonly span: Span;
}

export interface Not {
  readonly kind: 'not';
  readonly operand: Expression;
  readonly type: FilterType;
  readonly span: Span;
}

export interface Group {
  readonly kind: 'group';
  readonly inner: Expression;
  readonly type: FilterType;
  readonly span: Span;
}

export interface Quantifier {
  readonly kind: 'quantifier';
  readonly name: 'any' | 'all';
  readonly operand: Expression;
  readonly type: 'Bool';
  readonly span: Span;
}

export type Expression = Comparison | Truth | Logical | Not | Group | Quantifier;

export function isExpression(node: Argument): node is Expression {
  return (
    node.kind === 'comparison' ||
    node.kind === 'truth' ||
    node.kind === 'logical' ||
    node.kind === 'not' ||
    node.kind === 'group' ||
    node.kind === 'quantifier'
  );
}

export function isLiteral(node: Argument): node is BytesLiteral | IntLiteral | IpLiteral {
  return node.kind === 'bytes' || node.kind === 'int' || node.kind === 'ip';
}
