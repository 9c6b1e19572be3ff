/** The execution event payload (docs/NOTIFICATIONS.md), sent to callbacks and webhook channels. */
export interface ExecutionEvent {
  event: string;
  job: { id: string; name: string };
  execution: { id: string; status: string; status_code: number | null; body_preview: string | null; error_class: string | null };
  output: unknown;
  timestamp: string;
  /** A rule's delivery: events its rule held back since its last delivery (docs/NOTIFICATIONS.md). */
  held_back?: number;
  /** on_failure deliveries: the public link that snoozes the rule. */
  snooze_url?: string;
  /** execution.recovered: the failures of the streak that ended. */
  consecutive_failures?: number;
}

export function executionEvent(input: {
  status: 'succeeded' | 'failed';
  job: { id: string; name: string };
  executionId: string;
  statusCode: number | null;
  bodyPreview: string | null;
  errorClass: string | null;
  output: unknown;
  at: Date;
}): ExecutionEvent {
  return {
    event: `execution.${input.status}`,
    job: input.job,
    execution: {
      id: input.executionId,
      status: input.status,
      status_code: input.statusCode,
      body_preview: input.bodyPreview,
      error_class: input.errorClass,
    },
    output: input.output ?? null,
    timestamp: input.at.toISOString(),
  };
}
