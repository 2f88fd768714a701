// The time of a challenge or a tournament, as a form's fields: days per
// move, ICCF's control, or a bank with an increment, within the bounds the
// server gives (`/variants`).

import { h } from "./dom.js";
import { timeChoices } from "./variants.js";

/** The fields, and `value()`: `{ days_per_move }` or `{ clock }`. */
export function timeFields() {
  const choices = timeChoices();
  const offered = choices.days_per_move;
  // Three days, as most correspondence servers begin, when on offer.
  const usual = offered.includes(3) ? 3 : offered[0];
  const days = h(
    "select",
    { name: "days" },
    offered.map((d) => h("option", { value: d, selected: d === usual }, d === 1 ? "1 day" : `${d} days`)),
  );
  const kind = h(
    "select",
    { name: "time" },
    [
      ["days", "Days per move"],
      ["control", "Moves in days (ICCF)"],
      ["bank", "A bank with an increment"],
    ].map(([value, text]) => h("option", { value }, text)),
  );
  const number = (name, { min, max }, value) =>
    h("input", { name, type: "number", min, max, value: Math.min(Math.max(value, min), max), required: true });
  const controlMoves = number("control-moves", choices.control_moves, 10);
  const controlDays = number("control-days", choices.control_days, 50);
  const bankStart = number("bank-start", choices.bank_initial_days, 7);
  const bankIncrement = number("bank-increment", choices.bank_increment_days, 1);
  const bankMax = number("bank-max", { min: choices.bank_initial_days.min, max: choices.bank_max_days }, 14);
  const daysField = h("label", {}, "Days per move", days);
  const controlField = h(
    "fieldset",
    { class: "range" },
    h("legend", {}, "Control"),
    h("label", {}, "Moves", controlMoves),
    h("label", {}, "in days", controlDays),
  );
  const bankField = h(
    "fieldset",
    { class: "range" },
    h("legend", {}, "Bank"),
    h("label", {}, "Days at first", bankStart),
    h("label", {}, "Added a move", bankIncrement),
    h("label", {}, "At most", bankMax),
  );
  const sync = () => {
    daysField.hidden = kind.value !== "days";
    controlField.hidden = kind.value !== "control";
    bankField.hidden = kind.value !== "bank";
    for (const input of [controlMoves, controlDays]) input.disabled = controlField.hidden;
    for (const input of [bankStart, bankIncrement, bankMax]) input.disabled = bankField.hidden;
  };
  kind.addEventListener("change", sync);
  sync();
  const value = () => {
    if (kind.value === "days") return { days_per_move: Number(days.value) };
    if (kind.value === "control")
      return { clock: { kind: "control", moves: Number(controlMoves.value), days: Number(controlDays.value) } };
    return {
      clock: {
        kind: "bank",
        initial_days: Number(bankStart.value),
        increment_days: Number(bankIncrement.value),
        max_days: Number(bankMax.value),
      },
    };
  };
  return { fields: [h("label", {}, "Time", kind), daysField, controlField, bankField], value };
}
