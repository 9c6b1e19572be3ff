#!/usr/bin/env node
// The CLI is TypeScript run by tsx, a dependency of this package, so the binary works from a clone
// (`npx cronsvc`) and after `npm install -g ./apps/cli` without a build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
