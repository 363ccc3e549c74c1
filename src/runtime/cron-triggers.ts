/**
 * Cron triggers, fired: one timer wakes at each minute's start (UTC); every deployed script's
 * expression matching that minute is claimed (so that instances sharing a database fire it once)
 * and its `scheduled` handler run with `{ cron, scheduledTime }`, `scheduledTime` the minute's
 * start. Minutes that passed while the platform was stopped, or while its event loop was held up
 * past them, are not replayed: only the minute the timer wakes in is fired.
 */
import { parseCronExpression, type CronExpression } from '../cron-expressions';
import type { DeployedWorkers } from './deployed';
import type { ScheduledResult } from './instance';

const MINUTE_MS = 60_000;
/** Woken this long after a minute's start, so that a timer firing a hair early still lands in it. */
const WAKE_AFTER_MS = 5;

/** One run of a cron trigger, as the platform logs it. */
export interface CronRun {
  account: string;
  script: string;
  cron: string;
  /** The minute it fired for (ms since the epoch). */
  scheduledTime: number;
  /** `not-deployed` when the script's deployment went away before it ran. */
  outcome: ScheduledResult | { result: 'not-deployed' } | { result: 'claim-failed'; error: string };
  ms: number;
}

export interface CronTriggersOptions {
  /** Runs the script's `scheduled` handler (the runtime's `scheduled`). */
  fire(account: string, script: string, cron: string, scheduledTime: number): Promise<ScheduledResult | undefined>;
  /** Claims the run of (script, cron, minute): true for one caller only, across instances. */
  claim(account: string, script: string, cron: string, minute: number): Promise<boolean>;
  /** Each run's outcome (runs another instance claimed are not logged here). */
  log(run: CronRun): void;
  /** Something worth telling (an expression that cannot be read), never a secret. */
  report(line: string): void;
  /** The clock (ms since the epoch); Date.now by default. */
  now?: () => number;
  /** False to keep the timer off: the caller drives `tick` (tests). */
  timer?: boolean;
}

interface Trigger {
  account: string;
  script: string;
  expression: CronExpression;
}

export class CronTriggers {
  readonly #options: CronTriggersOptions;
  readonly #now: () => number;
  #triggers: Trigger[] = [];
  /** Expressions already parsed, by source (they are few, and parsed once). */
  #parsed = new Map<string, CronExpression | null>();
  #timer: NodeJS.Timeout | undefined;
  /** The last minute fired (or the minute of the start: never fired). */
  #last: number;
  readonly #running = new Set<Promise<void>>();
  #stopped = false;

  constructor(options: CronTriggersOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#last = minuteOf(this.#now());
    if (options.timer !== false) this.#arm();
  }

  /** What is deployed now: each deployed script's cron triggers. */
  set(deployed: Pick<DeployedWorkers, 'scripts'>): void {
    const parsed = new Map<string, CronExpression | null>();
    const triggers: Trigger[] = [];
    for (const script of deployed.scripts) {
      if (script.versions.length === 0) continue;
      for (const cron of script.crons ?? []) {
        let expression = parsed.get(cron) ?? this.#parsed.get(cron);
        if (expression === undefined) {
          try {
            expression = parseCronExpression(cron);
          } catch (error) {
            // Checked when it was set; a store written by other code may hold one this code refuses.
            this.#options.report(`${script.name}: its cron trigger is not run: ${(error as Error).message}`);
            expression = null;
          }
        }
        parsed.set(cron, expression);
        if (expression) triggers.push({ account: script.account_id, script: script.name, expression });
      }
    }
    this.#parsed = parsed;
    this.#triggers = triggers;
  }

  /** The triggers fired from now on, as `<account>/<script>: <cron>`. */
  get triggers(): string[] {
    return this.#triggers.map((trigger) => `${trigger.account}/${trigger.script}: ${trigger.expression.source}`);
  }

  /**
   * Fires every trigger matching `minute` (ms, rounded down to its minute) once; resolves when
   * their runs are done. The timer calls it at each minute's start; tests call it directly.
   */
  async tick(minute: number): Promise<void> {
    const start = minuteOf(minute);
    const due = this.#triggers.filter((trigger) => trigger.expression.matches(start));
    await Promise.all(due.map((trigger) => this.#track(this.#run(trigger, start))));
  }

  async #run(trigger: Trigger, minute: number): Promise<void> {
    const { account, script } = trigger;
    const cron = trigger.expression.source;
    const started = this.#now();
    const log = (outcome: CronRun['outcome']) => this.#options.log({ account, script, cron, scheduledTime: minute, outcome, ms: this.#now() - started });
    let claimed: boolean;
    try {
      claimed = await this.#options.claim(account, script, cron, minute);
    } catch (error) {
      // Without a claim it is not known whether another instance runs it: it is not run twice.
      log({ result: 'claim-failed', error: (error as Error).message });
      return;
    }
    if (!claimed) return;
    let outcome: CronRun['outcome'];
    try {
      outcome = (await this.#options.fire(account, script, cron, minute)) ?? { result: 'not-deployed' };
    } catch (error) {
      outcome = { result: 'exception', version: '', error: (error as Error).message };
    }
    log(outcome);
  }

  #track(run: Promise<void>): Promise<void> {
    this.#running.add(run);
    return run.finally(() => this.#running.delete(run));
  }

  #arm(): void {
    if (this.#stopped) return;
    const now = this.#now();
    const next = minuteOf(now) + MINUTE_MS;
    this.#timer = setTimeout(() => {
      const minute = minuteOf(this.#now());
      if (minute > this.#last) {
        this.#last = minute;
        void this.tick(minute);
      }
      this.#arm();
    }, next - now + WAKE_AFTER_MS);
    this.#timer.unref();
  }

  /** No more minutes fire; resolves once the runs under way are done (or given up after `waitMs`). */
  async stop(waitMs = 0): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    if (waitMs <= 0 || this.#running.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.#running]), new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
  }
}

function minuteOf(time: number): number {
  return Math.floor(time / MINUTE_MS) * MINUTE_MS;
}
