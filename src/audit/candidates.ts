/**
 * The candidate constraints that the prose rules (audit/prose.ts) extract from a sentence.
 *
 * Pure: types only.
 */
import type { JsonValue } from '../core/shared/json.js';

export interface CandidateBase {
  /** Offsets of the matched phrase within its sentence. */
  readonly start: number;
  readonly end: number;
  /** The matched phrase. */
  readonly phrase: string;
  /** Which rule matched (for tests and debugging). */
  readonly rule: string;
}

/** A numeric bound: on a number (`minimum`/`maximum`), a length (`minLength`...) or a count (`minItems`...). */
export interface BoundCandidate extends CandidateBase {
  readonly kind: 'bound';
  readonly side: 'lower' | 'upper';
  readonly value: number;
  readonly exclusive: boolean;
  /** The word after the number (`characters`, `rows`, `seconds`...), lower-cased, when there is one. */
  readonly unit: string | undefined;
  /** False when the number is not plain (`5m`) so it cannot be compared with a schema value. */
  readonly plain: boolean;
  /** True when stated by a word ("positive", "non-negative") rather than a number. */
  readonly fromWord: boolean;
}

export interface ExactLengthCandidate extends CandidateBase {
  readonly kind: 'exactLength';
  readonly value: number;
}

export interface NonEmptyCandidate extends CandidateBase {
  readonly kind: 'nonEmpty';
}

/** "no duplicates", "each tag at most once": the items of a list are distinct (`uniqueItems`). */
export interface UniqueCandidate extends CandidateBase {
  readonly kind: 'unique';
}

export interface EnumCandidate extends CandidateBase {
  readonly kind: 'enum';
  readonly values: readonly string[];
  /** True when every value was quoted or in backticks (a reliable list). */
  readonly quoted: boolean;
}

export interface FormatCandidate extends CandidateBase {
  readonly kind: 'format';
  /** The keyword that should encode it: `format` for a standard format, `enum` for a code list, else `pattern`. */
  readonly keyword: 'format' | 'pattern' | 'enum';
  /** The JSON Schema format, when the phrase names a standard one. */
  readonly format: string | undefined;
  /** Templates the prose shows (`GHSA-xxxx-xxxx-xxxx`, `user:ID`), from which a `pattern` can be built. */
  readonly templates?: readonly string[];
  /** A `pattern` the prose spells out in words ("letters, digits and underscores", "none of [ ] : * ?"). */
  readonly pattern?: string;
}

export interface ReadOnlyCandidate extends CandidateBase {
  readonly kind: 'readOnly';
}

export interface DefaultCandidate extends CandidateBase {
  readonly kind: 'default';
  /** The default as a JSON value when the prose gives a literal; undefined for "the current user" and the like. */
  readonly literal: JsonValue | undefined;
  /** False when the literal cannot be compared with a schema `default` (a number with a unit, `5 minutes`). */
  readonly comparable: boolean;
  /** The literal as written when it is a number glued to a unit (`2h`, `10KB`): a string schema's default spells it so. */
  readonly written?: string;
  /** The unit of measure after a number ("600 seconds"): comparable when the parameter counts in it. */
  readonly measure?: string;
  /** A bare word ("summary by default"): a default only when the schema lists it among its values. */
  readonly listedOnly?: boolean;
}

export interface RequiredCandidate extends CandidateBase {
  readonly kind: 'required';
  /** Where the thing required is named: before the phrase ("X is required") or after it ("always provide X"). */
  readonly subject: 'before' | 'after' | 'self';
}

/** "Must include: version, sources, layers", "Required fields: 'alias', 'trigger'": keys the object (or each item) must have. */
export interface RequiredKeysCandidate extends CandidateBase {
  readonly kind: 'requiredKeys';
  readonly keys: readonly string[];
}

export interface OptionalCandidate extends CandidateBase {
  readonly kind: 'optional';
}

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'null';

/** "(integer)", "as a string", "String or number", "List of ...": the JSON types the prose gives the value. */
export interface TypeCandidate extends CandidateBase {
  readonly kind: 'type';
  readonly types: readonly JsonType[];
  /**
   * True when the phrase states the type outright ("must be a string", "(int)"): it then contradicts a schema that
   * types the value otherwise. A weak one ("Whether to ...", "Number of ...") only types a value the schema leaves open.
   */
  readonly strong: boolean;
  /** True when the phrase offers each type as an alternative ("a string or an array"): every one must be allowed. */
  readonly alternatives: boolean;
}

export type Candidate =
  | BoundCandidate
  | ExactLengthCandidate
  | NonEmptyCandidate
  | UniqueCandidate
  | EnumCandidate
  | FormatCandidate
  | ReadOnlyCandidate
  | DefaultCandidate
  | RequiredCandidate
  | RequiredKeysCandidate
  | OptionalCandidate
  | TypeCandidate;
