/**
 * The one way the project makes an Ajv instance: the draft's class, ajv-formats, and our value keywords
 * (keywords/value-keywords.ts). The worker, the audit and `schemas push` then compare values alike: an own
 * `toString` key in an `enum` value is data, and `multipleOf: 0.01` takes 0.07, wherever a schema is checked.
 */
import { Ajv, type Options } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { useExactValueKeywords } from './keywords/value-keywords.js';

// ajv-formats is CommonJS; under NodeNext the default import is `module.exports`, whose `default` is the plugin
// (at runtime `module.exports.default === module.exports`, so this works in tsc, node and vitest alike).
const addFormats = formatsModule.default;

/** The drafts ajv validates for us; draft-06 schemas are read as draft-07. */
export type AjvDraft = '2020-12' | 'draft-07';

export type AjvInstance = Ajv | Ajv2020;

/** A new instance for `draft` with `options`, ajv-formats' formats and our `enum`, `const`, `uniqueItems` and `multipleOf`. */
export function newAjv(draft: AjvDraft, options: Options): AjvInstance {
  const ajv = draft === '2020-12' ? new Ajv2020(options) : new Ajv(options);
  addFormats(ajv);
  useExactValueKeywords(ajv);
  return ajv;
}
