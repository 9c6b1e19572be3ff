// The module hooks of import-recorder.mjs (they run on the loader's thread of the same process).
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data.file;
}

export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@opentelemetry/')) appendFileSync(file, `${process.pid} ${specifier}\n`);
  return next(specifier, context);
}
