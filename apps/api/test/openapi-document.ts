import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildDocument } from '../src/openapi/document.js';

type Json = Record<string, unknown>;

export interface OpenApiOperation {
  method: string;
  path: string;
  operation: Json;
}

/** The API's OpenAPI document with a JSON Schema validator over it, for the tests. */
export function openApi(publicBaseUrl = 'http://localhost:3000') {
  const document = buildDocument(publicBaseUrl) as Json & { paths: Record<string, Record<string, Json>> };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema(document, 'doc');
  const pointer = (parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
  const operations: OpenApiOperation[] = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
  return {
    document,
    operations,
    /** Problems of `value` against the schema at this place of the document; [] when it is valid. */
    problems(parts: string[], value: unknown): string[] {
      const validate = ajv.getSchema(`doc#/${pointer(parts)}`);
      if (!validate) throw new Error(`no schema at ${parts.join(' / ')}`);
      return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message} ${JSON.stringify(e.params)}`);
    },
  };
}
