import { readFile } from 'node:fs/promises';
import path from 'node:path';
import request from 'supertest';
import { parse as parseYaml } from 'yaml';
import { ADMIN_TOKEN, parsePrometheus, repoRoot } from '@cronsvc/core/testing';
import { useApiApp } from './api-app.js';

// The Grafana dashboard and the Prometheus alert rules of docs/grafana/ parse, and every metric
// they query is one the service exports (names read from a real scrape of /metrics).
const api = useApiApp();

const PROMQL_WORDS = new Set([
  'sum', 'min', 'max', 'avg', 'count', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool',
  'rate', 'irate', 'increase', 'delta', 'deriv', 'absent', 'histogram_quantile', 'topk', 'bottomk', 'offset', 'le', 'inf', 'nan',
]);

/** The metric names a PromQL expression reads. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, '')
    .replace(/\[[^\]]*\]/g, '');
  return [...bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)].map(([name]) => name).filter((name) => !PROMQL_WORDS.has(name.toLowerCase()));
}

let exported: Set<string>;

beforeAll(async () => {
  const res = await request(api.app).get('/metrics').set('Authorization', `Bearer ${ADMIN_TOKEN}`).expect(200);
  // By family, so a family without a sample yet (no request counted) still counts as exported.
  const suffixes: Record<string, string[]> = { histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'] };
  exported = new Set([...parsePrometheus(res.text).types].flatMap(([family, type]) => (suffixes[type] ?? ['']).map((suffix) => family + suffix)));
});

it('reads metric names from an expression, and fails on a name the service does not export', () => {
  expect(metricNames('histogram_quantile(0.95, sum by (le, route) (rate(cronsvc_http_request_duration_seconds_bucket{status_code=~"5.."}[5m]))) > 1')).toEqual([
    'cronsvc_http_request_duration_seconds_bucket',
  ]);
  expect(exported.has('cronsvc_no_such_metric')).toBe(false);
});

it('has a dashboard whose every panel queries metrics the service exports', async () => {
  const dashboard = JSON.parse(await readFile(path.join(repoRoot, 'docs/grafana/cronsvc-dashboard.json'), 'utf8')) as { title: string; panels: { title: string; targets: { expr: string }[] }[] };
  expect(dashboard.title).toBe('cron-service');
  const expressions = dashboard.panels.flatMap((p) => p.targets.map((t) => [p.title, t.expr] as const));
  expect(expressions.length).toBeGreaterThan(15);
  for (const [title, expr] of expressions) {
    const names = metricNames(expr);
    expect([title, names.length]).not.toEqual([title, 0]);
    for (const name of names) expect([title, name, exported.has(name)]).toEqual([title, name, true]);
  }
});

it('has alert rules for fire lag, missed fires, DLQ growth and readiness, each on metrics the service exports', async () => {
  const rules = parseYaml(await readFile(path.join(repoRoot, 'docs/grafana/alerts.yml'), 'utf8')) as { groups: { rules: { alert: string; expr: string; for: string; labels: { severity: string } }[] }[] };
  const all = rules.groups.flatMap((g) => g.rules);
  expect(all.map((r) => r.alert)).toEqual(expect.arrayContaining(['CronsvcNotReady', 'CronsvcReadinessCheckFailing', 'CronsvcFiresLate', 'CronsvcFireLagHigh', 'CronsvcDlqGrowing', 'CronsvcFiresMissed']));
  for (const rule of all) {
    expect([rule.alert, typeof rule.expr, rule.labels.severity]).toEqual([rule.alert, 'string', expect.stringMatching(/^(critical|warning|info)$/)]);
    expect(rule.for).toMatch(/^\d+[smh]$/);
    for (const name of metricNames(rule.expr)) expect([rule.alert, name, exported.has(name)]).toEqual([rule.alert, name, true]);
  }
});
