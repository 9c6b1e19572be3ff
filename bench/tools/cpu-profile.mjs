// Loaded with `node --import` (through NODE_OPTIONS) into each service process when the bench
// runs with --profile: samples the CPU for the whole life of the process and writes a
// .cpuprofile (open it in Chrome DevTools or speedscope) to BENCH_PROFILE_DIR when it exits.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Session } from 'node:inspector';

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const name = process.env.BENCH_PROFILE_NAME || `pid-${process.pid}`;
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 500 });
  session.post('Profiler.start');
  // The in-process inspector answers synchronously, so this completes inside 'exit'.
  process.on('exit', () => {
    session.post('Profiler.stop', (error, result) => {
      if (error) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `${name}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
