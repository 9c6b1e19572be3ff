import { HeldBack, type HeldBackAttempt } from './held-back.js';

let started: string[];
let heldBack: HeldBack;
const make = (cap: number, limit = 100) => {
  started = [];
  heldBack = new HeldBack({ cap, limit, start: (item: HeldBackAttempt) => started.push(item.executionId) });
};
const a = (n: number) => ({ executionId: `a${n}`, attempt: 1, workspaceId: 'wsp_a' });
const b = (n: number) => ({ executionId: `b${n}`, attempt: 1, workspaceId: 'wsp_b' });

beforeEach(() => make(2));

it('lets a workspace run up to the cap here and holds back the rest in order of arrival', () => {
  expect([1, 2, 3, 4].map((n) => heldBack.admit(a(n)))).toEqual([true, true, false, false]);
  expect(heldBack.admit(b(1))).toBe(true);
  expect(heldBack.size).toBe(2);
  heldBack.ended('wsp_a');
  expect(started).toEqual(['a3']);
  heldBack.ended('wsp_a');
  expect(started).toEqual(['a3', 'a4']);
  expect(heldBack.size).toBe(0);
});

it('lets arrivals go on again once nothing of their workspace waits', () => {
  heldBack.admit(a(1));
  heldBack.admit(a(2));
  heldBack.admit(a(3));
  heldBack.ended('wsp_a');
  heldBack.ended('wsp_a');
  expect(started).toEqual(['a3']);
  expect(heldBack.admit(a(4))).toBe(true);
});

it('puts an attempt refused for room back in front, and waits for room before trying again', () => {
  make(5);
  expect(heldBack.admit(a(1))).toBe(true);
  expect(heldBack.admit(a(2))).toBe(true);
  expect(heldBack.deferred(a(2))).toBe(true);
  // Its workspace now waits for room: a later arrival waits behind it, and nothing starts by itself.
  expect(heldBack.admit(a(3))).toBe(false);
  expect(started).toEqual([]);
  // One of its turns here ended: one request's room, so one tries.
  heldBack.ended('wsp_a');
  expect(started).toEqual(['a2']);
  // That claim reports room for two more: both start.
  heldBack.room('wsp_a', 2);
  expect(started).toEqual(['a2', 'a3']);
});

it('tries the first of a workspace waiting for room at each probe', () => {
  make(5);
  heldBack.admit(a(1));
  heldBack.deferred(a(1));
  heldBack.admit(a(2));
  heldBack.probe();
  expect(started).toEqual(['a1']);
  // Not waiting for room any more until its try is refused again.
  heldBack.probe();
  expect(started).toEqual(['a1']);
  heldBack.deferred(a(1));
  heldBack.probe();
  expect(started).toEqual(['a1', 'a1']);
});

it('holds nothing back with no cap or no workspace, and refuses past its limit', () => {
  make(0);
  expect([1, 2, 3].map((n) => heldBack.admit(a(n)))).toEqual([true, true, true]);
  make(1, 1);
  expect(heldBack.admit({ executionId: 'old', attempt: 1 })).toBe(true);
  expect(heldBack.admit({ executionId: 'old2', attempt: 1 })).toBe(true);
  expect(heldBack.admit(a(1))).toBe(true);
  expect(heldBack.admit(a(2))).toBe(false);
  // Full: the next one goes on, and its claim decides.
  expect(heldBack.admit(a(3))).toBe(true);
  expect(heldBack.deferred(a(3))).toBe(false);
});

it('keeps one place for an attempt held twice and hands everything back on release', () => {
  heldBack.admit(a(1));
  heldBack.admit(a(2));
  expect(heldBack.admit(a(3))).toBe(false);
  expect(heldBack.admit(a(3))).toBe(false);
  expect(heldBack.admit(b(1))).toBe(true);
  expect(heldBack.size).toBe(1);
  expect(heldBack.release().map((i) => i.executionId)).toEqual(['a3']);
  // Released for good: nothing is held any more, and nothing starts.
  expect(heldBack.admit(a(4))).toBe(true);
  heldBack.ended('wsp_a');
  expect(started).toEqual([]);
});
