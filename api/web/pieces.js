// The six units, drawn as SVG in a 100 x 100 box: nothing is fetched to
// draw a board. `pieceSvg("n", "white")` gives an <svg> element.

const SVG = "http://www.w3.org/2000/svg";

// Each unit: filled outlines, then detail lines drawn in the contrasting
// colour so that black units keep their shape.
const SHAPES = {
  p: {
    fill: [
      "M50 17a13 13 0 1 1 0 26a13 13 0 1 1 0-26z",
      "M38 80q2-22 8-34h8q6 12 8 34z",
      "M26 80h48v9H26z",
    ],
    detail: [],
  },
  r: {
    fill: ["M30 20h9v7h7v-7h8v7h7v-7h9v20h-7l3 38H34l3-38h-7z", "M24 78h52v10H24z"],
    detail: ["M37 40h26", "M35 70h30"],
  },
  n: {
    fill: [
      "M30 88h46c0-30-4-56-26-68l-4-8-5 10C29 29 22 42 18 52c2 7 9 9 15 5l10-7c-2 13-12 20-13 38z",
    ],
    detail: ["M38 34a3 3 0 1 0 .1 0", "M20 52l5-1"],
  },
  b: {
    fill: [
      "M50 10a6 6 0 1 1 0 12a6 6 0 1 1 0-12z",
      "M50 22c-14 12-17 30-10 42h20c7-12 4-30-10-42z",
      "M36 64h28v8H36z",
      "M24 80c8-6 18-7 26-5c8-2 18-1 26 5v8H24z",
    ],
    detail: ["M50 34v14", "M43 41h14"],
  },
  q: {
    fill: [
      "M24 78L16 34l17 20 6-30 11 28 11-28 6 30 17-20-8 44z",
      "M16 30a5 5 0 1 1 0 .1z",
      "M39 20a5 5 0 1 1 0 .1z",
      "M61 20a5 5 0 1 1 0 .1z",
      "M84 30a5 5 0 1 1 0 .1z",
      "M22 78h56v10H22z",
    ],
    detail: ["M26 70h48"],
  },
  k: {
    fill: [
      "M46 8h8v8h8v8h-8v14h-8V24h-8v-8h8z",
      "M26 78c-10-18-6-36 10-36c7 0 12 5 14 12c2-7 7-12 14-12c16 0 20 18 10 36z",
      "M24 78h52v10H24z",
    ],
    detail: ["M50 54v22", "M30 70h40"],
  },
};

const NAMES = { p: "pawn", n: "knight", b: "bishop", r: "rook", q: "queen", k: "king" };

/** The unit's English name, from its letter in either case. */
export function pieceName(letter) {
  return NAMES[letter.toLowerCase()];
}

/** An <svg> of the unit `letter` (either case) in `color`. */
export function pieceSvg(letter, color) {
  const shape = SHAPES[letter.toLowerCase()];
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("aria-hidden", "true");
  svg.classList.add("piece", color);
  for (const d of shape.fill) {
    const path = document.createElementNS(SVG, "path");
    path.setAttribute("d", d);
    path.classList.add("body");
    svg.append(path);
  }
  for (const d of shape.detail) {
    const path = document.createElementNS(SVG, "path");
    path.setAttribute("d", d);
    path.classList.add("detail");
    svg.append(path);
  }
  return svg;
}
