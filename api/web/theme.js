// The page's colours: the system's light or dark, unless the player chose
// one on this device. The style sheet reads `data-theme` on the root.

import { h } from "./dom.js";

const KEY = "kingpost.theme";
const systemDark = matchMedia("(prefers-color-scheme: dark)");

/** Sets the theme on the page: the player's choice, or the system's. */
export function applyTheme() {
  const chosen = localStorage.getItem(KEY);
  document.documentElement.dataset.theme = chosen ?? (systemDark.matches ? "dark" : "light");
}

systemDark.addEventListener("change", applyTheme);

/** A switch between the light and the dark theme, kept on this device. */
export function themeSwitch() {
  return h(
    "button",
    {
      type: "button",
      class: "quiet theme",
      "aria-pressed": String(document.documentElement.dataset.theme === "dark"),
      onclick: (event) => {
        const next = document.documentElement.dataset.theme === "dark" ? "light" : "dark";
        localStorage.setItem(KEY, next);
        applyTheme();
        event.currentTarget.setAttribute("aria-pressed", String(next === "dark"));
      },
    },
    "Dark theme",
  );
}
