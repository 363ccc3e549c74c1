import { parseTree, printParseErrorCode, getNodeValue, type Node, type ParseError } from 'jsonc-parser';
import { parse as parseToml, TomlError } from 'smol-toml';
import { ProblemList } from './problems';

/** The two spellings of the platform's configuration files (wrangler's). */
export type ConfigFormat = 'toml' | 'jsonc';

/** The format a configuration file is written in, from its extension. */
export function formatOfFile(file: string): ConfigFormat | undefined {
  const lower = file.toLowerCase();
  if (lower.endsWith('.toml')) return 'toml';
  if (lower.endsWith('.json') || lower.endsWith('.jsonc')) return 'jsonc';
  return undefined;
}

/**
 * Parses configuration text into plain values. Syntax errors (and, for JSONC, keys given twice
 * in one object, which TOML already forbids) are thrown as a `ConfigFileError` with
 * line and column.
 */
export function parseConfigText(text: string, file: string, format: ConfigFormat): unknown {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  return format === 'toml' ? parseTomlText(source, file) : parseJsoncText(source, file);
}

function parseTomlText(text: string, file: string): unknown {
  try {
    return parseToml(text);
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const reason = error.message.split('\n', 1)[0]!.replace(/^Invalid TOML document: /, '');
    return new ProblemList(file).failAt(error.line, error.column, `malformed TOML: ${reason}\n${error.codeblock.trimEnd()}`);
  }
}

function parseJsoncText(text: string, file: string): unknown {
  const problems = new ProblemList(file);
  const errors: ParseError[] = [];
  // The platform reads its JSON configuration with comments and trailing commas allowed.
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  // Only the first error: the parser's later ones mostly follow from it.
  const [error] = errors;
  if (error) {
    const { line, column } = position(text, error.offset);
    problems.failAt(line, column, `malformed JSON: ${describeJsonError(printParseErrorCode(error.error))}`);
  }
  // An empty file (comments at most) holds no keys, as an empty TOML file does.
  if (!tree) return {};
  reportDuplicateKeys(tree, text, problems);
  problems.throwIfAny();
  return getNodeValue(tree) as unknown;
}

/** JSON itself allows a key twice (the last wins); in a configuration that is always a mistake. */
function reportDuplicateKeys(node: Node, text: string, problems: ProblemList): void {
  if (node.type === 'object') {
    const seen = new Set<string>();
    for (const property of node.children ?? []) {
      const keyNode = property.children?.[0];
      if (!keyNode) continue;
      const key = keyNode.value as string;
      if (seen.has(key)) {
        const { line, column } = position(text, keyNode.offset);
        problems.addAt(line, column, `duplicate key ${JSON.stringify(key)} in the same object`);
      }
      seen.add(key);
    }
  }
  for (const child of node.children ?? []) reportDuplicateKeys(child, text, problems);
}

/** "CloseBraceExpected" reads as "close brace expected". */
function describeJsonError(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}
