"""Rendering drivers: the functions that render, read back and measure a task by finding its
codec through its track (:func:`scir.rendering.codecs.codec_of`). They sit above
:mod:`scir.tracks`; the machinery the tracks' codecs use is :mod:`scir.text`, below them.

The template renderer (:mod:`scir.rendering.template`), the control presentation
(:mod:`scir.rendering.control`), the reference extraction that proves every fact recoverable
(:mod:`scir.rendering.extractors`), the LLM renderer with its back-translation check
(:mod:`scir.rendering.llm_renderer`, :mod:`scir.rendering.inverse`), each task's block
contents (:mod:`scir.rendering.blocks`), measured depth (:mod:`scir.rendering.depth`) and
science register (:mod:`scir.rendering.register`). Nothing here branches on a track's name.
See ``docs/rendering.md``.
"""
