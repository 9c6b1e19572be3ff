import { decideGate, hostOf, type GateInput, type HostRules } from './gate-decision.js';

const now = Date.parse('2030-01-01T00:00:00.000Z');
const none: HostRules = { maxConcurrency: null, maxPerSecond: null, cooldownUntil: null };
const limited: HostRules = { ...none, maxConcurrency: 5 };
const base: GateInput = { now, rules: undefined, waitedMs: 0, holdMs: 1_000, pollMs: 50 };

describe('decideGate', () => {
  it('lets a request go at once when its host has no rules', () => {
    expect(decideGate(base)).toEqual({ go: true });
    expect(decideGate({ ...base, rules: none })).toEqual({ go: true });
  });

  it('asks the shared limiter when the host has limits, and goes when it took a place', () => {
    expect(decideGate({ ...base, rules: limited })).toEqual({ ask: true });
    expect(decideGate({ ...base, rules: limited, limiter: 'taken' })).toEqual({ go: true });
  });

  it('waits here while the wait fits in the hold, and defers past it', () => {
    expect(decideGate({ ...base, rules: limited, limiter: { waitMs: 40 } })).toEqual({ waitMs: 40 });
    expect(decideGate({ ...base, rules: limited, limiter: 'full', waitedMs: 900 })).toEqual({ waitMs: 50 });
    expect(decideGate({ ...base, rules: limited, limiter: 'full', waitedMs: 980 })).toEqual({ deferred: new Date(now + 50) });
    expect(decideGate({ ...base, rules: limited, limiter: { waitMs: 5_000 } })).toEqual({ deferred: new Date(now + 5_000) });
  });

  it('holds every request to a cooling host until its cool-down ends, limits or not', () => {
    const cooling = { ...none, cooldownUntil: new Date(now + 30_000) };
    expect(decideGate({ ...base, rules: cooling })).toEqual({ deferred: new Date(now + 30_000) });
    expect(decideGate({ ...base, rules: { ...cooling, cooldownUntil: new Date(now + 200) } })).toEqual({ waitMs: 200 });
    expect(decideGate({ ...base, rules: { ...cooling, cooldownUntil: new Date(now - 1) } })).toEqual({ go: true });
  });
});

describe('hostOf', () => {
  it('is the lower-case host name without port', () => {
    expect(hostOf('https://API.Example.com:8443/x?y=1')).toBe('api.example.com');
    expect(hostOf('http://127.0.0.1:3000/')).toBe('127.0.0.1');
    expect(hostOf('not a url')).toBeNull();
  });
});
