import { createProgram } from './program.js';
import { report } from './report.js';

try {
  await createProgram().parseAsync(process.argv);
} catch (error) {
  process.exitCode = report(error, (text) => process.stderr.write(text));
}
