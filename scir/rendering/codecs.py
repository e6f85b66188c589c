"""A task's rendering codec and typed formal object, found through its track
(:func:`scir.tracks.track_of`); the codec interface itself is :mod:`scir.text.codec`."""

from __future__ import annotations

from typing import Any

from scir.tasks import Task
from scir.text.codec import RenderCodec
from scir.text.genres import GenreSet
from scir.tracks import get_track, track_of


def codec_of(task: Task) -> RenderCodec:
    """The rendering codec of ``task``'s track (ConfigError naming a track without one)."""
    return track_of(task).codec()


def formal_of(task: Task) -> Any:
    """The typed formal object of ``task`` (``Track.formal(task)``: its track's
    ``formal_type.load(task.formal)``, cached while ``task.formal`` is unchanged)."""
    return track_of(task).formal(task)


def codec_for(track: str) -> RenderCodec:
    """The rendering codec of the track called ``track``."""
    return get_track(track).codec()


def load_genres(track: str) -> GenreSet:
    """The genres of the track called ``track`` (ConfigError if it has no rendering codec)."""
    return codec_for(track).genres()
