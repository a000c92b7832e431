"""Data made on purpose: synthetic corpora for the benchmarks (`corpus`, `consolidation`), the gate's labelled
writes (`gate_set`), LoCoMo cross-validation (`locomo_cv`), and the demo memories a new store starts with
(`demo`)."""
