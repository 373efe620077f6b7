import markdownIt from "markdown-it";

/**
 * markdown-it set up for `parseMarkdown`: CommonMark plus GFM tables and ~~strikethrough~~ (its
 * default preset); raw HTML is parsed as such so the renderers can show it as text. Built once per
 * module: parsing keeps no state in it.
 */
export const markdownParser = markdownIt("default", { html: true, linkify: false, typographer: false });

// markdown-it's own link normalisation (URL parse + punycode per link) is most of its time on a long
// answer; a link only needs the characters that would end it or break an attribute encoded.
markdownParser.normalizeLink = (url) =>
  /[\s<>"]/.test(url) ? url.replace(/[\s<>"]/g, (character) => encodeURIComponent(character)) : url;
markdownParser.normalizeLinkText = (url) => url;
// The parse needs "\n" line ends and no NUL; most answers have neither "\r" nor NUL, so the stock rule's
// two replaces over the whole text are skipped for them.
markdownParser.core.ruler.at("normalize", (state) => {
  if (/[\r\0]/.test(state.src)) state.src = state.src.replace(/\r\n?/g, "\n").replace(/\0/g, "\uFFFD");
});
// Adjacent texts are merged while building the tree, so markdown-it's passes doing so are not needed;
// the typographer and linkify rules are off by option and need not be asked.
markdownParser.core.ruler.disable(["text_join", "linkify", "replacements", "smartquotes"]);
markdownParser.inline.ruler.disable("linkify");
markdownParser.inline.ruler2.disable("fragments_join");
