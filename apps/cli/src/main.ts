import { createProgram, wantsJson } from './program.js';
import { report } from './report.js';

const json = wantsJson(process.argv.slice(2));
// With --json, commander's error texts are held and reported as JSON instead.
const held: string[] = [];
try {
  await createProgram({ writeErr: json ? (text) => void held.push(text) : undefined }).parseAsync(process.argv);
} catch (error) {
  process.exitCode = report(error, (text) => process.stderr.write(text), { json, held: held.join('') });
}
