// Building the page: elements, the main view and the status line.

export const main = document.getElementById("main");
const status = document.getElementById("status");

/** Builds an element: `h("a", { href: "#/" }, "text", child)`. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (name === "class") el.className = value;
    else el.setAttribute(name, value === true ? "" : value);
  }
  el.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

let visits = 0;
// When the status line's message was said.
let announcedAt = -Infinity;
// How soon after a message a change of view is the one its action made.
const ACTION_VIEW = 1500;

/** Says `text` to screen readers and shows it in the status line. */
export function announce(text) {
  status.textContent = text;
  announcedAt = Date.now();
}

/** A new view begins: the number `show` stamps on what it draws. A message
 * outlives the change of view its action made at once ("Collection
 * deleted." over the list), not one the player makes later ("You
 * resigned." is not said again over the lobby). */
export function nextVisit() {
  visits += 1;
  if (Date.now() - announcedAt > ACTION_VIEW) status.textContent = "";
  main.setAttribute("aria-busy", "true");
}

/** Replaces the main view. */
export function show(...sections) {
  main.replaceChildren(...sections);
  main.setAttribute("aria-busy", "false");
  main.dataset.visit = visits;
}
