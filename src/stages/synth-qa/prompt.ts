import { createHash } from 'node:crypto';

/**
 * The request of grounded QA synthesis: the document is the user message, this system prompt
 * states the rules of the Qwen3-Coder-Next report's synthetic QA (answers supported by the
 * document, self-contained questions of increasing depth, abstention on poor documents, nothing
 * invented) and the answer protocol (JSON only, docs/qa.md). `{pairs}` in a prompt, the default
 * or a `--llm-prompt-file`, is replaced by the number of pairs asked for.
 */
export const DEFAULT_QA_PROMPT = `You write grounded question-answer pairs about a document, for a training corpus.
Read the document in the user message and write {pairs} question-answer pairs about it. Rules:
- Every answer is supported by the document: use only what the document states. Add no facts, names, numbers, URLs or references that are not in it.
- Every question is self-contained: a reader who never saw the document understands it. Never refer to "the document", "the text", "the article", "the passage", "this page" or "above": name the subject instead.
- The questions progressively increase in semantic depth or reasoning complexity: first a fact the document states, then how or why its parts relate.
- For each pair, "evidence" is a verbatim quote from the document, copied character for character, that supports the answer.
- Ask each question once. Write questions and answers in the document's language.
- If the document lacks quality or coherence (spam, boilerplate, link lists, broken text) or holds too little content, abstain rather than guess.
Answer with JSON only, without any other text, in exactly one of these two shapes:
{"qa": [{"question": "...", "answer": "...", "evidence": "..."}]}
{"abstain": "low_quality" or "incoherent" or "too_little_content"}`;

/** The reasons the default prompt offers for abstaining; any other reason is counted as `other`. */
export const ABSTAIN_REASONS = ['low_quality', 'incoherent', 'too_little_content'] as const;

/** The system prompt sent: the template with `{pairs}` replaced. */
export function qaPrompt(template: string, pairs: number): string {
  return template.replaceAll('{pairs}', String(pairs));
}

export const promptSha256 = (prompt: string): string => createHash('sha256').update(prompt).digest('hex');

/**
 * The protocol as a JSON schema, sent as `response_format` with `--llm-json-schema` (vLLM and
 * SGLang constrain decoding to it): either the pairs, at most `pairs` of them, or an abstention.
 */
export function qaResponseFormat(pairs: number): Record<string, unknown> {
  const pair = {
    type: 'object',
    properties: { question: { type: 'string' }, answer: { type: 'string' }, evidence: { type: 'string' } },
    required: ['question', 'answer', 'evidence'],
    additionalProperties: false,
  };
  const schema = {
    anyOf: [
      { type: 'object', properties: { qa: { type: 'array', items: pair, maxItems: pairs } }, required: ['qa'], additionalProperties: false },
      { type: 'object', properties: { abstain: { type: 'string' } }, required: ['abstain'], additionalProperties: false },
    ],
  };
  return { type: 'json_schema', json_schema: { name: 'grounded_qa', schema } };
}
