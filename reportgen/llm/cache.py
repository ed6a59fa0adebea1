"""The on-disk response cache: one JSON file per (model, prompt, input), so a rerun of the
same question or summary costs no call. Stdlib only."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from reportgen.cachekey import keyed, sealed, unsealed
from reportgen.pdf.files import read_json, write_atomic

MAX_ENTRY = 16 << 20  # no response is larger; a bigger file is not ours


def cache_key(model: str, prompt_id: str, prompt_sha256: str, payload: Any) -> str:
    """SHA-256 over the model, the prompt's version and file hash, and the input as
    canonical JSON (sorted keys), so equal inputs share one entry whatever their order."""
    blob = json.dumps({"model": model, "prompt": prompt_id, "prompt_sha256": prompt_sha256,
                       "input": payload}, sort_keys=True, ensure_ascii=False,
                      separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """Entries under `folder/<name[:2]>/<name>.json`, the name and a checksum HMACs under
    the user's key (`reportgen.cachekey`): a response a workspace brings in its
    `.reportgen/` is never taken for the model's; a damaged entry counts as missing."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        name = keyed("llm-response", key)
        return self.folder / name[:2] / f"{name}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        data = unsealed("llm-response-entry", read_json(self._path(key), MAX_ENTRY))
        return data if data is not None and data.get("key") == key else None

    def put(self, key: str, entry: dict[str, Any]) -> None:
        path = self._path(key)
        data = sealed("llm-response-entry", dict(entry, key=key))
        blob = json.dumps(data, sort_keys=True, ensure_ascii=False, indent=1)
        write_atomic(path.parent, [blob.encode("utf-8")], lambda: path, suffix=".json")
