"""Scientific-document rendering, as generic machinery the tracks' codecs use: the codec
interface each track implements in its own package (:mod:`scir.text.codec`, returned by
``Track.codec()``), drafts and filler (:mod:`scir.text.document`), template patterns
(:mod:`scir.text.patterns`), the genre-file reader (:mod:`scir.text.genres`), the check and
comparison of block contents (:mod:`scir.text.blocks`), the depth measure
(:mod:`scir.text.depth`) and the back-translation helpers (:mod:`scir.text.inverse`). Nothing
here finds a track: what needs a task's codec is given it, and the drivers that find it
through the task's track are :mod:`scir.rendering`, above :mod:`scir.tracks`. Nothing here
branches on a track's name. See ``docs/rendering.md``.
"""
