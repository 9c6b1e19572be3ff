// Generates the Prisma client after install. Machines without internet cannot download
// Prisma's schema engine and `prisma generate` only needs some executable there, so a
// no-op stub stands in unless PRISMA_SCHEMA_ENGINE_BINARY already names a real engine.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const env = { ...process.env };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) env.PRISMA_SCHEMA_ENGINE_BINARY = existsSync('/bin/true') ? '/bin/true' : '/usr/bin/true';
const result = spawnSync('npx', ['--no-install', 'prisma', 'generate'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
