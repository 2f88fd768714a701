#!/usr/bin/env python3
"""The project's pictures of the web client, in docs/, from the browser
test's screenshots (target/web-e2e/): each the desktop page and, where the
test took one, the phone's beside it, cut to the desktop's height.

    bash scripts/web-e2e/run.sh && python3 scripts/web-e2e/pictures.py

Needs Pillow. Colours are reduced to a palette: screenshots of a page lose
nothing a reader sees, and the files are a third of the size.
"""

from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "target" / "web-e2e"
DOCS = ROOT / "docs"
GAP = 32

# picture: (desktop screenshot, phone screenshot or None)
PICTURES = {
    "web-client": ("teleporting-kings-alice", "teleporting-kings-bob"),
    "web-switching": ("switching-alice", "switching-bob"),
    "web-bunker-leap": ("bunker-leap-prechess-alice", "bunker-leap-prechess-bob"),
    "web-captive-kings": ("captive-kings-alice", "captive-kings-bob"),
    "web-chess960": ("chess960-alice", "chess960-bob"),
    "web-lobby": ("lobby-alice", "lobby-bob"),
    "web-analysis": ("analysis-hana", "analysis-phone-ivan"),
    "web-dark": ("dark-hana", "dark-ivan"),
    "web-study": ("study-analysis-carol", "study-phone-ivan"),
    "web-explorer": ("explorer-carol", None),
    "web-tournament": ("tournament-carol", "phone-carol"),
    "web-swiss": ("swiss-carol", "phone-swiss-carol"),
    "web-team-match": ("team-match-carol", "phone-team-match-carol"),
}


def picture(desktop: str, phone: str | None) -> Image.Image:
    wide = Image.open(SHOTS / f"{desktop}.png").convert("RGB")
    if phone is None:
        return wide
    narrow = Image.open(SHOTS / f"{phone}.png").convert("RGB")
    narrow = narrow.crop((0, 0, narrow.width, min(narrow.height, wide.height)))
    both = Image.new("RGB", (wide.width + GAP + narrow.width, wide.height), (128, 128, 128))
    both.paste(wide, (0, 0))
    both.paste(narrow, (wide.width + GAP, 0))
    return both


def main() -> None:
    for name, (desktop, phone) in PICTURES.items():
        out = DOCS / f"{name}.png"
        picture(desktop, phone).quantize(colors=256, dither=Image.Dither.NONE).save(out, optimize=True)
        print(f"{out.relative_to(ROOT)}: {out.stat().st_size // 1024} KiB")


if __name__ == "__main__":
    main()
