import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from './config.js';

const keyFile = path.join(mkdtempSync(path.join(tmpdir(), 'cronsvc-config-')), 'secrets.key');

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env, keyFile);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message.split('\n').slice(1).map((line) => line.replace(/^\s+- /, ''));
  }
  throw new Error('expected a configuration error');
}

describe('loadConfig messages', () => {
  it('reports every bad variable at once, each as "<NAME>: <what is wrong>"', () => {
    expect(problemsOf({ PORT: 'x', REDIS_URL: 'http://r', LOG_LEVEL: 'loud' })).toEqual([
      'PORT: must be a number',
      'REDIS_URL: must be an absolute URL with the scheme redis|rediss',
      'LOG_LEVEL: must be one of error, warn, info, http, verbose, debug, silly, silent',
    ]);
  });

  it('says that DATABASE_URL may also be "embedded"', () => {
    expect(problemsOf({ DATABASE_URL: 'mysql://db/x' })).toEqual(['DATABASE_URL: must be a postgres:// or postgresql:// URL, or embedded for the embedded PostgreSQL']);
    expect(loadConfig({ DATABASE_URL: 'embedded' }, keyFile).databaseUrl).toBe('embedded');
  });

  it('says how to make an encryption key when one is missing in production or malformed', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual(['SECRETS_ENCRYPTION_KEY: is required when NODE_ENV=production; make one with: openssl rand -base64 32']);
    expect(problemsOf({ SECRETS_ENCRYPTION_KEY: 'c2hvcnQ=' })).toEqual(['SECRETS_ENCRYPTION_KEY: must be 32 bytes, base64-encoded; make one with: openssl rand -base64 32']);
    expect(problemsOf({ SECRETS_ENCRYPTION_KEY: 'not base64!' })).toHaveLength(1);
  });

  it('says how to make a production token that is too short', () => {
    const key = randomBytes(32).toString('base64');
    expect(problemsOf({ NODE_ENV: 'production', SECRETS_ENCRYPTION_KEY: key, ADMIN_TOKEN: 'short' })).toEqual([
      'ADMIN_TOKEN: must be at least 32 characters long when NODE_ENV=production (it is 5); make one with: openssl rand -base64 32',
    ]);
  });

  it('takes the stop grace period in whole seconds, 30 by default, 0 to hand work back at once', () => {
    expect(loadConfig({}, keyFile).stopGraceMs).toBe(30_000);
    expect(loadConfig({ STOP_GRACE_SECONDS: '0' }, keyFile).stopGraceMs).toBe(0);
    expect(problemsOf({ STOP_GRACE_SECONDS: '-1' })).toEqual(['STOP_GRACE_SECONDS: must be at least 0']);
    expect(problemsOf({ STOP_GRACE_SECONDS: '1.5' })).toEqual(['STOP_GRACE_SECONDS: must be a whole number']);
  });

  it('accepts a key made the way the message says', () => {
    const key = randomBytes(32).toString('base64');
    expect(loadConfig({ NODE_ENV: 'production', SECRETS_ENCRYPTION_KEY: key }, keyFile).secretsEncryptionKey).toEqual(Buffer.from(key, 'base64'));
  });
});

describe('loadConfig for stores past one machine', () => {
  it('reads DATABASE_POOL_SIZE, leaving each app its default when unset', () => {
    expect(loadConfig({ DATABASE_POOL_SIZE: '8' }, keyFile).databasePoolSize).toBe(8);
    expect(loadConfig({}, keyFile).databasePoolSize).toBeUndefined();
    expect(problemsOf({ DATABASE_POOL_SIZE: '0' })).toEqual(['DATABASE_POOL_SIZE: must be at least 1']);
  });

  it('reads the Sentinels as host and port pairs', () => {
    const config = loadConfig({ REDIS_SENTINELS: 'sentinel-1:26379,10.0.0.7:26380', REDIS_SENTINEL_MASTER: 'queues' }, keyFile);
    expect(config.redisSentinels).toEqual([
      { host: 'sentinel-1', port: 26379 },
      { host: '10.0.0.7', port: 26380 },
    ]);
    expect(config.redisSentinelMaster).toBe('queues');
    expect(problemsOf({ REDIS_SENTINELS: 'sentinel-1' })).toEqual(['REDIS_SENTINELS: must be host:port[,host:port...]']);
  });

  it('gives a Cluster the hash-tagged prefix {cronsvc} and refuses a prefix without a hash tag', () => {
    expect(loadConfig({ REDIS_CLUSTER: 'true' }, keyFile).redisPrefix).toBe('{cronsvc}');
    expect(loadConfig({ REDIS_CLUSTER: 'true', REDIS_PREFIX: '{prod}:cronsvc' }, keyFile).redisPrefix).toBe('{prod}:cronsvc');
    expect(loadConfig({}, keyFile).redisPrefix).toBe('cronsvc');
    expect(problemsOf({ REDIS_CLUSTER: 'true', REDIS_PREFIX: 'cronsvc' })).toEqual([
      'REDIS_PREFIX: must start with a hash tag in braces, such as {cronsvc}, when REDIS_CLUSTER=true',
    ]);
    expect(problemsOf({ REDIS_CLUSTER: 'true', REDIS_SENTINELS: 's:26379' })).toEqual([
      'REDIS_CLUSTER: cannot be used with REDIS_SENTINELS (a Cluster is found from REDIS_URL)',
    ]);
  });
});

describe('loadConfig for traces', () => {
  it('is off without OTEL_EXPORTER_OTLP_ENDPOINT, and appends the traces path to it', () => {
    expect(loadConfig({}, keyFile).otlpTracesUrl).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, keyFile).otlpTracesUrl).toBe('http://collector:4318/v1/traces');
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com/base/' }, keyFile).otlpTracesUrl).toBe('https://otel.example.com/base/v1/traces');
    expect(problemsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4317' })).toEqual(['OTEL_EXPORTER_OTLP_ENDPOINT: must be an absolute URL with the scheme http|https']);
  });

  it('reads OTEL_EXPORTER_OTLP_HEADERS as name=value pairs, values percent-decoded', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'x-honeycomb-team=abc%3D, x-tenant = t1' }, keyFile).otlpHeaders).toEqual({ 'x-honeycomb-team': 'abc=', 'x-tenant': 't1' });
    expect(loadConfig({}, keyFile).otlpHeaders).toEqual({});
    expect(problemsOf({ OTEL_EXPORTER_OTLP_HEADERS: 'no-equals-sign' })).toEqual(['OTEL_EXPORTER_OTLP_HEADERS: must be name=value[,name=value...] (values URL-encoded)']);
  });
});
