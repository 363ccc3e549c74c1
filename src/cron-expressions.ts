/**
 * Cron triggers' expressions, as the platform accepts them: five fields (minute, hour, day of
 * month, month, day of week), read in UTC, with the platform's Quartz-like extensions and nothing
 * more. Each field is checked here against the platform's documented syntax, so that a refusal
 * names the field and what is wrong with it; what passes is handed to croner (Quartz weekday
 * numbering: 1 = Sunday) to decide which minutes match.
 *
 * | field | values | characters |
 * | minute | 0-59 | * , - / |
 * | hour | 0-23 | * , - / |
 * | day of month | 1-31 | * , - / L W (`L`, `LW`, `15W`) |
 * | month | 1-12, JAN-DEC | * , - / |
 * | day of week | 1-7 (1 = Sunday), SUN-SAT | * , - / L # (`6L`, `FRIL`, `MON#2`) |
 *
 * When both the day of month and the day of week are restricted, a day matching either one
 * matches (as cron has it).
 */
import { Cron } from 'croner';

/** An expression the platform does not accept, with what is wrong (the message names the expression). */
export class CronExpressionError extends Error {
  override readonly name = 'CronExpressionError';
  constructor(
    readonly expression: string,
    readonly reason: string,
  ) {
    super(`invalid cron string "${expression}": ${reason}`);
  }
}

export interface CronExpression {
  /** The expression as written (what the worker's `controller.cron` says). */
  readonly source: string;
  /** Whether the minute starting at `time` (ms since the epoch, UTC) is one the expression names. */
  matches(time: number): boolean;
}

interface FieldRule {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
  /** The special forms the field takes besides numbers, ranges, lists and steps. */
  special?: 'day-of-month' | 'day-of-week';
  hint?: string;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const;
const WEEKDAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] as const;

const FIELDS: readonly FieldRule[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31, special: 'day-of-month' },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  { name: 'day of week', min: 1, max: 7, names: WEEKDAYS, special: 'day-of-week', hint: '; 1 = Sunday ... 7 = Saturday, or SUN-SAT' },
];

/** Longer than any expression the platform's fields can need. */
export const MAX_CRON_LENGTH = 256;

/** Checks an expression as the platform does; throws CronExpressionError saying what is wrong. */
export function parseCronExpression(source: string): CronExpression {
  const fail = (reason: string): never => {
    throw new CronExpressionError(source, reason);
  };
  if (source.length > MAX_CRON_LENGTH) fail(`it is longer than ${MAX_CRON_LENGTH} characters`);
  const fields = source.trim().split(/\s+/).filter((field) => field !== '');
  if (fields.length !== 5) {
    fail(`it has ${fields.length} field${fields.length === 1 ? '' : 's'}; a cron trigger has 5 (minute hour day-of-month month day-of-week, in UTC)`);
  }
  const translated = fields.map((field, index) => translateField(field, FIELDS[index]!, fail));
  let cron: Cron;
  try {
    cron = new Cron(translated.join(' '), { timezone: 'UTC', mode: '5-part', alternativeWeekdays: true, paused: true });
  } catch (error) {
    // The fields passed the platform's rules; what croner still refuses is said in its words.
    return fail((error as Error).message.replace(/^CronPattern: /, ''));
  }
  return {
    source,
    matches: (time) => cron.match(new Date(Math.floor(time / 60_000) * 60_000)),
  };
}

/** One field checked item by item, and written as croner reads it. */
function translateField(field: string, rule: FieldRule, fail: (reason: string) => never): string {
  const problem = (what: string): never => fail(`${rule.name} "${field}": ${what}`);
  if (!allowedCharacters(rule).test(field)) problem(`only digits${rule.names ? ', names' : ''} and the characters ${charactersOf(rule)} are allowed`);
  return field
    .split(',')
    .map((item) => {
      if (item === '') problem('a list has an empty item');
      return translateItem(item.toUpperCase(), rule, problem);
    })
    .join(',');
}

function allowedCharacters(rule: FieldRule): RegExp {
  if (rule.special === 'day-of-month') return /^[0-9LWlw*,\-/]+$/;
  if (rule.special === 'day-of-week') return /^[0-9A-Za-z*,\-/#]+$/;
  return rule.names ? /^[0-9A-Za-z*,\-/]+$/ : /^[0-9*,\-/]+$/;
}

function charactersOf(rule: FieldRule): string {
  if (rule.special === 'day-of-month') return '* , - / L W';
  if (rule.special === 'day-of-week') return '* , - / L #';
  return '* , - /';
}

function translateItem(item: string, rule: FieldRule, problem: (what: string) => never): string {
  const value = (text: string): number => {
    if (/^\d+$/.test(text)) {
      const number = Number(text);
      if (number < rule.min || number > rule.max) problem(`${text} is out of range (${rule.min}-${rule.max}${rule.hint ?? ''})`);
      return number;
    }
    const named = rule.names?.indexOf(text as never) ?? -1;
    if (named >= 0) return named + rule.min;
    if (rule.names) problem(`${text} is neither a number (${rule.min}-${rule.max}) nor one of ${rule.names.join(', ')}`);
    return problem(`${text} is not a number (${rule.min}-${rule.max})`);
  };

  if (rule.special === 'day-of-month') {
    if (item === 'L' || item === 'LW') return item;
    const weekday = /^(\d+)W$/.exec(item);
    if (weekday) return `${value(weekday[1]!)}W`;
    if (item.includes('L') || item.includes('W')) problem(`${item}: L and W are taken as L (the last day), LW (the last weekday) or <day>W (the weekday nearest that day)`);
  }
  if (rule.special === 'day-of-week') {
    const last = /^([0-9A-Z]+?)L$/.exec(item);
    if (last && !item.includes('-') && !item.includes('/')) return `${value(last[1]!)}#L`;
    const nth = /^([0-9A-Z]+)#(\d+)$/.exec(item);
    if (nth) {
      const n = Number(nth[2]);
      if (n < 1 || n > 5) problem(`${item}: the week of the month after # is 1 to 5`);
      return `${value(nth[1]!)}#${n}`;
    }
    if (item === 'L') problem('L alone is not taken here: write <day>L for the last such day of the month (6L or FRIL: the last Friday)');
    if (item.includes('#')) problem(`${item}: # is taken as <day>#<n> (MON#2: the second Monday)`);
  }
  if (item.includes('#')) problem(`# is not allowed in the ${rule.name} field`);

  const [range, step, extra] = item.split('/');
  if (extra !== undefined) problem(`${item} has more than one /`);
  let stepText = '';
  if (step !== undefined) {
    if (!/^\d+$/.test(step) || Number(step) === 0) problem(`${item}: the step after / is a whole number of at least 1`);
    stepText = `/${Number(step)}`;
  }
  if (range === '*') return `*${stepText}`;
  if (range === '' || range === undefined) problem(`${item}: a step needs something before the / (*/5, 10-30/5 or 10/5)`);
  const bounds = range!.split('-');
  if (bounds.length > 2 || bounds.some((bound) => bound === '')) problem(`${item} is not a value or a range (a-b)`);
  const from = value(bounds[0]!);
  if (bounds.length === 2) {
    const to = value(bounds[1]!);
    if (to < from) problem(`the range ${range} ends before it starts`);
    return `${from}-${to}${stepText}`;
  }
  // `10/5` is Quartz's "from 10, every 5".
  return stepText === '' ? String(from) : `${from}-${rule.max}${stepText}`;
}
