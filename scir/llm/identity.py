"""A model's identity, recorded with every invocation of a run (:mod:`scir.provenance`): its
name and backend, and what pins the weights: the sha256 of a local model file or folder
(``gguf:``, ``smollm2``, ``hf:PATH``, ``tiny``; cached per file,
:func:`scir.provenance.file_digest`) or what an HTTP server says of the model it serves (``GET BASE_URL/models``: the entry's id,
``root``, ``owned_by``, ``created`` and any revision field; a short timeout, never an error).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scir.llm.names import ModelName, parse_model_name
from scir.provenance import file_digest, folder_digest

SERVED_TIMEOUT = 3.0
_SERVED_BYTES = 4 << 20  # a larger model list is not read (hosted catalogues)
_SERVED_FIELDS = ("id", "root", "owned_by", "created", "revision", "parent")


def model_identity(
    model: str | ModelName, base_url: str | None = None, api_key: str | None = None
) -> dict[str, Any]:
    """``{"name", "backend", ...}``: ``sha256`` and ``file`` for local weights, ``url`` and
    ``served`` (with ``revision`` when the server names one) for API models, ``note`` when
    nothing pins the weights."""
    name = model if isinstance(model, ModelName) else parse_model_name(model)
    out: dict[str, Any] = {"name": name.text, "backend": name.provider}
    try:
        if name.is_api:
            url = (base_url or name.base_url or "").rstrip("/")
            out["url"] = url
            served = served_model(url, name.model, api_key)
            if served:
                out["served"] = served
                revision = served.get("revision") or served.get("root")
                if revision and revision != name.model:
                    out["revision"] = str(revision)
                elif "created" in served:
                    out["revision"] = (
                        f"{served.get('id', name.model)} (created {served['created']})"
                    )
            else:
                out["note"] = "the server names no revision"
        elif name.provider == "gguf":
            from scir.llm.gguf import model_path

            path = model_path(name.model)
            out.update(file=str(path), sha256=file_digest(path))
        elif name.provider == "tiny":
            from scir.llm.tiny import model_dir

            folder = model_dir()
            if folder.is_dir():
                out.update(file=str(folder), sha256=folder_digest(folder))
            else:
                out["note"] = "not built yet"
        else:  # hf: a local folder or a hub id
            path = Path(name.model).expanduser()
            if path.is_dir():
                out.update(file=str(path.resolve()), sha256=folder_digest(path))
            elif path.is_file():
                out.update(file=str(path.resolve()), sha256=file_digest(path))
            else:
                out["note"] = "a hub id: the revision is the one in the local Hugging Face cache"
    except (OSError, ValueError) as exc:  # the model's own loading reports these
        out["note"] = f"not identified: {exc}"
    except Exception as exc:
        out["note"] = f"not identified: {exc}"
    return out


def served_model(
    base_url: str, model: str, api_key: str | None = None, timeout: float = SERVED_TIMEOUT
) -> dict[str, Any] | None:
    """What ``GET BASE_URL/models`` says of ``model`` (the fields of
    :data:`_SERVED_FIELDS`), or None when the server cannot be asked or does not list it."""
    request = urllib.request.Request(
        f"{base_url}/models",
        headers={
            "Accept": "application/json",
            **({"Authorization": f"Bearer {api_key}"} if api_key else {}),
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read(_SERVED_BYTES + 1)
    except (OSError, urllib.error.URLError, ValueError):
        return None
    if len(body) > _SERVED_BYTES:
        return None
    try:
        data = json.loads(body.decode("utf-8", "replace"))
    except ValueError:
        return None
    entries = data.get("data") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return None
    for entry in entries:
        if isinstance(entry, dict) and entry.get("id") == model:
            return {
                k: entry[k]
                for k in _SERVED_FIELDS
                if k in entry and isinstance(entry[k], (str, int, float))
            }
    return None


def run_provenance(
    models: Sequence[tuple[str | ModelName, str | None, str | None]],
) -> dict[str, Any]:
    """What an invocation records (:func:`scir.provenance.probe`) with the identity of each
    model, given as (name, base URL, API key) triples."""
    from scir.provenance import probe

    return {**probe(), "models": [model_identity(name, url, key) for name, url, key in models]}
