import { fieldErrors } from './job-form.js';

describe('fieldErrors', () => {
  it('shows a problem that names two fields next to each of them: a wait longer than the run deadline', () => {
    const details = [
      { path: 'steps[1].timeout_seconds', message: 'is 3600 s, not less than max_workflow_duration_seconds (1800 s, the default)' },
      { path: 'max_workflow_duration_seconds', message: 'is 1800 s (the default), not more than steps[1].timeout_seconds (3600 s)' },
    ];
    // With the step list, the step's half goes beside that step's Timeout field.
    expect(fieldErrors(details, 'workflow')).toEqual({
      'steps[1].timeout_seconds': ['is 3600 s, not less than max_workflow_duration_seconds (1800 s, the default)'],
      max_workflow_duration_seconds: ['is 1800 s (the default), not more than steps[1].timeout_seconds (3600 s)'],
    });
    // Edited as JSON only, it goes beside the Steps box, naming the step.
    expect(fieldErrors(details, 'workflow', true)).toEqual({
      steps: ['steps[1].timeout_seconds: is 3600 s, not less than max_workflow_duration_seconds (1800 s, the default)'],
      max_workflow_duration_seconds: ['is 1800 s (the default), not more than steps[1].timeout_seconds (3600 s)'],
    });
  });
});
