/** A run a cancel stopped. */
export interface CancelledRun {
  contextId: string;
  requestId: string;
}

/** What a cancel request stops: the running runs of a context, or one run by its request id. */
export type CancelRequestTarget =
  | { contextId: string; requestId?: undefined }
  | { requestId: string; contextId?: undefined };

/** A request to stop runs wherever they run, as the store keeps it. */
export interface CancelRequest {
  id: string;
  target: CancelRequestTarget;
  /** The worker that recorded it (its own runs it cancelled itself). */
  requestedBy: string;
  requestedAt: string;
  /**
   * How long ago it was recorded, measured on the store's clock when it was read: a worker compares
   * it with its own clock's "now", never `requestedAt` with its clock, so clock skew does not matter.
   */
  ageMs: number;
  /** The worker that ran the matching runs once it answered, or the requester once it closed the request. */
  answeredBy?: string;
  /** The runs it stopped (empty when they had ended meanwhile), once it answered. */
  cancelled?: CancelledRun[];
  /** Whether a worker other than the requester still holds a live claim on the target's context. */
  held: boolean;
}

/**
 * Cancel requests between the workers of one store, so `chat cancel` and `/stop` on one worker stop
 * a run another worker runs. The requester records a request; a worker running a matching run sees
 * it (it looks while it runs anything), cancels there and answers with the runs it stopped. Not
 * sticky: a request stops only runs under way (or starting) when it was made, never a later run of
 * its context; the requester closes it (answers it itself) once it stops waiting. Absent on a store
 * one worker serves: its cancels are local.
 */
export interface RunCancelStore {
  /**
   * Records a request. `holder`: the worker other than `by` whose claim on the target's context is
   * live now, i.e. the one expected to answer (absent when no other worker runs it).
   */
  request(target: CancelRequestTarget, by: string): Promise<{ id: string; holder?: string }>;
  /** Unanswered requests younger than `maxAgeMs`, by workers other than `worker`, for any of these contexts or runs. */
  pending(
    running: { contextIds: readonly string[]; requestIds: readonly string[] },
    options: { worker: string; maxAgeMs: number },
  ): Promise<CancelRequest[]>;
  /**
   * The running worker's answer, or the requester's own (no runs) that closes the request once it
   * stops waiting; only the first answer of a request counts.
   */
  answer(id: string, by: string, cancelled: readonly CancelledRun[]): Promise<void>;
  get(id: string): Promise<CancelRequest | undefined>;
}
