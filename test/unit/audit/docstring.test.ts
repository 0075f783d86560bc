/**
 * Docstring sections (audit/docstring.ts): a tool description written as a Python docstring carries each
 * parameter's prose under "Args:", a numpy "Parameters" section or ":param name:"; each entry is that parameter's.
 */
import { describe, expect, it } from 'vitest';
import { docstringSections } from '../../../src/audit/docstring.js';
import { annotationTypes } from '../../../src/audit/stated-types.js';

const entries = (text: string, parameters: readonly string[]): Record<string, string> =>
  Object.fromEntries(docstringSections(text, parameters).entries.map((e) => [e.parameter, e.text]));

describe('docstringSections', () => {
  it('reads Google-style Args entries, continuation lines included, and takes them out of the rest', () => {
    const text = [
      'Add documents to a collection.',
      '',
      'Args:',
      '    collection_name: Name of the collection',
      '    ids: List of IDs for the documents.',
      '        Must not be empty.',
      '    limit (int, optional): At most 100 results.',
      '',
      'Raises:',
      "    ValueError: If 'ids' is empty",
    ].join('\n');
    const sections = docstringSections(text, ['collection_name', 'ids', 'limit']);
    expect(Object.fromEntries(sections.entries.map((e) => [e.parameter, e.text]))).toEqual({
      collection_name: 'Name of the collection',
      ids: 'List of IDs for the documents.\nMust not be empty.',
      limit: 'At most 100 results. (optional)',
    });
    expect(sections.rest).toContain('Add documents to a collection.');
    expect(sections.rest).toContain("ValueError: If 'ids' is empty");
    expect(sections.rest).not.toContain('At most 100 results');
  });

  it('reads numpy-style Parameters entries under a dashed rule', () => {
    const text = [
      'Search the index.',
      '',
      'Parameters',
      '----------',
      'query : str',
      '    The text to search for.',
      'top_k : int, optional',
      '    Between 1 and 50.',
      '',
      'Returns',
      '-------',
      'list',
      '    The matches.',
    ].join('\n');
    const sections = docstringSections(text, ['query', 'top_k']);
    expect(Object.fromEntries(sections.entries.map((e) => [e.parameter, e.text]))).toEqual({
      query: 'The text to search for.',
      top_k: '(optional) Between 1 and 50.',
    });
    expect(sections.rest).toContain('The matches.');
  });

  it('reads a header that opens with a symbol and closes with a gloss: "⚙️ PARAMETERS (required)", "## Args:"', () => {
    const numpy = ['List runs.', '', '⚙️ PARAMETERS (required)', '------------------------', 'limit : int', '    At most 100.'].join('\n');
    expect(docstringSections(numpy, ['limit']).entries.map((e) => e.text)).toEqual(['At most 100.']);
    const google = ['List runs.', '## Args:', '    limit: At most 100.'].join('\n');
    expect(docstringSections(google, ['limit']).entries.map((e) => e.text)).toEqual(['At most 100.']);
    expect(docstringSections('PARAMETERS OF THE RUN ARE:\nlimit: At most 100.', ['limit']).entries).toEqual([]);
  });
  it('reads Sphinx-style :param name: entries, with or without a type', () => {
    const text = 'Fetch a page.\n:param url: The address, starting with https://\n:param int depth: 1 to 3 levels';
    expect(entries(text, ['url', 'depth'])).toEqual({ url: 'The address, starting with https://', depth: '1 to 3 levels' });
  });

  it('matches names ignoring case when no exact name is declared', () => {
    expect(entries('Args:\n  Query: words to match', ['query'])).toEqual({ query: 'words to match' });
  });

  it('leaves entries for names the schema does not declare in the rest', () => {
    const sections = docstringSections('Args:\n  ctx: the request context\n  path: a file path', ['path']);
    expect(sections.entries.map((e) => e.parameter)).toEqual(['path']);
    expect(sections.rest).toContain('ctx: the request context');
    expect(sections.rest).not.toContain('a file path');
  });

  it('reads nothing from prose without a section header', () => {
    const text = 'Lists files.\nmode: one of fast, slow\nSee the docs.';
    const sections = docstringSections(text, ['mode']);
    expect(sections.entries).toEqual([]);
    expect(sections.rest).toBe(text);
  });

  it('ends a section at the first line back at the header indentation', () => {
    const text = 'Args:\n  name: the name\nThe name must be unique.';
    const sections = docstringSections(text, ['name']);
    expect(entries(text, ['name'])).toEqual({ name: 'the name' });
    expect(sections.rest).toContain('The name must be unique.');
    expect(sections.rest).not.toContain('the name\n');
  });
});

describe('annotationTypes', () => {
  it.each([
    ['str', ['string']],
    ['int, optional', ['integer']],
    ['int, default 10', ['integer']],
    ['Optional[Dict[str, Any]]', ['object', 'null']],
    ['str | None', ['string', 'null']],
    ['List[str]', ['array']],
    ['Union[str, int]', ['string', 'integer']],
    ['str or list', ['string', 'array']],
    ['bool', ['boolean']],
  ] as const)('%s', (annotation, types) => {
    expect(annotationTypes(annotation)).toEqual(types);
  });
  it.each(['MyModel', 'Any', 'Literal["a", "b"]', 'Optional[Foo]', 'color'])('no JSON type: %s', (annotation) => {
    expect(annotationTypes(annotation)).toBeUndefined();
  });
  it('docstring entries keep their declared type as written', () => {
    const text = 'Do.\n\nArgs:\n    limit (int, optional): At most 100.\n    name: The name.\n\n:param str label: A label.\n';
    const found = docstringSections(text, ['limit', 'name', 'label']).entries.map((e) => [e.parameter, e.annotation]);
    expect(found).toEqual([
      ['limit', 'int, optional'],
      ['name', undefined],
      ['label', 'str'],
    ]);
  });
});

describe('docstring entries written with a dash', () => {
  const text = [
    'Analyse the graph.',
    '',
    '    Arguments:',
    '      pattern    - str: CSV LIKE patterns for container scope.',
    '                   Supports wildcards (%).',
    '      repository - str: Edge repository view conforming to the',
    '                   Required parameter — no default.',
    '      format     - Output format: one of two',
    "                   'detailed' (default): the full list",
    '      top_n - Number of roots. Default: 4',
  ].join('\n');
  it('reads "name - type: text" and "name - text", the type kept apart from the text', () => {
    const found = docstringSections(text, ['pattern', 'repository', 'format', 'top_n']).entries;
    expect(found.map((e) => [e.parameter, e.annotation])).toEqual([
      ['pattern', 'str'],
      ['repository', 'str'],
      ['format', undefined],
      ['top_n', undefined],
    ]);
    expect(found[0]?.text).toBe('CSV LIKE patterns for container scope. Supports wildcards (%).');
  });
  it('a wrapped line continues its sentence; a line opening a statement of its own starts a new one', () => {
    const found = entries(text, ['repository', 'format', 'top_n']);
    expect(found.repository).toBe('Edge repository view conforming to the\nRequired parameter — no default.');
    expect(found.format).toBe("Output format: one of two\n'detailed' (default): the full list");
    expect(found.top_n).toBe('Number of roots. Default: 4');
  });
});
