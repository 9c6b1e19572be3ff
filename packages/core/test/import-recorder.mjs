// `node --import` this file to record which @opentelemetry packages a process imports: each
// resolution is appended to $RECORD_IMPORTS_FILE as "<pid> <specifier>". A test reads it to tell
// whether a process of the service loaded the SDK.
import { register } from 'node:module';

if (process.env.RECORD_IMPORTS_FILE) {
  register('./import-recorder-hooks.mjs', import.meta.url, { data: { file: process.env.RECORD_IMPORTS_FILE } });
}
