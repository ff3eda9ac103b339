import * as linguist from 'linguist-languages';
import type { LanguageData } from '../../src/stages/repos/languages.js';

/** The fields languages.ts reads of each language of the package `linguist-languages`, in its namespace's order. */
export function linguistPackageData(): LanguageData[] {
  return Object.values(linguist as unknown as Record<string, LanguageData>).map((l) => ({
    name: l.name,
    ...(l.extensions ? { extensions: [...l.extensions] } : {}),
    ...(l.filenames ? { filenames: [...l.filenames] } : {}),
    ...(l.interpreters ? { interpreters: [...l.interpreters] } : {}),
  }));
}
