import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { sharedDir } from '../../helpers/paths.js';
import { rewriteWithRules } from '../../../src/stages/web/rules.js';
import { decodeHtml } from '../../../src/stages/web/encoding.js';
import { escapeLineStarts } from '../../../src/stages/web/markdown.js';
import { markdownToPlainText } from '../../../src/stages/web/plain-text.js';
import { devSetDir } from './helpers.js';

/** Rules of the third round, each on a real page of the multilingual development set. */
const snippets = join(sharedDir, 'data', 'web-eval-trafilatura');
const skip = existsSync(join(snippets, 'evaldata.json')) ? false : 'the multilingual development set (shared/data) is not present';

interface Truth {
  file: string;
  with: string[];
  without: string[];
}

function page(file: string): Truth & { text: string; markdown: string } {
  const data = JSON.parse(readFileSync(join(snippets, 'evaldata.json'), 'utf8')) as Record<string, Truth>;
  const truth = Object.values(data).find((d) => d.file === file)!;
  const html = decodeHtml(gunzipSync(readFileSync(join(snippets, 'pages', `${file}.gz`)))).text;
  const result = rewriteWithRules(html, { minTextChars: 200 });
  assert.ok(result.ok);
  return { ...truth, markdown: result.markdown, text: squash(markdownToPlainText(result.markdown)) };
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

function assertSnippets(p: Truth & { text: string }): void {
  for (const s of p.with) assert.ok(p.text.includes(squash(s)), `missing: ${s}`);
  for (const s of p.without) assert.ok(!p.text.includes(squash(s)), `unwanted: ${s}`);
}

test('text that starts like a list marker is escaped in Markdown and read back as it was', () => {
  assert.equal(escapeLineStarts('1. Ich glaube\n- 5 Grad\n# 3\n>x\n**b**'), '1\\. Ich glaube\n\\- 5 Grad\n\\# 3\n\\>x\n**b**');
  assert.equal(markdownToPlainText('1\\. Ich glaube\n- 2\\. Punkt\n\\# 3'), '1. Ich glaube\n2. Punkt\n# 3');
});

test('a blog post numbered in its own text keeps its numbers', { skip }, () => {
  const p = page('creeny.wordpress.com.nebelsuppe.html');
  assert.match(p.markdown, /^1\\\. Ich glaube/m);
  assertSnippets(p);
});

test('a body wrapper with a furniture-like class name (above-footer) that holds most paragraphs is the content', { skip }, () => {
  const p = page('thepointsguy.com.alaska.html');
  for (const s of p.with) assert.ok(p.text.includes(squash(s)), `missing: ${s}`);
});

test('a container around the article is not one leaf: the "back" link after the article goes', { skip }, () => {
  const p = page('bdzv.de.eliasson.html');
  assert.ok(!/zurück$/.test(p.text), p.text.slice(-80));
  assertSnippets(p);
});

test('a block found as a lead and as a sibling is rendered once', { skip }, () => {
  const p = page('viconsortium.com-cocaine.html');
  const paragraphs = p.markdown.split('\n\n').filter((b) => b.length > 80);
  assert.equal(new Set(paragraphs).size, paragraphs.length);
});

test('the lead in the article\'s own header (title and a paragraph of prose) is kept', { skip }, () => {
  // netzpolitik.org sets the lead in <header class="entry-header">, which reads as page furniture.
  const p = page('netzpolitik.org.abmahnungen.html');
  assert.ok(p.text.includes('Seit Dezember 2015'), p.text.slice(0, 200));
});

test('an article split into wrappers (cousins, not siblings) keeps every part', { skip: devSetDir ? false : 'the readability test pages are not present' }, () => {
  // Quanta's story sits in two post__content sections with a widget between them.
  const result = rewriteWithRules(readFileSync(join(devSetDir!, 'quanta-1', 'source.html'), 'utf8'));
  assert.ok(result.ok);
  const text = squash(markdownToPlainText(result.markdown));
  assert.ok(text.includes('A little over half a century ago, chaos started spilling out of a famous experiment.'));
  assert.ok(text.includes('When Margaret Hamilton arrived at MIT in the summer of 1959'));
  assert.ok(text.indexOf('A little over half a century ago') < text.indexOf('When Margaret Hamilton arrived'), 'in document order');
  // The third section scores under half of the top one but has its class: it is kept too.
  assert.ok(text.includes('There were desks in the computer room, but because of the noise'));
  assert.ok(text.indexOf('When Margaret Hamilton arrived') < text.indexOf('There were desks in the computer room'), 'in document order');
});

test('a gallery\'s caption list that holds most of the page\'s paragraphs is still not the article', { skip: devSetDir ? false : 'the readability test pages are not present' }, () => {
  // bug-1255978: <ul class="legends"> carries 77% of the page's <p> text; only div/section wrappers are spared as body wrappers.
  const result = rewriteWithRules(readFileSync(join(devSetDir!, 'bug-1255978', 'source.html'), 'utf8'));
  assert.ok(result.ok);
  const text = squash(markdownToPlainText(result.markdown));
  assert.ok(text.includes('Most people go to hotels for the pleasure of sleeping in a giant bed'));
  assert.ok(!text.includes('Manchester United'), 'gallery captions left out');
});

test('a table scored as the top candidate takes the text around it in its container', { skip: devSetDir ? false : 'the readability test pages are not present' }, () => {
  // wikipedia-4: a list article whose table cells outscore everything; the intro paragraphs sit beside the table in its container.
  const result = rewriteWithRules(readFileSync(join(devSetDir!, 'wikipedia-4', 'source.html'), 'utf8'));
  assert.ok(result.ok);
  const text = squash(markdownToPlainText(result.markdown));
  assert.ok(text.includes('For a list of films that include any kind of time travel'), 'the paragraph after the intro');
  assert.ok(text.includes('Repeat Performance'), 'the table');
  assert.ok(text.indexOf('For a list of films') < text.indexOf('Repeat Performance'), 'in document order');
});

/** Rules of the fourth round. */
const devSkip = devSetDir ? false : 'the readability test pages are not present';
function devPage(name: string): string {
  const result = rewriteWithRules(readFileSync(join(devSetDir!, name, 'source.html'), 'utf8'), { minTextChars: 0 });
  assert.ok(result.ok);
  return squash(markdownToPlainText(result.markdown));
}
const filler = '<p>' + 'This paragraph is part of the article and carries a sentence, a comma, and more words. '.repeat(4) + '</p>';

test('a bare <ul> without items (indented prose) keeps its text; stray text between items stays out', () => {
  const html = `<html><body><article>${filler}<ul> (Really my eventual goal is to be able to <i>create</i> video.) </ul>${filler}` +
    `<ul><li>First item of a real list</li> Warning: stray server text <li>Second item of a real list</li></ul>${filler}</article></body></html>`;
  const result = rewriteWithRules(html);
  assert.ok(result.ok);
  assert.ok(result.markdown.includes('- (Really my eventual goal is to be able to *create* video.)'), result.markdown);
  assert.ok(result.markdown.includes('- First item of a real list\n- Second item of a real list'), result.markdown);
  assert.ok(!result.markdown.includes('stray server text'));
});

test('a heading after the first paragraph heads a section, even when it repeats words of the title', () => {
  const html = `<html><head><title>Faire Swimwear von Mymarini und Interview mit Gründerin Mareen Burk</title></head><body><article>` +
    `${filler}<h2>Im Gespräch mit Mymarini-Gründerin Mareen Burk</h2>${filler}${filler}</article></body></html>`;
  const result = rewriteWithRules(html);
  assert.ok(result.ok);
  assert.ok(result.markdown.includes('## Im Gespräch mit Mymarini-Gründerin Mareen Burk'), result.markdown);
});

test('the title heading is dropped when it only adds a word or two to the title (mathjax)', { skip: devSkip }, () => {
  const text = devPage('mathjax');
  assert.ok(!text.includes('MathJax v3 beta: MathML input, HTML output test'), text.slice(0, 200));
});

test('a class negated with "no" (no_caption) is not chrome (buzzfeed-1)', { skip: devSkip }, () => {
  assert.ok(devPage('buzzfeed-1').includes('literally burning up from within'));
});

test('a "perex" is a lead (aktualne)', { skip: devSkip }, () => {
  assert.ok(devPage('aktualne').includes('Zázrak jedné sezony? West Ham dává pochybovačům stále pádnější odpovědi'));
});

test('a reference list in its wrapper is judged as a list, not as a link farm (wikipedia-3)', { skip: devSkip }, () => {
  assert.ok(devPage('wikipedia-3').includes('Frankel, Theodore (2004). The Geometry of Physics'));
});

test('a publication stamp after the prose is trimmed (yahoo-4)', { skip: devSkip }, () => {
  const text = devPage('yahoo-4');
  assert.ok(!text.includes('最終更新'), text.slice(-200));
});

test('a list of prose whose score went negative for its tag is kept (an accordion of pros and cons)', { skip }, () => {
  const p = page('vergleich.de.leasen.html');
  assert.ok(p.text.includes('Vorteile bei der Finanzierung über einen Autokredit:'));
  assert.ok(p.text.includes('Kratzer und Beulen kommen Sie teuer zu stehen.'));
});

/** Rules of the fifth round. */
test('a heading that starts with a number keeps it in the plain text (gitlab-blog)', { skip: devSkip }, () => {
  assert.equal(markdownToPlainText('## 1. Setup\n> ### 2) Run\n1. item\n> - quoted item'), '1. Setup\n2) Run\nitem\nquoted item');
  assert.ok(devPage('gitlab-blog').includes('1. AI shines a light on cumbersome toolchains'));
});

test('cells inside a table are not stripped for a furniture-like class (td.header_cell, keep-tabular-data)', { skip: devSkip }, () => {
  assert.ok(devPage('keep-tabular-data').includes('General UX UX draft UX review'));
});

test('a table with column groups is a data table: its linked cells are not cleaned (links-in-tables)', { skip: devSkip }, () => {
  const text = devPage('links-in-tables');
  for (const app of ['Farm Heroes Super Saga', 'Google Maps', 'Netflix']) assert.ok(text.includes(app), app);
});

test('a highlighter\'s comment span inside code is code, not a comment widget (v8-blog\'s Prism blocks)', () => {
  const code = '<span class="token comment">// add.c</span>\n<span class="token keyword">int</span> add(<span class="comments">int</span> x);';
  const html = `<html><body><article>${filler}<pre class="language-c"><code class="language-c">${code}</code></pre>${filler}</article></body></html>`;
  const result = rewriteWithRules(html);
  assert.ok(result.ok);
  assert.ok(result.markdown.includes('```c\n// add.c\nint add(int x);\n```'), result.markdown);
});

test('v8-blog keeps the first line of its first code block', { skip: devSkip }, () => {
  const result = rewriteWithRules(readFileSync(join(devSetDir!, 'v8-blog', 'source.html'), 'utf8'));
  assert.ok(result.ok);
  assert.ok(result.markdown.includes('```c\n// add.c\n#include <emscripten.h>'), result.markdown.slice(0, 600));
});

test('a widget labelled "Trending Articles" after the prose is cut from its label (breitbart)', { skip: devSkip }, () => {
  const text = devPage('breitbart');
  assert.ok(text.includes('Lucas Nolan is a reporter for Breitbart Tech'), 'the article\'s own ending stays');
  assert.ok(!text.includes('Trending Articles') && !text.includes('Gloria Steinem'), text.slice(-300));
});

test('a block named for comments in Spanish or French (titulo-comentarios) is furniture, as "comment" is (la-nacion)', { skip: devSkip }, () => {
  const text = devPage('la-nacion');
  assert.ok(text.includes('Martín Schapiro es abogado administrativista'), 'the article\'s last line stays');
  assert.ok(!text.includes('Enviá tu comentario') && !text.includes('Los comentarios publicados'), text.slice(-300));
});

test('a heading that only labels a share bar ("Share this story") before the prose goes (theverge)', { skip: devSkip }, () => {
  const text = devPage('theverge');
  assert.ok(!text.includes('Share this story'), text.slice(0, 300));
  assert.ok(text.includes('I still remember using the iPhone 4 for the first time in 2010.'));
});

test('text loose between a container\'s headings is prose: the headings after it are not a tail to trim (blogger)', { skip: devSkip }, () => {
  const text = devPage('blogger');
  for (const heading of ['Great, let\'s get started!', 'So what\'s next?']) assert.ok(text.includes(heading), heading);
});

test('adjacent emphasis of one kind renders as one span, so a split word reads back whole (videos-1)', () => {
  const html = `<html><body><article>${filler}<p>Set in 1983, <em>Call Me</em> <em>b</em><em>y Your Name</em> is <b>fo</b><b>ur</b> <i>x</i><b>y</b>.</p>${filler}</article></body></html>`;
  const result = rewriteWithRules(html);
  assert.ok(result.ok);
  assert.ok(result.markdown.includes('Set in 1983, *Call Me* *by Your Name* is **four** *x***y**.'), result.markdown);
  assert.ok(markdownToPlainText(result.markdown).includes('Call Me by Your Name is four'));
});

test('emphasis ending in a <br> closes before the line break (medium-1)', () => {
  const html = `<html><body><article>${filler}<ol><li><strong>Web (interactive) editor<br></strong>The goal of having a web editor.</li></ol>${filler}</article></body></html>`;
  const result = rewriteWithRules(html);
  assert.ok(result.ok);
  assert.ok(result.markdown.includes('1. **Web (interactive) editor**\n   The goal of having a web editor.'), result.markdown);
});

test('a signature line marked up as byline and date (<time>, itemprop=author) before the prose goes (lemonde-1)', { skip: devSkip }, () => {
  const text = devPage('lemonde-1');
  assert.ok(!text.includes('Mis à jour le 05.05.2015'), text.slice(0, 200));
  assert.ok(text.startsWith('Les députés ont, sans surprise, adopté'), text.slice(0, 200));
});

test('a lead that only carries a hidden date stamp is not a signature line', () => {
  const lead = '<p class="intro"><span>19.10.2019, 15:30 Uhr</span><meta itemprop="datePublished" content="2019-10-19"><span>Am 8. Spieltag treffen Dortmund und Gladbach aufeinander. So sehen Sie das Spiel live.</span></p>';
  const html = `<html><body><article>${lead}${filler}${filler}</article></body></html>`;
  const result = rewriteWithRules(html);
  assert.ok(result.ok);
  assert.ok(result.markdown.includes('So sehen Sie das Spiel live.'), result.markdown);
});

test('a closing section under a bold line that is only a stock heading ("Über den Autor") is cut', { skip }, () => {
  const p = page('angelmagazin.de-schmerzen.html');
  assert.ok(!p.text.includes('Über den Autor'), p.text.slice(-300));
  assertSnippets(p);
});

test('a line with more than the stock phrase ("Comments (5 posted)") does not start the tail (lwn-1)', { skip: devSkip }, () => {
  assert.ok(devPage('lwn-1').includes('Comments (74 posted)'));
});

/** Rules of the sixth round. */
test('emphasis inside a word (an italic subscript, H*ij*) reads back as one word; a gender star stays (wikipedia-3)', { skip: devSkip }, () => {
  assert.equal(markdownToPlainText('Thus H*ij* = H*ji*, *I**n* is, Kund*innen und Mitarbeiter*innen'), 'Thus Hij = Hji, In is, Kund*innen und Mitarbeiter*innen');
  assert.ok(devPage('wikipedia-3').includes('Thus Hij = Hji (matrix symmetry)'));
});

test('a "©" written onto a word (manifesto™©) does not make the closing paragraph a copyright line (medium-1)', { skip: devSkip }, () => {
  assert.ok(devPage('medium-1').includes('We’re all in this together.'));
  const html = `<html><body><article>${filler}${filler}<p>This isn’t a manifesto™© we just share what we learned, and hope you do the same.</p><p>© 2024 Example Media</p></article></body></html>`;
  const result = rewriteWithRules(html);
  assert.ok(result.ok);
  assert.ok(result.markdown.includes('hope you do the same.'), result.markdown);
  assert.ok(!result.markdown.includes('Example Media'), result.markdown);
});

test("a paywalled story's first sentence, found in its <article>, is not replaced by the menu a later pass finds", { skip }, () => {
  // The strict pass finds one sentence (under 200 characters) where articles sit; the pass that
  // keeps unlikely names finds a longer block, the site's mobile menu, and that was kept.
  const p = page('caymancompass.com-prison.html');
  assert.ok(p.text.includes(squash(p.with[1]!)) && p.text.includes(squash(p.with[2]!)), p.text.slice(0, 200));
  assert.ok(!/Cayman News|Advertise With Us|Rooster 101\.9/.test(p.text), p.text.slice(0, 200));
});

test("a pass without an article does not replace a pass's found text that has no sentence in it", { skip }, () => {
  // A live match page: the article region holds only minute marks ("95'88'81'"), and the later
  // pass's line-ups and match facts are the page.
  assertSnippets(page('sports.fr.lorient.html'));
});

test('a line cut off with an ellipsis ("loading...", a teaser\'s "Als ich bei...") is not the last prose: the related links before it go', { skip }, () => {
  // A rating widget's "loading..." after the "Verwandte Artikel" links ended like a sentence,
  // so the trim of the tail stopped below the links.
  const p = page('archive.peptalks.de.schulnoten.html');
  assertSnippets(p);
  assert.ok(!/Teenager-Befreiungs|Homeschooling in Deutschland|loading\.\.\./.test(p.text), p.text.slice(-200));
});

test("a recipe's block of linked ingredients and its steps is not dropped whole for its links", { skip }, () => {
  // Conditional cleaning judged the block holding both (link density over 0.2) and took the steps
  // with the ingredient links; the steps are paragraphs of prose, so the parts are judged one by one.
  const p = page('eatsmarter.de.porridge.html');
  assertSnippets(p);
  assert.ok(p.text.includes('Brei mit den Äpfeln und Nüssen servieren.'), p.text.slice(-200));
});

test("a part styled as the top block (a recipe's ingredients beside its steps) is kept though it links to products", { skip }, () => {
  // Both are `div.m022-accordion-content`; the ingredients' product links (link density 0.28) kept
  // them out of the article's parts.
  const p = page('oetker.de.bienenstich.html');
  assert.ok(p.text.includes('für das Rezept Bienenstich-Muffins') && p.text.includes('Belag:'), p.text.slice(0, 200));
  assert.ok(p.text.includes('ein großes Brett legen.'));
  for (const s of p.without) assert.ok(!p.text.includes(squash(s)), `unwanted: ${s}`);
});

test('a "Beliebt." label in the last part of the content starts the tail: the popular list and the pitch after it go', { skip }, () => {
  // German for "popular": a numbered list of the site's most read stories, then a subscription pitch.
  const p = page('mixed.de.vrodo.html');
  assertSnippets(p);
  assert.ok(!/Beliebt|Werbebanner/.test(p.text), p.text.slice(-200));
});

test('an affiliate note after the article ("von denen ... eine Provision erhält") is chrome, and the gallery link before it goes too', { skip }, () => {
  const p = page('outdoor-magazin.com-vanlife.html');
  assertSnippets(p);
  assert.ok(!/Provision|Weitere Tourentipps/.test(p.text), p.text.slice(-200));
});

test('a "Weitere Informationen:" label in the last part of a press release starts the tail (links and contacts after it)', { skip }, () => {
  const p = page('mpimet.de.klimasystem.html');
  assertSnippets(p);
  assert.ok(!/Weitere Informationen:|Kontakt:/.test(p.text), p.text.slice(-200));
});

test('a "Zusatzinformationen:" or "Kontakt" label in the last part of the content starts the tail', { skip }, () => {
  for (const file of ['internetchemie.info.Heliumkerne.html', 'lsvd.de-afghanistan.html']) {
    const p = page(file);
    assertSnippets(p);
  }
});

test('"Weiterlesen:" and "Articles liés" alone on a line label the related links that close a page', { skip }, () => {
  for (const file of ['1000things.at-Wellnessoasen.html', 'bondyblog.fr.paris-8.html']) assertSnippets(page(file));
});

test('a like button\'s "Like:", "Wer hat das geschrieben?" or "Donate now" alone on a line labels a closing section', { skip }, () => {
  for (const file of ['golfpost.de-premiere.html', 'hertha-blog.de.dame.html']) assertSnippets(page(file));
});

test('a video\'s "verfügbar bis 28.02.2021" after the text is a stamp of the page, not the article\'s ending', { skip }, () => {
  const p = page('zdf.de.corona.html');
  assertSnippets(p);
  assert.ok(!p.text.includes('verfügbar bis'), p.text.slice(-120));
});

/**
 * Issue 44, twelfth round: each rule on a real page of the set, with the line it removes and the page's
 * snippets (all of them, or the unwanted ones where the page misses wanted text for other reasons).
 */
const TWELFTH_ROUND: { rule: string; file: string; gone: string; onlyUnwanted?: boolean }[] = [
  // An ASP.NET form holds the whole page, so only the inclusive pass finds the recipe.
  { rule: 'the inclusive pass trims the edges too: a page wrapped in one form loses its copyright line', file: 'bettycrocker.com.pineapple.html', gone: 'All Rights Reserved' },
  // Two lines of dialogue, then Jetpack's share, like and related boxes: more than the 30% a tail may otherwise take.
  { rule: "a short post's share, like and related-posts boxes go although they are most of its text", file: 'weselpower.wordpress.com.monstergesprche.html', gone: 'Teilen Sie dies mit' },
  // WordPress's form#commentform, whose notification checkboxes read as sentences, kept the widgets above it.
  { rule: 'the inclusive pass keeps forms but not a comment form, and the widgets above it go with it', file: 'gnaur.wordpress.com.moglichkeit.html', gone: 'Kommentar verfassen' },
  // <eop-back-link><a>Zurück zum Newsroom</a></eop-back-link> was text loose in its container, never removed alone.
  { rule: 'a custom element is a block of the edges: a "back" link in <eop-back-link> above the story goes', file: 'enwb.com.windpark.steinheim.html', gone: 'Zurück zum Newsroom' },
  { rule: 'a "News date : ..." stamp after a press release ends it, with the category beside it', file: 'bahamaslocal.com-atlantis.html', gone: 'News date' },
  // "Apoya el periodismo incómodo" in bold, then the membership pitch ("Cancela cuando quieras").
  { rule: 'a "support our journalism" label in the last part starts the tail, with the pitch under it', file: 'elfaro.net-asamblea.html', gone: 'Apoya el periodismo', onlyUnwanted: true },
  { rule: 'a licence line after the article ("... unter der Lizenz CC-BY-NC-ND") is chrome', file: 'fluter.de.vorbild.html', gone: 'unter der Lizenz' },
  { rule: 'a licence line after the article ("Sofern nicht anders ausgewiesen ...") is chrome', file: 'creativecommons.ch.wie.html', gone: 'Sofern nicht anders ausgewiesen' },
];
for (const c of TWELFTH_ROUND) {
  test(c.rule, { skip }, () => {
    const p = page(c.file);
    assert.ok(!p.text.includes(c.gone), `${c.file}: ${p.text.slice(-200)}`);
    if (c.onlyUnwanted) for (const s of p.without) assert.ok(!p.text.includes(squash(s)), `unwanted: ${s}`);
    else assertSnippets(p);
  });
}
