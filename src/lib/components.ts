/**
 * Names a schema for the OpenAPI document: http/openapi.ts moves every schema carrying this key
 * into `components.schemas` under the name and refers to it by `$ref`, so generated clients get
 * one named type per shape. Validation and serialization ignore the key (an annotation).
 */
export const COMPONENT_KEY = 'x-component';

/** Schema options naming the schema `name` in the document's components. */
export function component(name: string): { [COMPONENT_KEY]: string } {
  return { [COMPONENT_KEY]: name };
}
