/**
 * The one error a generator throws for a document it cannot handle. It carries the JSON pointer
 * of the offending node so the command line can turn it into `file:line` (never a stack trace).
 */
export class GenerateError extends Error {
  override readonly name = 'GenerateError';
  /** JSON pointer (`#/paths/~1v1~1patients/get`) of the node the message is about. */
  readonly pointer: string;

  constructor(pointer: string, message: string) {
    super(message);
    this.pointer = pointer;
  }
}
