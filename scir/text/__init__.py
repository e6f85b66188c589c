"""Scientific-document rendering, as generic machinery: the codec interface each track
implements in its own package (:mod:`scir.text.codec`, returned by ``Track.codec()``), drafts
and filler (:mod:`scir.text.document`), template patterns (:mod:`scir.text.patterns`), the
genre-file reader (:mod:`scir.text.genres`), the template renderer
(:mod:`scir.text.template`), the reference extraction that proves every fact recoverable
(:mod:`scir.text.extractors`), the LLM renderer with its back-translation check
(:mod:`scir.text.llm_renderer`, :mod:`scir.text.inverse`) and the formatting of task-file
statistics computed by :mod:`scir.evaluate.taskstats`
(:mod:`scir.text.stats`). Nothing here branches on a track's name. See ``docs/rendering.md``.
"""
