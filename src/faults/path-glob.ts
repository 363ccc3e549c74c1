/**
 * A path pattern as a regular expression: `*` stands for one segment or part of one (no `/`),
 * `**` for any run of segments; everything else is literal. A trailing slash is optional on both
 * sides, as the API's routing takes it.
 */
export function globPattern(glob: string): RegExp {
  const trimmed = glob.length > 1 ? glob.replace(/\/+$/, '') : glob;
  const body = trimmed
    .split(/(\*\*|\*)/)
    .map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}/?$`);
}
