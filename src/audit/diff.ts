/**
 * Steps two and three of the audit, in both directions. This module reads the descriptions into claims (a candidate
 * constraint from audit/prose.ts attributed to a parameter by audit/mentions.ts) and hands them to the two sides:
 *
 * - prose → schema: each candidate constraint extracted from the descriptions (audit/prose.ts) is attributed
 *   to the parameter it speaks of, mapped to the keyword that should encode it, and reported when the schema has
 *   no home for it (or a home that says something else: "at most 1000" against `maximum: 500`): audit/prose-only.ts;
 * - schema → prose: constraints the schema enforces that no description explains (a `maximum` whose number the
 *   prose never gives, a `pattern` with no word about the format, an `enum` none of whose values are mentioned,
 *   a `format` never named, a required parameter the prose calls optional): audit/schema-only.ts.
 *
 * Pure: no I/O.
 */
import type { JsonObject } from '../core/shared/json.js';
import type { ToolDefinition } from '../core/schema/tool-definition.js';
import { actionSignatures } from './action-signatures.js';
import { bulletedLists, bulletedValues } from './bulleted-values.js';
import type { Candidate, TypeCandidate } from './candidates.js';
import { docstringSections } from './docstring.js';
import { type Claim, FindingList } from './findings.js';
import {
  attribute,
  findMentions,
  groupRule,
  type GroupHolder,
  listsEvery,
  optionBlocks,
  mentionMatchers,
  nameTokens,
  namesParameters,
  ownClaimBelongsElsewhere,
  reportValueConditions,
  requiredOnValues,
  toolClaimFits,
  type ValueCondition,
} from './mentions.js';
import { nullOffered, proseOnly } from './prose-only.js';
import { escapeRegExp, splitSentences } from './prose-text.js';
import { extractCandidates, singular } from './prose.js';
import { type AuditNode, auditNodes, listedValues, viewOf } from './schema-nav.js';
import { schemaOnly } from './schema-only.js';
import { annotationTypes } from './stated-types.js';
import { headerNames, headerOfOwnValues, tableLists } from './table-values.js';
import type { Finding } from './types.js';

