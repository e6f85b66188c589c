"""``croissant.json``: Croissant 1.0 metadata (JSON-LD) of a released folder.

Every data file is a ``cr:FileObject`` with its sha256; each config (track) is a
``cr:FileSet`` of its split files (``data/<config>/<split>.jsonl``, listed) and a ``cr:RecordSet`` whose
fields (:func:`scir.release.schema.croissant_fields`) read the files' columns. Written by
hand (no mlcroissant at run time); the tests validate it with mlcroissant.
"""

from __future__ import annotations

import hashlib
from typing import Any

from scir.release.rows import Split

CONFORMS_TO = "http://mlcommons.org/croissant/1.0"
JSONL = "application/jsonlines"

# the JSON-LD context of the Croissant 1.0 specification
CONTEXT: dict[str, Any] = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}


def sha256(data: bytes) -> str:
    """The hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


KEYWORDS = ["reasoning", "logic", "neuro-symbolic", "deduction", "induction", "causal discovery"]


def keywords(configs: dict[str, list[Split]]) -> list[str]:
    """The dataset's keywords: the general ones, then the name of every track (config) they
    do not already name (a track of one's own, e.g. ``horn``)."""
    named = " ".join(KEYWORDS)
    return KEYWORDS + [c for c in configs if c not in named]


def croissant(
    configs: dict[str, list[Split]],
    files: dict[str, bytes],
    *,
    name: str,
    description: str,
    license_url: str,
    url: str,
    version: str,
    cite_as: str,
    date: str | None = None,
) -> dict[str, Any]:
    """The Croissant document of a folder: ``configs`` as :func:`scir.release.rows.splits`
    gives them, ``files`` the data files' bytes by relative path; ``date`` (ISO) becomes
    ``datePublished`` when given (never today's date: the same inputs give the same bytes)."""
    from scir.release.schema import croissant_fields

    distribution: list[dict[str, Any]] = []
    for path in sorted(files):
        distribution.append(
            {
                "@type": "cr:FileObject",
                "@id": path,
                "name": path,
                "description": "one split of one config (JSON Lines)",
                "contentUrl": path,
                "encodingFormat": JSONL,
                "sha256": sha256(files[path]),
            }
        )
    record_sets: list[dict[str, Any]] = []
    for config, parts in configs.items():
        file_set = f"{config}-files"
        distribution.append(
            {
                "@type": "cr:FileSet",
                "@id": file_set,
                "name": file_set,
                "description": f"the split files of the {config} config: "
                + ", ".join(s.name for s in parts),
                "encodingFormat": JSONL,
                # the split files by name, not a glob: a file left in the folder
                # by an earlier export is not part of this release
                "includes": [s.path for s in parts],
            }
        )
        record_sets.append(
            {
                "@type": "cr:RecordSet",
                "@id": config,
                "name": config,
                "description": f"{config} tasks, one record per task and "
                "presentation (splits: " + ", ".join(s.name for s in parts) + ")",
                "field": croissant_fields(config, file_set),
            }
        )
    dated = {"datePublished": date} if date else {}
    return {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": CONFORMS_TO,
        "name": name,
        "description": description,
        "license": license_url,
        "url": url,
        "version": version,
        **dated,
        "citeAs": cite_as,
        "inLanguage": "en",
        "keywords": keywords(configs),
        "distribution": distribution,
        "recordSet": record_sets,
    }
