/** What one step of `npm run spec:check` concluded. */
export interface StepOutcome {
  status: 'pass' | 'fail' | 'skip';
  /** One line for the summary table. */
  summary: string;
  /** Lines printed under the table when the step did not pass (or in verbose mode). */
  details: string[];
}

/** A step with its name and how long it took. */
export interface StepResult extends StepOutcome {
  name: string;
  ms: number;
}
