// The rules for players, one page per rule set: `docs/rules/<key>.md` of the
// repository, served at /web/rules-<key>.md and drawn here. The Markdown
// read is the small part those files use: headings, paragraphs, lists,
// **bold**, `code`, and ```board fences (a FEN, a caption, squares to mark)
// drawn as diagrams.

import { diagram } from "./board.js";
import { h } from "./dom.js";
import { titleOf, variantOf, variants } from "./variants.js";

/** The link to the rules of `key`. */
export function rulesLink(key, text) {
  return h("a", { href: `#/rules/${key}`, class: "rules-link" }, text ?? `Rules of ${titleOf(key)}`);
}

/** The rules page of `key`, or the list of rule sets. */
export async function rulesPage(key, signal) {
  const nav = h(
    "nav",
    { class: "rule-sets", "aria-label": "Rule sets" },
    variants().map((v) =>
      h("a", { href: `#/rules/${v.key}`, "aria-current": v.key === key ? "page" : false }, v.title),
    ),
  );
  if (!variantOf(key)) {
    return [h("h2", {}, "Rules"), h("p", {}, "The rules of each game kingpost hosts:"), nav];
  }
  const answer = await fetch(`/web/rules-${key}.md`, { signal });
  if (!answer.ok) throw new Error(`the rules of ${key} are missing (HTTP ${answer.status})`);
  return [nav, h("article", { class: "rules" }, ...markdown(await answer.text()))];
}

/** The elements of a Markdown text. */
export function markdown(text) {
  const out = [];
  const lines = text.split("\n");
  let paragraph = [];
  let list = null;
  const flush = () => {
    if (paragraph.length) out.push(h("p", {}, ...inline(paragraph.join(" "))));
    paragraph = [];
    list = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith("```board")) {
      flush();
      const fence = [];
      for (i += 1; i < lines.length && !lines[i].startsWith("```"); i++) fence.push(lines[i]);
      const [fen, caption = "", marks = ""] = fence;
      out.push(diagram(fen.trim(), marks.split(/\s+/).filter(Boolean), caption.trim()));
    } else if (/^#{1,3} /.test(line)) {
      flush();
      const level = line.indexOf(" ");
      out.push(h(`h${level + 1}`, {}, ...inline(line.slice(level + 1))));
    } else if (/^\s*- /.test(line)) {
      if (paragraph.length) flush();
      if (!list) {
        list = h("ul", {});
        out.push(list);
      }
      list.append(h("li", {}, ...inline(line.replace(/^\s*- /, ""))));
    } else if (/^\s+\S/.test(line) && list) {
      // A list item's continuation line.
      list.lastChild.append(" ", ...inline(line.trim()));
    } else if (line.trim() === "") {
      flush();
    } else {
      list = null;
      paragraph.push(line.trim());
    }
  }
  flush();
  return out;
}

/** `code` and **bold** within a line. */
function inline(text) {
  return text
    .split(/(`[^`]+`|\*\*[^*]+\*\*)/)
    .filter(Boolean)
    .map((part) => {
      if (part.startsWith("`")) return h("code", {}, part.slice(1, -1));
      if (part.startsWith("**")) return h("strong", {}, part.slice(2, -2));
      return part;
    });
}
