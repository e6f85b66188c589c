"""The dataset release: ``scir export --format hf`` (a Hugging Face dataset folder with a
dataset card and Croissant metadata) and ``--format scir`` (one JSON array that a task can be
used from alone).

- :mod:`scir.release.schema`: the row fields, their types and meaning (stated once, read by
  the writer, the card's ``dataset_info`` and the Croissant record sets);
- :mod:`scir.release.rows`: tasks -> rows, grouped by config (track) and split
  (difficulty x presentation);
- :mod:`scir.release.card`: the dataset card ``README.md``;
- :mod:`scir.release.croissant`: ``croissant.json`` (Croissant 1.0);
- :mod:`scir.release.folder`: the whole folder;
- :mod:`scir.release.scir_json`: the SciR-release JSON array and a task rebuilt from a record.
"""
