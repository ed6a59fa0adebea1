"""Summaries kept on disk by key (the community's fingerprint, the summariser and what it
read), so a rebuild writes only the summaries of changed communities; the counts of
reused, written and removed entries are the run's report. Files are named and checked
with HMACs under the user's key (`reportgen.cachekey`). Stdlib only."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from reportgen.cachekey import keyed, sealed, unsealed
from reportgen.pdf.files import read_json, write_atomic

MAX_ENTRY = 16 << 20  # no summary is larger; a bigger file is not ours


class SummaryStore:
    """One JSON file per summary under `folder` (one folder per summariser, so a run with
    one summariser never removes another's, e.g. paid-for model summaries)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.used: set[str] = set()
        self.reused = self.written = self.removed = 0

    def _name(self, key: str) -> str:
        # an HMAC under the user's key (`reportgen.cachekey`): a summary a workspace brings
        # in its `.reportgen/` is never found, so it cannot put its sentences in answers
        return keyed("community-summary", key)

    def get(self, key: str) -> dict[str, Any] | None:
        name = self._name(key)
        self.used.add(name)
        data = unsealed("community-summary-entry",
                        read_json(self.folder / f"{name}.json", MAX_ENTRY))
        if data is None or data.get("key") != key:
            return None
        self.reused += 1
        return data

    def put(self, key: str, entry: dict[str, Any]) -> None:
        name = self._name(key)
        self.used.add(name)
        path = self.folder / f"{name}.json"
        data = sealed("community-summary-entry", dict(entry, key=key))
        blob = json.dumps(data, sort_keys=True, ensure_ascii=False, indent=1)
        write_atomic(self.folder, [blob.encode("utf-8")], lambda: path, suffix=".json")
        self.written += 1

    def prune(self) -> None:
        """Remove the summaries this run did not use: their communities are gone."""
        try:
            names = sorted(os.listdir(self.folder))
        except FileNotFoundError:
            return
        for name in names:
            if name.endswith(".json") and not name.startswith(".") \
                    and name[:-5] not in self.used:
                try:
                    os.unlink(self.folder / name)
                    self.removed += 1
                except FileNotFoundError:
                    pass

    def counts(self) -> dict[str, int]:
        return {"reused": self.reused, "written": self.written, "removed": self.removed}


class MemoryStore(SummaryStore):
    """A store that keeps nothing (the site's build, tests): every summary is written."""

    def __init__(self) -> None:
        super().__init__(Path("."))

    def get(self, key: str) -> dict[str, Any] | None:
        self.used.add(key)
        return None

    def put(self, key: str, entry: dict[str, Any]) -> None:
        self.used.add(key)
        self.written += 1

    def prune(self) -> None:
        pass
