"""Data made on purpose: synthetic corpora for the benchmarks (`corpus`, `consolidation`) and the demo memories a new
store starts with (`demo`)."""
