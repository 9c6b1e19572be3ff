import type { Step } from '@cronsvc/contracts';
import { parseStepVariable, renderStepJson, renderStepString, renderStepUrl, shownStepUrl, stepSecretNames, stepTemplateProblems, type StepValues } from './step-template.js';

const values: StepValues = {
  timestamp: '2030-01-02T03:04:05.678Z',
  uuid: '123e4567-e89b-42d3-a456-426614174000',
  execution_id: 'exe_abc',
  secrets: new Map([['KEY', 'sk_1']]),
  context: { user: { id: 7, tags: ['a', 'b'] }, name: 'Ada', sneaky: '{{uuid}}', nothing: null },
  trigger: {
    headers: { 'x-event': 'push', 'content-type': 'application/json' },
    body: { items: [{ id: 'i0' }, { id: 'i1' }], ok: true },
    query: { page: '2', tag: ['x', 'y'] },
    source_ip: '203.0.113.9',
    received_at: '2030-01-02T03:04:00.000Z',
  },
};

describe('parseStepVariable', () => {
  it.each([
    ['context.name', { root: 'context', key: 'name', path: [] }],
    ['context.user.tags.1', { root: 'context', key: 'user', path: ['tags', '1'] }],
    ['trigger.headers.X-Event', { root: 'trigger', part: 'headers', path: ['X-Event'] }],
    ['trigger.body', { root: 'trigger', part: 'body', path: [] }],
    ['trigger.body.items.0.id', { root: 'trigger', part: 'body', path: ['items', '0', 'id'] }],
    ['trigger.query.page', { root: 'trigger', part: 'query', path: ['page'] }],
    ['trigger.source_ip', { root: 'trigger', part: 'source_ip', path: [] }],
    ['uuid', { root: 'variable', variable: { kind: 'uuid' } }],
  ])('reads {{%s}}', (expression, expected) => {
    expect(parseStepVariable(expression)).toEqual(expected);
  });

  it.each(['context', 'context.', 'context.a..b', 'context.bad key', 'trigger', 'trigger.cookies', 'trigger.headers.a.b', 'trigger.source_ip.x', 'trigger.query.a.b', 'ctx.a', 'env.HOME'])(
    'refuses {{%s}}',
    (expression) => {
      expect(parseStepVariable(expression)).toBeNull();
    },
  );
});

describe('renderStepString', () => {
  it('renders context and trigger values, strings as they are and other JSON as its text', () => {
    expect(renderStepString('{{context.name}} {{context.user.id}} {{context.user.tags}} {{context.user.tags.0}}', values)).toBe('Ada 7 ["a","b"] a');
    expect(renderStepString('{{trigger.headers.X-EVENT}}|{{trigger.body.items.1.id}}|{{trigger.query.tag}}|{{trigger.source_ip}}|{{trigger.body.ok}}', values)).toBe('push|i1|["x","y"]|203.0.113.9|true');
    expect(renderStepString('{{execution_id}} {{secret.KEY}}', values)).toBe('exe_abc sk_1');
  });

  it('renders what is missing or null as nothing, and never scans a value it brought in', () => {
    expect(renderStepString('[{{context.missing}}][{{context.nothing}}][{{trigger.body.items.9.id}}][{{context.name.length}}]', values)).toBe('[][][][]');
    expect(renderStepString('{{context.sneaky}}', values)).toBe('{{uuid}}');
    expect(renderStepString('{{trigger.body.ok}}', { ...values, trigger: null })).toBe('');
  });

  it('renders every string at any depth of a body template, leaving keys alone', () => {
    expect(renderStepJson({ '{{context.name}}': ['{{context.user.id}}', 1, null, { deep: '{{trigger.query.page}}' }] }, values)).toEqual({ '{{context.name}}': ['7', 1, null, { deep: '2' }] });
  });
});

describe('renderStepUrl and shownStepUrl', () => {
  it('percent-encode trigger and context values in the path and query, never letting them reach the host', () => {
    expect(renderStepUrl('https://x.test/u/{{context.name}}?tag={{trigger.query.page}}&a=b c', values)).toBe('https://x.test/u/Ada?tag=2&a=b c');
    expect(renderStepUrl('https://x.test/{{context.sneaky}}?q={{context.user.tags}}', values)).toBe('https://x.test/%7B%7Buuid%7D%7D?q=%5B%22a%22%2C%22b%22%5D');
    expect(renderStepUrl('https://{{context.name}}.x.test/', values)).toBeNull();
  });

  it('shows a URL whose host holds [secret] as it is, where sending would refuse it', () => {
    const masked = { ...values, secrets: new Map([['KEY', '[secret]']]) };
    expect(renderStepUrl('https://{{secret.KEY}}.x.test/a', values)).toBe('https://sk_1.x.test/a');
    expect(renderStepUrl('https://{{secret.KEY}}/a', masked)).toBeNull();
    expect(shownStepUrl('https://{{secret.KEY}}/a?u={{context.name}}', masked)).toBe('https://[secret]/a?u=Ada');
  });
});

describe('stepTemplateProblems', () => {
  const http = (extra: Partial<Step> = {}): Step => ({ id: 'h', type: 'http', url: 'https://x.test/{{context.a}}', method: 'GET', headers: {}, timeout_seconds: 30, success_statuses: [200], ...extra }) as Step;

  it('reports unknown roots and trigger values outside webhook_trigger jobs at their paths, and collects secrets', () => {
    const steps: Step[] = [
      http({ headers: { A: '{{foo}}', B: '{{secret.KEY}}' }, body_template: { x: ['{{trigger.body.a}}'] } } as Partial<Step>),
      { id: 'p', type: 'approval', message: '{{secret.KEY}} {{context.k}}', on_timeout: 'reject' },
    ];
    const workflow = stepTemplateProblems(steps, 'workflow');
    expect(workflow.problems.map((p) => p.path)).toEqual(['steps[0].headers.A', 'steps[0].body_template.x[0]', 'steps[1].message']);
    expect(workflow.secrets).toEqual([{ path: 'steps[0].headers.B', name: 'KEY' }]);
    expect(stepTemplateProblems(steps, 'webhook_trigger').problems.map((p) => p.path)).toEqual(['steps[0].headers.A', 'steps[1].message']);
  });

  it('lists the secrets a step sends, once each', () => {
    expect(stepSecretNames(http({ url: 'https://x.test/{{secret.A}}', headers: { X: '{{secret.B}} {{secret.A}}' }, body_template: '{{secret.C}}' } as Partial<Step>))).toEqual(['A', 'B', 'C']);
  });
});
