// The document as the mock's validator reads it. Prism's Ajv ignores `discriminator`, so a
// `oneOf` of rule shapes reports every branch's complaints about a rule that fits none (a dozen
// errors for one misspelt field). Rewritten as "if the discriminating property is X, then
// branch X", the errors are those of the rule's own shape, as the server (whose validator
// honours the discriminator) reports them. Examples and everything else are left as they are.

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Follows a local `$ref` (`#/components/schemas/RuleBlock`) within the document. */
function resolve(document: Node, node: Node): Node {
  const ref = node.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return node;
  const target = ref
    .slice(2)
    .split('/')
    .reduce<unknown>((at, key) => (isNode(at) ? at[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), document);
  return isNode(target) ? resolve(document, target) : node;
}

/** The values of the discriminating property a branch accepts (`const` or `enum`). */
function valuesOf(document: Node, branch: Node, property: string): unknown[] | undefined {
  const schema = resolve(document, branch);
  const declared = isNode(schema.properties) ? schema.properties[property] : undefined;
  if (!isNode(declared)) return undefined;
  if ('const' in declared) return [declared.const];
  return Array.isArray(declared.enum) ? declared.enum : undefined;
}

function rewrite(document: Node, node: Node): void {
  const discriminator = node.discriminator;
  const branches = node.oneOf;
  if (!isNode(discriminator) || typeof discriminator.propertyName !== 'string' || !Array.isArray(branches)) return;
  const property = discriminator.propertyName;
  const keyed = branches.map((branch) => (isNode(branch) ? { branch, values: valuesOf(document, branch, property) } : undefined));
  if (keyed.some((entry) => entry?.values === undefined)) return;
  const choices = keyed as { branch: Node; values: unknown[] }[];
  delete node.oneOf;
  delete node.discriminator;
  node.allOf = [
    ...(Array.isArray(node.allOf) ? node.allOf : []),
    { required: [property], properties: { [property]: { enum: choices.flatMap((c) => c.values) } } },
    ...choices.map(({ branch, values }) => ({ if: { required: [property], properties: { [property]: { enum: values } } }, then: branch })),
  ];
}

/** A copy of the document with each discriminated `oneOf` rewritten as if/then branches. */
export function mockValidationDocument(document: Node): Node {
  const copy = structuredClone(document);
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!isNode(value)) return;
    rewrite(copy, value);
    Object.values(value).forEach(visit);
  };
  visit(copy);
  return copy;
}
