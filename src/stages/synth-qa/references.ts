/**
 * A question is self-contained when a reader who never saw the document understands it: it
 * names its subject instead of pointing at "the document". These are the pointing phrases, a
 * short stated list in the languages the web stage meets (its stock phrases cover the same six:
 * English, German, French, Spanish, Italian, Polish). Nouns that also name things in code
 * (the DOM's document, a text field, a page cache) count only in a pointing form: after a
 * demonstrative, after "in / according to", or before "says / states / describes".
 */
const EN_NOUNS = 'document|text|article|passage|excerpt|page|web ?page|paragraph|section|post|snippet';
const EN_VERBS = 'says?|states?|mentions?|describes?|discuss(?:es)?|explains?|suggests?|claims?|argues?|notes?|presents?|lists?|provides?|shows?|refers? to';

export const REFERENCE_PHRASES: readonly { lang: string; pattern: string }[] = [
  { lang: 'en', pattern: `(?:this|these|the given|the above|the following|the provided|the present|the accompanying) (?:${EN_NOUNS})s?` },
  { lang: 'en', pattern: `(?:in|according to|from|based on|per) the (?:${EN_NOUNS})` },
  { lang: 'en', pattern: `the (?:${EN_NOUNS}|author) (?:${EN_VERBS})` },
  { lang: 'en', pattern: 'the (?:article|passage|excerpt)' },
  { lang: 'en', pattern: '(?:mentioned|described|shown|listed|given|stated|discussed|quoted|cited|outlined) above|the above|above-mentioned' },
  { lang: 'de', pattern: '(?:im|in dem|in diesem|laut dem|laut diesem|dieser|diesem|diesen|dieses|diese|obigen?|vorliegenden?) (?:Text(?:es)?|Artikel[sn]?|Dokument(?:s|es|en)?|Abschnitt(?:s|es)?|Passage|Beitrag(?:s|es)?|Auszug(?:s|es)?)' },
  { lang: 'de', pattern: '(?:sagt|nennt|beschreibt|erwähnt|erklärt) (?:der|dieser) (?:Text|Artikel|Abschnitt|Beitrag)' },
  { lang: 'de', pattern: 'auf dieser Seite|(?:weiter )?oben (?:genannt|erwähnt|beschrieben|aufgeführt)\\p{L}*' },
  { lang: 'fr', pattern: "(?:ce|cet|cette|dans le|dans l['’]|selon le|selon l['’]|d['’]après le|d['’]après l['’]) ?(?:texte|article|document|passage|extrait|page)" },
  { lang: 'fr', pattern: "(?:dit|mentionne|décrit|explique|affirme|indique) (?:le|l['’]|ce|cet|cette) ?(?:texte|article|document|passage|extrait)" },
  { lang: 'fr', pattern: 'ci-dessus' },
  { lang: 'es', pattern: '(?:este|esta|dicho|dicha|en el|en la|según el|según la) (?:texto|artículo|documento|pasaje|fragmento|página)' },
  { lang: 'es', pattern: '(?:dice|menciona|describe|explica|afirma|indica)n? (?:el|la|este|esta) (?:texto|artículo|documento|pasaje|fragmento|página)' },
  { lang: 'es', pattern: '(?:mencionad|descrit|indicad|citad)[oa]s? (?:arriba|anteriormente)' },
  { lang: 'it', pattern: "(?:questo|questa|nel|nella|secondo il|secondo la|nell['’]|secondo l['’]) ?(?:testo|articolo|documento|passaggio|brano|pagina)" },
  { lang: 'it', pattern: "(?:dice|menziona|descrive|spiega|afferma|indica)n?o? (?:il|l['’]|questo|questa) ?(?:testo|articolo|documento|passaggio|brano)" },
  { lang: 'it', pattern: '(?:citat|menzionat|descritt|indicat)[oaie] (?:sopra|in precedenza)|suddett[oaie]' },
  { lang: 'pl', pattern: '(?:w |z )?(?:tym|tego|ten|tej|ta|niniejszym|niniejszego) (?:tekście|tekstu|tekst|artykule|artykułu|artykuł|dokumencie|dokumentu|dokument|fragmencie|fragmentu|fragment|stronie|strony|strona)' },
  { lang: 'pl', pattern: 'w tekście|w artykule|w dokumencie|powyżej|powyższ\\p{L}*' },
];

/** Whole words only: a phrase is not found inside a longer word ("contexts", "pretext"). */
const COMPILED = REFERENCE_PHRASES.map(({ lang, pattern }) => ({ lang, re: new RegExp(`(?<![\\p{L}\\p{N}])(?:${pattern})(?![\\p{L}\\p{N}-])`, 'iu') }));

/** The pointing phrase a question holds, or undefined when it stands on its own. */
export function documentReference(question: string): string | undefined {
  const q = question.replace(/\s+/g, ' ');
  for (const { re } of COMPILED) {
    const m = re.exec(q);
    if (m) return m[0];
  }
  return undefined;
}
