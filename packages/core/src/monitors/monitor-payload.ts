/** A timestamptz as the API writes timestamps: ISO 8601 UTC with milliseconds. */
const isoSql = (expression: string) => `to_char(${expression} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * SQL building the monitor event payload (monitor.down / monitor.recovered) from a monitors row
 * `alias` as it is at that moment, for statements that change a monitor and write its outbox event
 * together: {event, monitor: {id, name, expected_interval_sec, last_ping_at}, timestamp}.
 */
export function monitorPayloadSql(alias: string, eventName: string, atParam: string): string {
  return `jsonb_build_object(
    'event', '${eventName}',
    'monitor', jsonb_build_object('id', ${alias}.id, 'name', ${alias}.name, 'expected_interval_sec', ${alias}.expected_interval_sec,
                                  'last_ping_at', ${isoSql(`${alias}.last_ping_at`)}),
    'timestamp', ${isoSql(atParam)})`;
}
