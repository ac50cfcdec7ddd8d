// Errors the user can act on. The CLI prints their message as one line (no stack trace) and exits 2.
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UserError";
  }
}

// Raised by a parser when a tool's raw output is not what it expects; the cell is then marked failed
// with this message, and the run goes on.
export class ParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ParseError";
  }
}

export function oneOf(kind: string, value: string, valid: readonly string[]): UserError {
  return new UserError(`unknown ${kind} '${value}'; valid: ${valid.length ? valid.join(", ") : "(none)"}`);
}
