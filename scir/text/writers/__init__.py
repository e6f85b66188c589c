"""Per-track writers of the template renderer: ``drafts(task, contents, genres, gset, rng)``
turns each block's formal content into a :class:`~scir.text.document.Draft` in its genre."""
