/** A mistake in how the command was called (exit code 2), found after commander's own checks. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** No API token anywhere the CLI looks: said before asking the API, which could only answer 401. */
export class MissingToken extends Error {
  constructor() {
    super('no API token: set CRONSVC_TOKEN, or run `cronsvc login` (or put --token before the command)');
    this.name = 'MissingToken';
  }
}
