/** One complaint of the request validator: where (a JSON pointer or the older dotted form) and what. */
export interface ValidatorItem {
  path: string;
  message: string;
}

/** The place an item names, as the API's messages write it (`body/rules/0/expression`). */
export function placeOf(path: string): string {
  // JSON pointers (`/query/account.id`) keep the dots of parameter names; only the older dotted
  // form (`.body.name`) turns its dots into slashes.
  return path.startsWith('.') ? path.slice(1).replace(/\./g, '/') : path.replace(/^\//, '');
}

const NO_ALTERNATIVE = /^must match (a schema in anyOf|exactly one schema in oneOf)$/;

/**
 * A value that matches no alternative of an anyOf (or oneOf) gets one complaint per alternative
 * from the validator, then one for the anyOf itself: six lines for a `null` where a field value
 * goes. One line per place reads better:
 * - when an alternative got past the value's own type and failed inside it (an array whose
 *   first item is wrong), only the complaints from inside are kept: they say what to fix;
 * - otherwise the alternatives' complaints about the value itself become one, joined with "or"
 *   (`must be string, integer or boolean`), where the anyOf's own complaint was.
 * Other complaints are kept as they are, in their order. Linear in the complaints times the
 * depth of a place, however many there are.
 */
export function condenseAlternatives<T extends ValidatorItem>(items: readonly T[]): T[] {
  const failed = new Set(items.filter((item) => NO_ALTERNATIVE.test(item.message)).map((item) => placeOf(item.path)));
  if (failed.size === 0) return [...items];
  const places = items.map((item) => placeOf(item.path));
  /** Failed anyOf places with a complaint strictly inside them. */
  const failedInside = new Set<string>();
  /** What each failed anyOf's alternatives said of the value itself. */
  const complaints = new Map<string, Set<string>>();
  items.forEach((item, i) => {
    const place = places[i]!;
    for (const container of containers(place)) if (failed.has(container)) failedInside.add(container);
    if (failed.has(place) && !NO_ALTERNATIVE.test(item.message)) complaints.set(place, (complaints.get(place) ?? new Set()).add(item.message));
  });
  const condensed: T[] = [];
  items.forEach((item, i) => {
    const place = places[i]!;
    if (!failed.has(place)) condensed.push(item);
    else if (!failedInside.has(place) && NO_ALTERNATIVE.test(item.message)) {
      const own = complaints.get(place);
      condensed.push(own ? { ...item, message: joinAlternatives([...own]) } : item);
    }
  });
  return condensed;
}

/** The places that contain `place`: `body/a/0` is inside `body/a`, `body` and the whole (``). */
function containers(place: string): string[] {
  const steps = place.split('/');
  const found = [''];
  for (let length = 1; length < steps.length; length += 1) found.push(steps.slice(0, length).join('/'));
  return place === '' ? [] : found;
}

/** `must be string` and `must be array` -> `must be string or array`: the words they share said once. */
export function joinAlternatives(messages: readonly string[]): string {
  if (messages.length === 1) return messages[0]!;
  const words = messages.map((message) => message.split(' '));
  let shared = 0;
  while (words.every((w) => shared < w.length - 1 && w[shared] === words[0]![shared])) shared += 1;
  const head = words[0]!.slice(0, shared).join(' ');
  const tails = words.map((w) => w.slice(shared).join(' '));
  const list = `${tails.slice(0, -1).join(', ')} or ${tails.at(-1)!}`;
  return head === '' ? list : `${head} ${list}`;
}
