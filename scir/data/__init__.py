"""Data sets shipped with, or located by, the toolkit (loading and validation only)."""