/** The prose-only and schema-only findings of one tool. */
export function diffProseAndSchema(definition: ToolDefinition): Finding[] {
  const root = definition.inputSchema;
  const { rootView, nodes } = auditNodes(root);
  const tool = definition.name;
  const topLevel = nodes.filter((node) => node.location === '');
  const toolTexts = toolDescriptions(definition);
  const findings = new FindingList(tool);

  // Attribution: own descriptions first (a docstring's entry for a parameter is its own text too), then the tool
  // description's sentences that name a parameter.
  const claims: Claim[] = [];
  const conditions: ValueCondition[] = [];
  const mentioned = new Map<string, string[]>();
  const mention = (parameter: string, sentence: string): void => {
    const list = mentioned.get(parameter) ?? [];
    list.push(sentence);
    mentioned.set(parameter, list);
  };
  const inputHolder: GroupHolder = { parameter: null, label: '', location: '', pointer: '', view: rootView };
  const scopes = topLevel.flatMap((node) => {
    const scope = objectScope(root, node);
    return scope === undefined ? [] : [{ scope, named: singularName(node.parameter) }];
  });
  const ownClaims = (node: AuditNode, description: string, layout = description): void => {
    const scope = objectScope(root, node);
    const parentScope =
      node.location === '' ? undefined : scopes.find(({ scope: s }) => s.members.some((m) => m.pointer === node.pointer))?.scope;
    const bulleted = bulletedValues(layout);
    if (bulleted !== undefined) claims.push({ node, candidate: bulleted, sentence: bulleted.phrase, fromTool: false });
    for (const table of tableLists(layout))
      if (headerOfOwnValues(table.header, node.name))
        claims.push({ node, candidate: table.candidate, sentence: table.candidate.phrase, fromTool: false });
    const sentences = splitSentences(description);
    for (const [i, sentence] of sentences.entries()) {
      // "Returns the list": the output. "Return issues with a specific state (default: opened)": what setting it does.
      if (/^\s*returns\b/i.test(sentence.text)) continue;
      // "Provide query or runId, not both" in a parameter's own description is a rule about the tool as a whole.
      const following = sentences[i + 1]?.text;
      // "Each comment must specify either taskId or projectId": a rule across the properties of the object it holds.
      const group =
        (node.location === '' && groupRule(sentence.text, topLevel, root, inputHolder, findings, false, node.parameter, following)) ||
        (scope !== undefined && groupRule(sentence.text, scope.members, root, scope.holder, findings, false, undefined, following)) ||
        // "Mutually exclusive with additional_tag_ids" on a property of an object a parameter holds: said of that property.
        (parentScope !== undefined &&
          groupRule(sentence.text, parentScope.members, root, parentScope.holder, findings, false, node.name, following));
      const condition = node.location === '' ? requiredOnValues(sentence.text, node.parameter, topLevel, rootView) : undefined;
      if (condition?.always === true) {
        claims.push({
          node,
          candidate: requiredBySentence(sentence.text, 'required-for-every-value'),
          sentence: sentence.text,
          fromTool: false,
        });
      } else if (condition !== undefined && !conditions.some((c) => c.self === node.parameter))
        conditions.push({ ...condition, self: node.parameter, sentence: sentence.text });
      for (const candidate of extractCandidates(sentence.text)) {
        if (group && (candidate.kind === 'required' || candidate.kind === 'optional')) continue;
        if (candidate.kind === 'default' && saidOfAValue(sentence.text, candidate.start, node, topLevel)) continue;
        if (ownClaimBelongsElsewhere(candidate, sentence.text, node, topLevel)) continue;
        claims.push({ node, candidate, sentence: sentence.text, fromTool: false });
      }
    }
  };
  for (const node of nodes) if (node.view.description !== undefined) ownClaims(node, node.view.description);
  const matchers = mentionMatchers(topLevel);
  const byParameter = new Map(topLevel.map((n) => [n.parameter, n]));
  for (const whole of toolTexts) {
    const sections = docstringSections(whole, [...byParameter.keys()]);
    for (const entry of sections.entries) {
      const node = byParameter.get(entry.parameter);
      if (node === undefined) continue;
      ownClaims(node, entry.text, entry.lines);
      mention(entry.parameter, entry.text);
      const declared = entry.annotation === undefined ? undefined : declaredType(entry.parameter, entry.annotation);
      if (declared !== undefined) claims.push({ node, candidate: declared, sentence: declared.phrase, fromTool: false });
    }
    const text = sections.rest;
    optionBlocks(text, rootView, nodes, findings, true);
    // "The `rule_types` argument filters ... Available types are:" and bullets: the values of the one parameter named.
    for (const list of bulletedLists(text)) {
      const named = new Set(findMentions(list.label, matchers).map((m) => m.parameter));
      const node = named.size === 1 ? byParameter.get([...named][0] ?? '') : undefined;
      if (node !== undefined) claims.push({ node, candidate: list.candidate, sentence: list.candidate.phrase, fromTool: true });
    }
    // A table whose first header cell names one parameter ("| Relationship | Description |"): that parameter's values.
    for (const table of tableLists(text)) {
      const named = topLevel.filter((n) => headerNames(table.header, n.parameter));
      const node = named.length === 1 ? named[0] : undefined;
      if (node !== undefined && !namesParameters(table.candidate.values, topLevel))
        claims.push({ node, candidate: table.candidate, sentence: table.candidate.phrase, fromTool: true });
    }
    // "create (project_id, name; optional ...)" for every action: what all of them need is required of every call.
    const signatures = actionSignatures(text, topLevel);
    if (signatures !== undefined)
      for (const parameter of signatures.requiredByAll) {
        const node = byParameter.get(parameter);
        const sentence = signatures.text;
        const candidate = requiredBySentence(sentence, 'action-signatures');
        if (node !== undefined) claims.push({ node, candidate, sentence, fromTool: true });
      }
    const sentences = splitSentences(text);
    for (const [i, sentence] of sentences.entries()) {
      // A sentence about what the tool returns ("Returns up to 50 issues") constrains no parameter.
      if (RESPONSE_SENTENCE.test(sentence.text)) continue;
      const mentions = findMentions(sentence.text, matchers);
      for (const parameter of new Set(mentions.map((m) => m.parameter))) mention(parameter, sentence.text);
      const following = sentences[i + 1]?.text;
      // "Each comment must specify either taskId or projectId": a rule across the properties of the objects a
      // parameter it names ("comments", by its singular) holds.
      const group =
        groupRule(sentence.text, topLevel, root, inputHolder, findings, true, undefined, following) ||
        scopes.some(
          ({ scope, named }) =>
            named?.test(sentence.text) === true &&
            groupRule(sentence.text, scope.members, root, scope.holder, findings, true, undefined, following),
        );
      for (const candidate of extractCandidates(sentence.text)) {
        if (candidate.kind === 'enum' && namesParameters(candidate.values, topLevel)) continue;
        // "history: ...\n  - Inputs: id (required)": what a block on one action requires, it requires of that action only.
        if ((candidate.kind === 'required' || candidate.kind === 'nonEmpty') && headedByAValue(text, sentence.offset, topLevel)) continue;
        // "At least one of `email` or `phone` must be provided" requires neither on its own.
        // "At least one filter must be provided" neither requires the parameter named `filter` nor bounds it.
        if (group && (candidate.kind === 'required' || candidate.kind === 'nonEmpty' || candidate.kind === 'bound')) continue;
        // "Actions: list, totals, mute" in a sentence that also names `filter`: values one parameter lists are said of it.
        const owner = candidate.kind === 'enum' ? listingOwner(candidate.values, topLevel) : undefined;
        for (const parameter of attribute(candidate, sentence.text, mentions, topLevel)) {
          if (owner !== undefined && parameter !== owner) continue;
          const node = topLevel.find((n) => n.parameter === parameter);
          if (node !== undefined && toolClaimFits(node, candidate))
            claims.push({ node, candidate, sentence: sentence.text, fromTool: true });
        }
      }
    }
  }

  reportValueConditions(conditions, root, findings);
  proseOnly(root, claims, findings);
  nullOffered(root, nodes, findings);
  schemaOnly(root, nodes, claims, mentioned, toolTexts.join('\n'), findings);
  return findings.list();
}

