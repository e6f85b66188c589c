"""Scientific-document rendering: genres (``genres/<track>.json``), the template renderer
(:mod:`scir.text.template`), the reference extractors that prove every fact recoverable
(:mod:`scir.text.extractors`), the LLM renderer with its back-translation check
(:mod:`scir.text.llm_renderer`, :mod:`scir.text.inverse`) and rendering statistics
(:mod:`scir.text.stats`). See ``docs/rendering.md``.
"""
