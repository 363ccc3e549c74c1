/**
 * Gathers the requests made in one turn of the event loop and answers them with one statement
 * (at most `max` per statement): many small puts or gets in flight cost PostgreSQL one statement
 * and one commit instead of one each, as the disk engine's write queue shares one commit. A
 * request alone waits for nothing but the end of the turn.
 */
export class SameTick<In, Out> {
  #pending: { input: In; resolve: (output: Out) => void; reject: (error: unknown) => void }[] = [];
  #scheduled = false;

  constructor(
    private readonly run: (inputs: In[]) => Promise<Out[]>,
    private readonly max: number,
  ) {}

  submit(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.#pending.push({ input, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    while (this.#pending.length > 0) {
      const jobs = this.#pending.splice(0, this.max);
      this.run(jobs.map((job) => job.input)).then(
        (outputs) => jobs.forEach((job, i) => job.resolve(outputs[i]!)),
        (error: unknown) => jobs.forEach((job) => job.reject(error)),
      );
    }
  }
}
