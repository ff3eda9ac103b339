/** The special tokens that midpack's stages write (Qwen2.5-Coder / Qwen3 vocabulary). */
export const SPECIAL = {
  endOfText: '<|endoftext|>',
  repoName: '<|repo_name|>',
  fileSep: '<|file_sep|>',
  fimPrefix: '<|fim_prefix|>',
  fimSuffix: '<|fim_suffix|>',
  fimMiddle: '<|fim_middle|>',
  fimPad: '<|fim_pad|>',
  imStart: '<|im_start|>',
  imEnd: '<|im_end|>',
  toolCall: '<tool_call>',
  toolCallEnd: '</tool_call>',
  toolResponse: '<tool_response>',
  toolResponseEnd: '</tool_response>',
} as const;

export type SpecialToken = (typeof SPECIAL)[keyof typeof SPECIAL];
export const SPECIAL_TOKENS: readonly string[] = Object.values(SPECIAL);
