import { isUnavailable, unavailableReason } from './unavailable.js';

// The shapes drivers really produce are in packages/core/test/unavailable-errors.test.ts; these
// are the codes a test cannot easily make a server send.

it.each([
  [{ code: '08006', message: 'connection failure' }, 'connection lost'],
  [{ code: '08001', message: 'could not connect' }, 'unreachable'],
  [{ code: '57P03', message: 'the database system is starting up' }, 'starting or stopping'],
  [{ code: '53100', message: 'could not extend file: No space left on device' }, 'overloaded'],
  [{ code: 'P1017', message: 'Server has closed the connection.' }, 'connection lost'],
  [{ code: 'EAI_AGAIN', message: 'getaddrinfo EAI_AGAIN pg.internal' }, 'unreachable'],
  [{ message: 'outer', cause: { message: 'middle', cause: { code: '57014', message: 'canceling statement due to statement timeout' } } }, 'timeout'],
  [{ code: 'P2039', message: 'Invalid invocation', meta: { driverAdapterError: { cause: { kind: 'postgres', code: '57P01' } } } }, 'connection lost'],
  [{ code: 'P2010', message: 'Raw query failed. Code: `57P03`. Message: `the database system is shutting down`' }, 'starting or stopping'],
])('%j is %s', (error, reason) => {
  expect(unavailableReason(error)).toBe(reason);
  expect(isUnavailable(error)).toBe(true);
});

it.each([
  [{ code: '23505', message: 'duplicate key value violates unique constraint' }],
  [{ code: 'CQ001', message: 'workspace wsp_x is over its quota of 10 jobs' }],
  [{ code: 'P2010', message: 'Raw query failed. Code: `42601`. Message: `syntax error`' }],
  [new Error('something else')],
  [null],
  ['a string'],
])('%j is not unavailable', (error) => {
  expect(unavailableReason(error)).toBeNull();
});

it('follows a cause chain that loops without hanging', () => {
  const a: { message: string; cause?: unknown } = { message: 'a' };
  a.cause = { message: 'b', cause: a };
  expect(unavailableReason(a)).toBeNull();
});
