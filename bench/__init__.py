"""The lab: benchmarks and evaluations of MemoryHub, beside the product and not shipped with it.

Run from the checkout as `python -m bench <name> [options]` (`python -m bench` lists the names); the commands live
in `bench/commands/`. The data made on purpose lives here too: synthetic corpora for the benchmarks (`corpus`,
`consolidation`), the gate's labelled writes (`gate_set`, and `fold_set` for what it folds) and its held-out
secrets (`secret_holdout`), LoCoMo cross-validation (`locomo_cv`), the crowded store with its changes and
look-alike additions (`crowded_set`, measured through the API by `crowded_eval`), and what the benchmarks share
for timing (`measure`). The lab may import the product; nothing in the product imports the lab. The demo memories
a new store starts with are product data and live in memoryhub/memories/demo.py."""
