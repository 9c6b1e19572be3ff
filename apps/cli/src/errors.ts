/** A mistake in how the command was called (exit code 2), found after commander's own checks. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
