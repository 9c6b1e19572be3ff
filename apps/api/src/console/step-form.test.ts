import {
  afterStepAction, applyStepAction, editorOf, fingerprint, listFingerprint, postedRows, postedSteps, rowFromStep, stepErrorField, stepsFromRows,
  STEPS_JSON_BASE, STEPS_LIST_BASE, type StepRow,
} from './step-form.js';

const STEPS = [
  {
    id: 'build',
    type: 'http',
    url: 'https://example.com/build',
    method: 'POST',
    headers: { Authorization: 'Bearer {{secret.KEY}}' },
    body_template: { sha: '{{trigger.body.after}}' },
    timeout_seconds: 30,
    success_statuses: [200, 201],
    response_matcher: { success_pattern: 'ok', flags: 'i' },
    extract: { build_id: '$.id' },
  },
  { id: 'wait', type: 'wait_for_webhook', timeout_seconds: 600, on_timeout: 'continue' },
  { id: 'review', type: 'approval', message: 'Ship {{context.build_id}}?', on_timeout: 'reject', extract_to_context: { last: '$.decision' } },
];

/** The form's values for these rows, as the page posts them back untouched. */
function posted(rows: StepRow[], extra: Record<string, string> = {}): Record<string, string> {
  const editor = editorOf(stepsFromRows(rows));
  const values: Record<string, string> = { steps: editor.json.replace(/\n/g, '\r\n'), [STEPS_JSON_BASE]: editor.jsonBase, [STEPS_LIST_BASE]: listFingerprint(rows) };
  rows.forEach((row, i) => Object.entries(row).forEach(([field, value]) => (values[`steps[${i}].${field}`] = value.replace(/\n/g, '\r\n'))));
  return { ...values, ...extra };
}

describe('the step list as form fields', () => {
  it('turns each step into a row and back into the same step', () => {
    const rows = STEPS.map((s) => rowFromStep(s)!);
    expect(rows[0]).toMatchObject({ url: 'https://example.com/build', headers: 'Authorization: Bearer {{secret.KEY}}', success_statuses: '200, 201', success_pattern: 'ok', pattern_flags: 'i', extract: 'build_id: $.id' });
    expect(rows[1]).not.toHaveProperty('url');
    expect(stepsFromRows(rows)).toEqual(STEPS);
  });

  it('reads posted rows in index order, closing gaps, and ignores fields it does not know', () => {
    const rows = postedRows({ 'steps[5].id': 'b', 'steps[5].type': 'approval', 'steps[0].id': 'a', 'steps[0].type': 'http', 'steps[0].evil': 'x', 'steps[x].id': 'no' });
    expect(rows).toEqual([{ id: 'a', type: 'http' }, { id: 'b', type: 'approval' }]);
  });

  it('leaves empty fields out, so the API’s defaults apply, and reports lines it cannot read', () => {
    const errors = {};
    const step = stepsFromRows([{ id: ' one ', type: 'http', url: ' https://x.test ', method: '', headers: 'no colon', timeout_seconds: '', extract: '' }], errors);
    expect(step).toEqual([{ id: 'one', type: 'http', url: 'https://x.test' }]);
    expect(errors).toEqual({ 'steps[0].headers': ['line 1: write each header as Name: value'] });
  });

  it('sends a body template that is a JSON object as JSON and any other text as a string template', () => {
    const [json, text] = stepsFromRows([
      { id: 'a', type: 'http', url: 'u', body_template: '{"a": "{{uuid}}"}' },
      { id: 'b', type: 'http', url: 'u', body_template: 'plain {{uuid}}' },
    ]);
    expect(json.body_template).toEqual({ a: '{{uuid}}' });
    expect(text.body_template).toBe('plain {{uuid}}');
  });
});

