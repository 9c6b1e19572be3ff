import {
  findPlaceholders, findReferences, parseVariable, placeholderSafeUrl, referencedSecretNames, renderRequest, renderString,
  unknownVariableProblems, type VariableValues,
} from './template.js';

const values: VariableValues = {
  timestamp: '2030-01-02T03:04:05.678Z',
  uuid: '123e4567-e89b-42d3-a456-426614174000',
  execution_id: 'exe_abc',
  secrets: new Map([
    ['API_KEY', 'sk_live_1'],
    ['tricky', 'x{{uuid}}y {{secret.API_KEY}}'],
  ]),
};

describe('parseVariable', () => {
  it.each([
    ['timestamp', { kind: 'timestamp' }],
    ['uuid', { kind: 'uuid' }],
    ['execution_id', { kind: 'execution_id' }],
    ['secret.API_KEY', { kind: 'secret', name: 'API_KEY' }],
    ['secret._x1', { kind: 'secret', name: '_x1' }],
  ])('knows {{%s}}', (expression, expected) => {
    expect(parseVariable(expression)).toEqual(expected);
  });

  it.each(['', 'foo', 'UUID', 'secret', 'secret.', 'secret.1abc', 'secret.a-b', 'secret.a.b', `secret.${'a'.repeat(65)}`, 'context.x'])(
    'treats {{%s}} as unknown',
    (expression) => {
      expect(parseVariable(expression)).toBeNull();
    },
  );
});

describe('findPlaceholders', () => {
  it('allows whitespace inside the braces and ignores text that is not a complete placeholder', () => {
    const found = findPlaceholders('a {{ uuid }} b {{timestamp}} {single} {{ unclosed } {{secret.K}}');
    expect(found.map((f) => [f.placeholder, f.variable])).toEqual([
      ['{{ uuid }}', { kind: 'uuid' }],
      ['{{timestamp}}', { kind: 'timestamp' }],
      ['{{secret.K}}', { kind: 'secret', name: 'K' }],
    ]);
  });
});

describe('findReferences', () => {
  it('names the exact path of every placeholder in URL, header values, and strings at any depth of a JSON body', () => {
    const refs = findReferences({
      url: 'https://api.example.com/items/{{uuid}}',
      headers: { 'X-Api-Key': '{{secret.API_KEY}}', Plain: 'no placeholder' },
      body: { nested: { field: '{{nope}}' }, list: [1, 'a', '{{ execution_id }}'], n: 3, flag: true, empty: null },
    });
    expect(refs.map((r) => [r.path, r.placeholder])).toEqual([
      ['request.url', '{{uuid}}'],
      ['request.headers.X-Api-Key', '{{secret.API_KEY}}'],
      ['request.body.nested.field', '{{nope}}'],
      ['request.body.list[2]', '{{ execution_id }}'],
    ]);
  });

  it('uses request.body[i] for a top-level array and request.body for a string body', () => {
    expect(findReferences({ url: 'https://x.test/', headers: {}, body: ['a', 'b', '{{uuid}}'] }).map((r) => r.path)).toEqual(['request.body[2]']);
    expect(findReferences({ url: 'https://x.test/', headers: {}, body: 'id={{uuid}}' }).map((r) => r.path)).toEqual(['request.body']);
  });
});

describe('unknownVariableProblems and referencedSecretNames', () => {
  const refs = findReferences({
    url: 'https://x.test/{{secret.A}}',
    headers: { Auth: '{{secret.B}} {{secret.A}}' },
    body: ['{{whatever}}', { k: '{{secret.bad-name}}' }],
  });

  it('reports each unknown placeholder at its path', () => {
    expect(unknownVariableProblems(refs)).toEqual([
      { path: 'request.body[0]', message: expect.stringContaining('{{whatever}} is not a known variable') },
      { path: 'request.body[1].k', message: expect.stringContaining('{{secret.bad-name}} is not a known variable') },
    ]);
  });

  it('lists each referenced secret once', () => {
    expect(referencedSecretNames(refs)).toEqual(['A', 'B']);
  });
});

describe('renderString', () => {
  it('substitutes every known variable, with or without inner whitespace', () => {
    expect(renderString('{{timestamp}}|{{ uuid }}|{{execution_id}}|{{secret.API_KEY}}', values)).toBe(
      '2030-01-02T03:04:05.678Z|123e4567-e89b-42d3-a456-426614174000|exe_abc|sk_live_1',
    );
  });

  it('never re-scans substituted text: placeholders inside a secret value stay literal', () => {
    expect(renderString('[{{secret.tricky}}]', values)).toBe('[x{{uuid}}y {{secret.API_KEY}}]');
  });

  it('leaves unknown placeholders and secrets it was not given as written', () => {
    expect(renderString('{{nope}} {{secret.MISSING}} {{uuid}}', values)).toBe(`{{nope}} {{secret.MISSING}} ${values.uuid}`);
  });
});

describe('renderRequest', () => {
  it('renders URL, header values and every string of a JSON body, leaving keys, names and non-strings alone', () => {
    const out = renderRequest(
      {
        url: 'https://api.example.com/items/{{uuid}}?at={{timestamp}}',
        headers: { 'X-{{uuid}}': '{{secret.API_KEY}}' },
        body: { '{{uuid}}': ['{{execution_id}}', 7, null, { deep: 'k={{secret.API_KEY}}' }], ok: false },
      },
      values,
    );
    expect(out).toEqual({
      url: `https://api.example.com/items/${values.uuid}?at=${values.timestamp}`,
      headers: { 'X-{{uuid}}': 'sk_live_1' },
      body: { '{{uuid}}': ['exe_abc', 7, null, { deep: 'k=sk_live_1' }], ok: false },
    });
  });

  it('renders a string body and keeps a null body null', () => {
    expect(renderRequest({ url: 'https://x.test/', headers: {}, body: 'id={{execution_id}}' }, values).body).toBe('id=exe_abc');
    expect(renderRequest({ url: 'https://x.test/', headers: {}, body: null }, values).body).toBeNull();
  });
});

describe('placeholderSafeUrl', () => {
  it('turns a URL with placeholders into a parseable http(s) URL', () => {
    const safe = placeholderSafeUrl('https://{{secret.HOST}}/items/{{ uuid }}?t={{timestamp}}#{{nope}}');
    expect(safe).toBe('https://x/items/x?t=x#x');
    expect(new URL(safe).protocol).toBe('https:');
  });

  it('leaves a URL without placeholders unchanged', () => {
    expect(placeholderSafeUrl('https://example.com/a?b=c')).toBe('https://example.com/a?b=c');
  });
});
