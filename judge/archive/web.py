"""Serving the archive's folder read-only on a loopback port (``[archive] listen``), for a host
with no web server of its own; anything public goes through a real web server in front
(docs/operating.md has nginx and Caddy examples).

Waitress (a pure-Python WSGI server) serves WhiteNoise (static files: GET and HEAD only,
ETag and Last-Modified, ``index.html`` for a folder, nothing outside the folder): no HTTP is
written here. WhiteNoise looks each file up when it is asked for (``autorefresh``), since the
judge writes new pages while it runs. It serves only the archive's own files (:class:`_Archive`):
no dotfile or dotted folder (an update's ``.NAME.tmp`` files, a host's ``.htpasswd``), no kind of
file the archive does not write, nothing a symlink leads to outside the folder.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from waitress.server import create_server  # type: ignore[import-untyped]
from whitenoise import WhiteNoise  # type: ignore[import-untyped]
from whitenoise.responders import MissingFileError  # type: ignore[import-untyped]

from judge.archive.write import make_folder

log = logging.getLogger("judge.archive")

# WhiteNoise adds charset="utf-8" to the text/ types itself (named here too, it was twice)
MIMETYPES = {".atom": "application/atom+xml; charset=utf-8", ".css": "text/css",
             ".html": "text/html", ".png": "image/png"}


def _not_found(environ: dict, start_response: Callable[..., Any]) -> Iterable[bytes]:
    body = b"Not found: this archive has only its pages, pictures and feeds.\n"
    start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8"),
                                     ("Content-Length", str(len(body)))])
    return [body]


def _headers(headers: Any, path: str, url: str) -> None:
    headers["X-Content-Type-Options"] = "nosniff"
    headers["Content-Security-Policy"] = "default-src 'self'; img-src 'self' data:; script-src 'none'"


class _Archive(WhiteNoise):  # type: ignore[misc]
    """WhiteNoise serving only what the archive writes: any file under its root it served,
    a dotfile, a temporary file of an update and a symlink's target outside the folder too."""

    def __init__(self, folder: Path, **kwargs: Any) -> None:
        super().__init__(_not_found, root=str(folder), **kwargs)
        self.root = os.path.abspath(folder)
        self.real_root = os.path.realpath(folder)

    def _ours(self, path: str) -> bool:
        if "\0" in path:  # /index.html%00: no file has one (realpath raised: a 500)
            return False
        asked = os.path.relpath(os.path.abspath(path), self.root)
        real = os.path.realpath(path)
        # the archive writes no symlink: one (of the file or a folder above it) is refused,
        # wherever it leads
        if os.path.join(self.real_root, asked) != real and asked != ".":
            return False
        if any(p.startswith(".") for p in asked.split(os.sep) if p != "."):  # .NAME.tmp
            return False
        return os.path.isdir(real) or os.path.splitext(real)[1] in MIMETYPES

    def get_static_file(self, path: str, url: str, stat_cache: Any = None) -> Any:
        if not self._ours(path):
            raise MissingFileError(path)
        return super().get_static_file(path, url, stat_cache=stat_cache)


def application(folder: Path) -> WhiteNoise:
    """The WSGI application serving ``folder``."""
    return _Archive(folder, autorefresh=True, index_file=True, max_age=60, allow_all_origins=False,
                    mimetypes=MIMETYPES, add_headers_function=_headers)


class ArchiveServer:
    """The folder served on ``listen`` (HOST:PORT) in a thread of its own."""

    def __init__(self, folder: Path, listen: str) -> None:
        host, _, port = listen.rpartition(":")
        make_folder(folder)
        try:
            self.server = create_server(application(folder), host=host.strip("[]"),
                                        port=int(port), threads=2, ident="judge-archive",
                                        clear_untrusted_proxy_headers=True)
        except OSError as exc:  # the OS's words alone did not say which of the judge's ports
            raise OSError(exc.errno, f"the web archive cannot listen on {listen} "
                                     f"({exc.strerror or exc}): set [archive] listen to a "
                                     f"free port") from exc
        self.thread = threading.Thread(target=self.server.run, name="archive-web",
                                       daemon=True)

    def start(self) -> None:
        self.thread.start()
        log.info("archive served read-only on http://%s", self.address)

    @property
    def address(self) -> str:
        host, port = self.server.socket.getsockname()[:2]
        return f"{host}:{port}"

    def stop(self) -> None:
        """Close the server in its own loop's thread: closed from this one, its socket and
        wake-up pipe went under a running select() (a traceback at every stop). The worker
        threads first (a request in hand wakes the loop when done), then, with nothing left
        to watch, the loop ends."""
        self.server.task_dispatcher.shutdown()
        if not self.thread.is_alive():
            self.server.close()
        else:
            def close_all() -> None:
                for dispatcher in list(self.server._map.values()):
                    dispatcher.close()

            self.server.trigger.pull_trigger(close_all)
            self.thread.join(5)