/** A docstring entry's declared type ("limit (int):"), as a claim that the value has it. */
function declaredType(parameter: string, annotation: string): TypeCandidate | undefined {
  const types = annotationTypes(annotation);
  if (types === undefined) return undefined;
  const phrase = `${parameter} (${annotation})`;
  const alternatives = types.filter((t) => t !== 'null').length > 1;
  return { kind: 'type', types, strong: true, alternatives, start: 0, end: phrase.length, phrase, rule: 'docstring-type' };
}

/**
 * "Full defaults to True", "For minimal, defaults to 10": a default said of one value of another parameter (here
 * `detail_level`), so the default of some calls only.
 */
function saidOfAValue(sentence: string, start: number, node: AuditNode, topLevel: readonly AuditNode[]): boolean {
  const subject = /^\s*(?:(?:for|in|with)\s+)?[\x60'"]?([\w-]+)[\x60'"]?(?:\s+(?:mode|level|type|option))?\s*,?\s*$/i.exec(
    sentence.slice(0, start),
  )?.[1];
  if (subject === undefined) return false;
  return topLevel.some((other) => other !== node && listsEvery(other.view, [subject]));
}

/**
 * The object a node's own text may set rules across: the node itself, or each of its items, when it declares
 * properties; its properties stand as the names a rule may give.
 */
function objectScope(root: JsonObject, node: AuditNode): { holder: GroupHolder; members: AuditNode[] } | undefined {
  const own =
    node.view.properties.size > 0 ? { view: node.view, pointer: node.pointer, location: node.location, label: node.label } : undefined;
  const items = node.view.items;
  const itemView = own === undefined && items !== undefined ? viewOf(root, items.schema, items.pointer) : undefined;
  const object =
    own ??
    (itemView !== undefined && itemView.properties.size > 0 && items !== undefined
      ? { view: itemView, pointer: items.pointer, location: `${node.location}/items`, label: `${node.label}[]` }
      : undefined);
  if (object === undefined) return undefined;
  const members = [...object.view.properties].map(([name, property]) => ({
    parameter: name,
    name,
    label: name,
    pointer: property.pointer,
    location: '',
    view: viewOf(root, property.schema, property.pointer),
    parent: object.view,
    ancestorDescriptions: [],
  }));
  return { holder: { parameter: node.parameter, ...object }, members };
}

/** A parameter's name as prose writes one of what it holds: "comments" as "comment", "line_items" as "line item". */
function singularName(parameter: string): RegExp | undefined {
  const words = nameTokens(parameter);
  if (words.length === 0) return undefined;
  const phrase = [...words.slice(0, -1), singular(words.at(-1) ?? '')].map(escapeRegExp).join(String.raw`[\s_-]?`);
  return new RegExp(String.raw`\b${phrase}s?\b`, 'i');
}

const RESPONSE_SENTENCE =
  /^\s*(?:\*\*)?(?:returns?|responds?\s+with|the\s+(?:response|result|output)s?\s+(?:is|are|contains?|includes?))\b/i;

/** The tool's description, and the root schema's when it says something else. */
function toolDescriptions(definition: ToolDefinition): string[] {
  const texts: string[] = [];
  if (definition.description !== undefined && definition.description.trim() !== '') texts.push(definition.description);
  const rootDescription = definition.inputSchema.description;
  if (typeof rootDescription === 'string' && rootDescription.trim() !== '' && rootDescription.trim() !== definition.description?.trim()) {
    texts.push(rootDescription);
  }
  return texts;
}

/** The one top-level parameter whose listed values hold every value named, if exactly one does. */
function listingOwner(values: readonly string[], topLevel: readonly AuditNode[]): string | undefined {
  const owners = topLevel.filter((n) => listsEvery(n.view, values));
  return owners.length === 1 ? owners[0]?.parameter : undefined;
}

/**
 * Whether the text at `offset` sits in a block headed by a value one parameter lists: a line that opens with
 * "history:" (not indented), followed by the indented lines of its block. Reads back at most a few lines.
 */
function headedByAValue(text: string, offset: number, topLevel: readonly AuditNode[]): boolean {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const lines = text.slice(Math.max(0, lineStart - 2000), offset).split('\n');
  for (let i = lines.length - 1; i >= Math.max(0, lines.length - 20); i--) {
    const line = i === lines.length - 1 ? text.slice(lineStart, offset + 1) : (lines[i] ?? '');
    if (line.trim() === '') return false;
    if (/^\s/.test(line)) continue;
    const head = /^([\w-]+):/.exec(line)?.[1]?.toLowerCase();
    return head !== undefined && topLevel.some((n) => (listedValues(n.view)?.length ?? 0) >= 2 && listsEvery(n.view, [head]));
  }
  return false;
}

/** A requirement a whole sentence states of the parameter it is read for ("Required for: add, update"). */
function requiredBySentence(phrase: string, rule: string): Candidate {
  return { kind: 'required', subject: 'self', start: 0, end: phrase.length, phrase, rule };
}
