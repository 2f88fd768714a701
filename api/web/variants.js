// The rule sets and the times the server offers, read once per page load:
// the page keeps no list of its own.

import { call } from "./api.js";

let offered = null;

/** Reads what the server offers, once. */
export async function loadVariants(signal) {
  offered ??= (await call("GET", "/variants", { auth: false, signal })).body;
  return offered;
}

/** Every rule set: key, title, starts, rated starts, notation. */
export function variants() {
  return offered?.variants ?? [];
}

/** The rule set `key`, if the server has it. */
export function variantOf(key) {
  return variants().find((v) => v.key === key);
}

/** The name players read for the rule set `key`. */
export function titleOf(key) {
  return variantOf(key)?.title ?? key;
}

/** The days per move on offer and the bounds of each clock. */
export function timeChoices() {
  return offered.time;
}

/** The name players read for a game's, a challenge's or a tournament's
 * variant: the rule set's title for its usual name (Chess, not
 * Standard), its PGN name otherwise (Chess960). */
export function variantWords(item) {
  const variant = variantOf(item.rules);
  return variant && item.variant === variant.name ? variant.title : item.variant;
}
