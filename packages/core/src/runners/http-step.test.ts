import { mayBeJson } from './http-step.js';

it.each(['{"a":1}', '[1]', ' "s"', '-1', '42', 'true', 'false', 'null', '\uFEFF{}', '\n\t{}'])('lets %j through to the JSON parser', (text) => {
  expect(mayBeJson(text)).toBe(true);
});

it.each(['ok', '', '<html>', 'OK {"a":1}', '   '])('keeps %j away from the JSON parser', (text) => {
  expect(mayBeJson(text)).toBe(false);
});
