"""Data made on purpose: synthetic corpora for the benchmarks (`corpus`, `consolidation`), the gate's labelled
writes (`gate_set`), LoCoMo cross-validation (`locomo_cv`), the crowded store with its changes and look-alike additions
(`crowded_set`, measured through the API by `crowded_eval`), and the demo memories a new store starts with
(`demo`)."""