describe('which editor counts', () => {
  const rows = STEPS.map((s) => rowFromStep(s)!);

  it('takes the list when the JSON box is as it was shown (whatever its line ends)', () => {
    const result = postedSteps(posted(rows, { 'steps[1].timeout_seconds': '900' }));
    expect(result.errors).toEqual({});
    expect((result.steps as { timeout_seconds?: number }[])[1].timeout_seconds).toBe(900);
  });

  it('takes the JSON when it was changed, and shows its steps in the list', () => {
    const json = JSON.stringify([{ id: 'only', type: 'approval', message: 'ok?' }]);
    const result = postedSteps(posted(rows, { steps: json }));
    expect(result.steps).toEqual([{ id: 'only', type: 'approval', message: 'ok?' }]);
    expect(result.editor.rows).toEqual([{ id: 'only', type: 'approval', message: 'ok?', timeout_seconds: '', on_timeout: '', extract: '', extract_to_context: '' }]);
    expect(result.editor.jsonBase).toBe(fingerprint(json));
    expect(result.jsonOnly).toBe(false);
  });

  it('takes JSON posted without the list (a form filled by a script)', () => {
    expect(postedSteps({ steps: '[{"id": "a", "type": "http", "url": "https://x.test"}]' }).steps).toEqual([{ id: 'a', type: 'http', url: 'https://x.test' }]);
  });

  it('keeps the list when the JSON box was emptied', () => {
    expect(postedSteps(posted(rows, { steps: '' })).steps).toEqual(STEPS);
  });

  it('saves nothing when both were changed, and takes the JSON at the next save', () => {
    const first = postedSteps(posted(rows, { steps: '[]', 'steps[0].url': 'https://changed.test' }));
    expect(first.steps).toBeUndefined();
    expect(first.errors.steps?.[0]).toMatch(/^The step list and the JSON were both changed/);
    const again = postedSteps({ ...posted(first.editor.rows), steps: first.editor.json, [STEPS_JSON_BASE]: first.editor.jsonBase });
    expect(again.errors).toEqual({});
    expect(again.steps).toEqual([]);
  });

  it('reports JSON that does not parse on the JSON box, and it stays the changed one', () => {
    const result = postedSteps(posted(rows, { steps: '[{"id": ' }));
    expect(result.errors.steps?.[0]).toMatch(/^is not valid JSON/);
    expect(result.editor).toMatchObject({ json: '[{"id": ', jsonOpen: true, jsonBase: posted(rows)[STEPS_JSON_BASE] });
  });

  it('keeps JSON the list cannot show as the thing being edited, its problems on the JSON', () => {
    const result = postedSteps(posted(rows, { steps: '[1, 2]' }));
    expect(result).toMatchObject({ steps: [1, 2], jsonOnly: true });
    expect(afterStepAction(result, 'add:http').errors.steps?.[0]).toMatch(/must be a JSON array of steps/);
  });
});

describe('list actions', () => {
  const rows: StepRow[] = [{ id: 'a', type: 'http' }, { id: 'b', type: 'approval' }, { id: 'c', type: 'wait_for_webhook' }];
  const ids = (r: StepRow[]) => r.map((x) => x.id).join();

  it('adds a step of a type with a free id, and focuses its ID', () => {
    expect(applyStepAction(rows, 'add:approval')).toEqual({ rows: [...rows, { id: 'step-4', type: 'approval' }], focus: 'step-3-id' });
    expect(applyStepAction([{ id: 'step-2', type: 'http' }], 'add:http').rows[1].id).toBe('step-3');
    expect(applyStepAction(rows, 'add:sleep').rows).toBe(rows);
    const full = Array.from({ length: 50 }, (_, i) => ({ id: `s${i}`, type: 'http' }));
    expect(applyStepAction(full, 'add:http').rows).toHaveLength(50);
  });

  it('moves a step up or down and keeps focus on the button that moved it', () => {
    expect(applyStepAction(rows, 'up:2')).toEqual({ rows: [rows[0], rows[2], rows[1]], focus: 'step-1-up' });
    expect(applyStepAction(rows, 'up:1').focus).toBe('step-0-down');
    expect(ids(applyStepAction(rows, 'down:0').rows)).toBe('b,a,c');
    expect(applyStepAction(rows, 'down:1').focus).toBe('step-2-up');
    expect(applyStepAction(rows, 'up:0').rows).toBe(rows);
    expect(applyStepAction(rows, 'down:2').rows).toBe(rows);
  });

  it('removes a step and focuses the one that takes its place, or Add when none is left', () => {
    expect(applyStepAction(rows, 'remove:1')).toEqual({ rows: [rows[0], rows[2]], focus: 'step-1-id' });
    expect(applyStepAction(rows, 'remove:2').focus).toBe('step-1-id');
    expect(applyStepAction([rows[0]], 'remove:0')).toEqual({ rows: [], focus: 'step-add-http' });
    expect(applyStepAction(rows, 'remove:9').rows).toBe(rows);
  });

  it('shows a changed type’s fields, dropping an on_timeout the new type does not take', () => {
    expect(applyStepAction([{ id: 'a', type: 'wait_for_webhook', on_timeout: 'reject' }], 'type:0')).toEqual({ rows: [{ id: 'a', type: 'wait_for_webhook' }], focus: 'step-0-type' });
    expect(applyStepAction([{ id: 'a', type: 'approval', on_timeout: 'approve' }], 'type:0').rows).toEqual([{ id: 'a', type: 'approval', on_timeout: 'approve' }]);
  });
});

describe('the API’s messages on the step list', () => {
  it('puts each detail on the field it is about', () => {
    expect(stepErrorField('steps[1].url')).toEqual({ field: 'steps[1].url', inner: '' });
    expect(stepErrorField('steps[0].headers.Host')).toEqual({ field: 'steps[0].headers', inner: 'headers.Host: ' });
    expect(stepErrorField('steps[2].response_matcher.flags')).toEqual({ field: 'steps[2].pattern_flags', inner: '' });
    expect(stepErrorField('steps[2].extract.bad key')).toEqual({ field: 'steps[2].extract', inner: 'extract.bad key: ' });
    expect(stepErrorField('steps[3]')).toEqual({ field: 'steps[3]', inner: '' });
    expect(stepErrorField('steps[3].foo')).toEqual({ field: 'steps[3]', inner: 'foo: ' });
    expect(stepErrorField('steps')).toEqual({ field: 'steps', inner: '' });
    expect(stepErrorField('request.url')).toBeNull();
  });
});
