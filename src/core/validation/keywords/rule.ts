/**
 * The contract of a keyword rule: what one ajv error of a keyword family is turned into. The renderer
 * (diagnostics.ts) builds a {@link KeywordContext} per error and looks its keyword up in the table (index.ts).
 */
import type { ErrorObject } from 'ajv';
import type { ErrorCode } from '../../shared/codes.js';
import type { JsonValue } from '../../shared/json.js';
import { boundedList } from '../../shared/text.js';
import type { Diagnostic } from '../../shared/types.js';
import type { ErrorNode } from '../ajv-error-tree.js';
import type { SchemaIndex } from '../schema-index.js';

/** Builds a diagnostic of the keyword being rendered (its name goes into the details). */
export type Make = (code: ErrorCode, at: string, message: string, hint: string, details?: Record<string, JsonValue>) => Diagnostic;

/** What a rule knows of the error it renders, computed once by the renderer. */
export interface KeywordContext {
  readonly error: ErrorObject;
  /** The errors this one explains (the adopted subschema errors of `contains` and `propertyNames`). */
  readonly children: readonly ErrorNode[];
  /** The JSON Pointer of the offending value. */
  readonly path: string;
  /** How messages name the value (`"currency"`, `the arguments`), and the same capitalized. */
  readonly name: string;
  readonly Name: string;
  readonly data: unknown;
  /** The schema object holding the keyword, and its `description`. */
  readonly parent: unknown;
  readonly description: string | undefined;
  readonly make: Make;
  readonly index: SchemaIndex;
  /** The whole arguments, to find the schema of a value from the root. */
  readonly args: JsonValue;
  /** A short English description of what a schema accepts, as the renderer phrases alternatives. */
  readonly summarize: (schema: unknown) => string;
}

/** One keyword's rendering; undefined leaves the error to the generic `schema_violation`. */
export type KeywordRule = (context: KeywordContext) => Diagnostic | undefined;

/** A keyword family: its keywords and their rules. */
export type KeywordFamily = Readonly<Record<string, KeywordRule>>;

/** The verb for the value at `pointer`: the root is named "the arguments", a plural. */
export function agree(pointer: string, singular: string, pluralForm: string): string {
  return pointer === '' ? pluralForm : singular;
}

/** A details list of values quoted from the schema, bounded, with `<key>NotListed` counting what did not fit. */
export function listDetails(key: string, values: readonly unknown[]): Record<string, JsonValue> {
  const { listed, notListed } = boundedList(values);
  return notListed === 0 ? { [key]: listed } : { [key]: listed, [`${key}NotListed`]: notListed };
}
