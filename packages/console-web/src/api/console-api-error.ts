/** A failed console API call, with the server's error code and message (`TIMEOUT`: no answer in time). */
export class ConsoleApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}
