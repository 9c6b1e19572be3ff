import { extractValues, MAX_EXTRACTED_BYTES } from './extract-values.js';
import type { Step } from '@cronsvc/contracts';

const wait = (extra: Partial<Step>): Step => ({ id: 'w', type: 'wait_for_webhook', on_timeout: 'fail', ...extra }) as Step;

it('puts extract values in the run context and extract_to_context values in both, as strings for the store', () => {
  const step = wait({ extract: { id: '$.id', tags: '$.tags[*]' }, extract_to_context: { cursor: '$.next', obj: '$.meta' } });
  const result = extractValues(step, { id: 5, tags: ['a', 'b'], next: 'c-2', meta: { n: 1 } }, { kept: 'yes', id: 'old' });
  expect(result).toEqual({
    extracted: { id: 5, tags: ['a', 'b'], cursor: 'c-2', obj: { n: 1 } },
    context: { kept: 'yes', id: 5, tags: ['a', 'b'], cursor: 'c-2', obj: { n: 1 } },
    storeChanges: { cursor: 'c-2', obj: '{"n":1}' },
  });
});

it('sets what matched nothing to null, and leaves the store alone for it', () => {
  const result = extractValues(wait({ extract: { a: '$.missing' }, extract_to_context: { b: '$.missing' } }), null, {});
  expect(result).toEqual({ extracted: { a: null, b: null }, context: { a: null, b: null }, storeChanges: {} });
  // An http step whose body is not JSON has no document: even $ finds nothing.
  expect(extractValues(wait({ extract_to_context: { whole: '$' } }), undefined, {})).toEqual({ extracted: { whole: null }, context: { whole: null }, storeChanges: {} });
});

it('refuses a value too big to keep', () => {
  const result = extractValues(wait({ extract: { big: '$.big' } }), { big: 'x'.repeat(MAX_EXTRACTED_BYTES) }, {});
  expect(result).toEqual({ problem: expect.stringContaining('"big" is larger than') });
});
