import { whileUnavailable } from './while-unavailable.js';

const terminated = () => Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });

it('tries again while the database cannot be reached, and answers what the work answers once it can', async () => {
  let calls = 0;
  const answer = await whileUnavailable(
    async () => {
      calls += 1;
      if (calls < 3) throw terminated();
      return 'recorded';
    },
    { forMs: 5_000 },
  );
  expect(answer).toBe('recorded');
  expect(calls).toBe(3);
});

it('throws any other failure at once', async () => {
  let calls = 0;
  const refused = Object.assign(new Error('value too long'), { code: '22001' });
  await expect(
    whileUnavailable(async () => {
      calls += 1;
      throw refused;
    }, { forMs: 5_000 }),
  ).rejects.toBe(refused);
  expect(calls).toBe(1);
});

it('gives up after forMs with the last failure', async () => {
  const started = Date.now();
  await expect(
    whileUnavailable(async () => {
      throw terminated();
    }, { forMs: 400 }),
  ).rejects.toThrow(/terminating connection/);
  expect(Date.now() - started).toBeLessThan(1_500);
});
