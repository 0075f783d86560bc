/** Negation: `not`, and the `false` schema (whole, or as the `then`/`else` that forbids a combination). */
import { QUOTE_CHARS, preview } from '../../shared/text.js';
import { schemaKeyword } from '../schema-index.js';
import { agree, type KeywordFamily } from './rule.js';

/** ajv's schemaPath of a `then: false` / `else: false`; the `if` sits beside that branch. */
const CONDITIONAL_FALSE = /\/(then|else)\/false schema$/;

export const NEGATION: KeywordFamily = {
  not: ({ error, path, name, Name, data, summarize, make }) => {
    const summary = summarize(error.schema);
    return make(
      'forbidden_value',
      path,
      `${Name} must not be ${summary} (received ${preview(data)}).`,
      `Send a value for ${name} that is not ${summary}.`,
    );
  },
  'false schema': ({ error, path, name, Name, data, index, make }) => {
    // `then: false` / `else: false` forbid a combination, not every value: say which condition.
    const match = CONDITIONAL_FALSE.exec(error.schemaPath);
    const branch = match?.[1];
    if (match !== null && branch !== undefined) {
      const condition = schemaKeyword(index.resolve(error.schemaPath.slice(0, match.index)), 'if');
      const holds = branch === 'then' ? 'holds' : 'does not hold';
      return make(
        'forbidden_value',
        path,
        `${Name} ${agree(path, 'is', 'are')} not accepted as sent: the tool schema ` +
          `forbids ${agree(path, 'it', 'them')} when its condition ${holds} (received ${preview(data)}).`,
        'Change the values the condition looks at, so that ' +
          `it ${branch === 'then' ? 'no longer holds' : 'holds'}; the condition: ${preview(condition, QUOTE_CHARS)}.`,
        { branch },
      );
    }
    if (path === '') {
      const hint = 'No value can satisfy this schema; report it to the tool owner.';
      return make('forbidden_value', path, 'The tool schema accepts no arguments at all.', hint);
    }
    return make('forbidden_value', path, `${Name} is not allowed here.`, `Remove ${name}.`);
  },
};
