"""The analysis board's and the training page's pictures in docs/, made again by one command.

``python -m ferrochess_tools.screenshots [DOCS]`` serves the play app on a free port, opens the
analysis board in Debian's Chromium (Playwright, never a downloaded browser) at a laptop's width
and at a phone's (390 px), imports an annotated game with variations, goes to a position of it,
turns the live engine on with three lines and waits until it has searched deep enough to show
them, then writes ``analysis-desktop.png`` and ``analysis-phone.png`` into DOCS (default
``docs``). It then serves the app again with a games archive in a temporary SQLite file, stores a
game the player lost to a blunder (3...Nf6?? 4.Qxf7#), opens ``/train`` as that player, finds the
puzzle in the game from the page and writes ``train-desktop.png``. The notebook's picture
(``notebook-analysis.png``) is made by tests/test_notebook_jupyterlab.py in tests/artifacts/,
which a person copies into docs/.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
from pathlib import Path

from ferrochess.web import create_app
from werkzeug.serving import make_server

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]  # fmt: skip
GAME = """[Event "London"]
[Date "1851.06.21"]
[White "Anderssen, Adolf"]
[Black "Kieseritzky, Lionel"]
[Result "1-0"]

{ The Immortal Game. } 1. e4 e5 2. f4 $1 { The King's Gambit. } exf4 ( 2... d5 { the Falkbeer }
3. exd5 ) 3. Bc4 Qh4+ $6 4. Kf1 b5 $5 ( 4... d6 5. Nf3 ) 5. Bxb5 Nf6 6. Nf3 Qh6 7. d3 Nh5
8. Nh4 { [%cal Gh4f5] } Qg5 9. Nf5 c6 10. g4 $1 Nf6 11. Rg1 $3 *
"""
PLY = 19
"""The position shown: after 10. g4, the engine's three lines beside it."""
DEPTH = 14
"""The depth the engine's first line reaches before the picture is taken."""
DEEP_ENOUGH_JS = r"""(depth) => {
  const info = document.querySelector("[data-testid=ceval-info]").textContent;
  const found = /depth (\d+)/.exec(info);
  return document.querySelectorAll("[data-testid=ceval-line]").length === 3
    && found !== null && Number(found[1]) >= depth;
}"""
"""Whether the engine shows its three lines at ``depth`` or deeper."""
SIZES = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
TIMEOUT_MS = 60_000


def take(docs: Path) -> list[Path]:
    """Writes the pictures into ``docs``; returns their paths."""
    from playwright.sync_api import sync_playwright

    app = create_app({"FERROCHESS_ENGINES": 2, "FERROCHESS_ANALYSIS_SECONDS": 60})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/"
    written = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for name, viewport in SIZES.items():
                page = browser.new_page(viewport=viewport)
                page.set_default_timeout(TIMEOUT_MS)
                tree = page.request.post(
                    url + "api/import", data=json.dumps({"pgn": GAME}),
                    headers={"Content-Type": "application/json"},
                ).json()  # fmt: skip
                path = ".".join(["0"] * PLY)  # the main line's PLY-th move
                saved = {"tree": tree["tree"], "path": path, "engine": True, "lines": 3}
                page.goto(url + "api/levels")  # the origin, to write the board's storage
                page.evaluate(
                    "(saved) => localStorage.setItem('ferrochess.analysis.tree', saved)",
                    json.dumps(saved),
                )
                page.goto(url + "analysis")
                page.wait_for_selector(f'#app[data-state="ready"][data-shown="{path}"]')
                page.wait_for_function(DEEP_ENOUGH_JS, arg=DEPTH)
                page.wait_for_timeout(300)  # chessground draws the arrows on its next frame
                target = docs / f"analysis-{name}.png"
                page.screenshot(path=str(target))
                written.append(target)
                page.close()
            browser.close()
    finally:
        server.shutdown()
        app.extensions["ferrochess_pool"].close()
    return written


BLUNDER = ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"]
"""The game the training page's picture finds a puzzle in: Black (the player) allows 4.Qxf7#."""
PLAYER = "docs-picture"


def take_train(docs: Path) -> Path:
    """Writes ``train-desktop.png`` into ``docs``; returns its path."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"FERROCHESS_ENGINES": 1,
                          "FERROCHESS_DATABASE": str(Path(folder) / "games.sqlite3")})  # fmt: skip
        archive = app.extensions["ferrochess_archive"]
        archive.store_game({"client_id": "docs-picture-game", "moves": BLUNDER, "human": "black",
                            "level": 1, "white": "ferrochess level 1", "black": "You",
                            "player": PLAYER})  # fmt: skip
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_port}/"
        target = docs / "train-desktop.png"
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport=SIZES["desktop"])
                page.set_default_timeout(TIMEOUT_MS)
                page.goto(url + "api/levels")  # the origin, to write the page's player id
                page.evaluate("(id) => localStorage.setItem('ferrochess.player', id)", PLAYER)
                page.goto(url + "train")
                page.wait_for_selector('#app[data-state="empty"]')
                page.click('#app [data-action="mine"]')
                page.wait_for_selector('#app[data-state="solving"]')
                page.wait_for_timeout(300)  # chessground's last frame
                page.screenshot(path=str(target))
                browser.close()
        finally:
            server.shutdown()
            app.extensions["ferrochess_pool"].close()
            archive.close()
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("docs", nargs="?", default="docs", type=Path, help="where to write them")
    docs = parser.parse_args().docs
    for path in [*take(docs), take_train(docs)]:
        print(path)


if __name__ == "__main__":
    main()
