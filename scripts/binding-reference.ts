// The bucket binding's reference as Markdown, generated from `src/bucket/contract.d.ts` (its
// declarations and their doc comments) with the TypeScript compiler, so the published page can
// never drift from the contract the type-level tests check.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { root } from './tools';

export const contractFile = path.join(root, 'src', 'bucket', 'contract.d.ts');

/** A doc comment's text, its lines joined the way Markdown reads them. */
function docOf(node: ts.Node): string {
  const comments = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  return comments.map((comment) => ts.getTextOfJSDocComment(comment.comment) ?? '').join('\n\n').trim();
}

/** Type text as written, on one line (table cells cannot hold line breaks). */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();

/** A table cell: paragraphs kept apart, without breaking the row. */
const cell = (text: string) => oneLine(text.replace(/\n\n/g, ' <br> ')) || ' ';

function memberRow(member: ts.TypeElement, source: ts.SourceFile): string {
  const name = member.name ? member.name.getText(source) : '(call)';
  let signature: string;
  if (ts.isMethodSignature(member)) {
    const typeParameters = member.typeParameters ? `<${member.typeParameters.map((p) => p.getText(source)).join(', ')}>` : '';
    signature = `${name}${typeParameters}(${member.parameters.map((p) => p.getText(source)).join(', ')}): ${member.type?.getText(source) ?? 'void'}`;
  } else if (ts.isPropertySignature(member)) {
    const readonly = member.modifiers?.some((m) => m.kind === ts.SyntaxKind.ReadonlyKeyword) ? 'readonly ' : '';
    signature = `${readonly}${name}${member.questionToken ? '?' : ''}: ${member.type?.getText(source) ?? 'unknown'}`;
  } else {
    signature = member.getText(source);
  }
  return `| \`${oneLine(signature).replace(/`/g, '')}\` | ${cell(docOf(member))} |`;
}

/** Markdown for every exported declaration of the contract, in the order the file gives them. */
export function bindingReference(file = contractFile): string {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const sections: string[] = [];
  const fileDoc = source.statements[0] ? leadingComment(source) : '';
  if (fileDoc) sections.push(fileDoc);
  for (const statement of source.statements) {
    const exported = ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) continue;
    if (ts.isInterfaceDeclaration(statement)) {
      const heritage = statement.heritageClauses?.map((clause) => clause.getText(source)).join(' ');
      const lines = [`### ${statement.name.text}${heritage ? ` (${heritage})` : ''}`, '', docOf(statement)];
      const members = statement.members.map((member) => memberRow(member, source));
      if (members.length > 0) lines.push('', '| member | meaning |', '|---|---|', ...members);
      sections.push(lines.join('\n').replace(/\n{3,}/g, '\n\n'));
    } else if (ts.isTypeAliasDeclaration(statement)) {
      // As written, member comments included: a union of shapes reads best as code.
      const declaration = `type ${statement.name.text} = ${statement.type.getText(source)};`;
      sections.push([`### ${statement.name.text}`, '', docOf(statement), '', '```ts', declaration, '```'].join('\n').replace(/\n{3,}/g, '\n\n'));
    }
  }
  return sections.join('\n\n');
}

/** The file's own opening comment (the one before its first declaration, which says what the contract is). */
function leadingComment(source: ts.SourceFile): string {
  const ranges = ts.getLeadingCommentRanges(source.text, 0) ?? [];
  const first = ranges[0];
  if (!first || source.text.slice(first.pos, first.pos + 3) !== '/**') return '';
  // Only when it is a file comment, not the first declaration's own.
  if (ranges.length === 1 && source.statements[0] && docOf(source.statements[0])) return '';
  return source.text
    .slice(first.pos + 3, first.end - 2)
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, ''))
    .join('\n')
    .trim();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${bindingReference()}\n`);
}
