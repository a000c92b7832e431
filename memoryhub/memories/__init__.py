"""The record operations: what a write may hold (`fields`, `storable`) and storing, editing and deleting a checked one
(`store`); secrets refused in any field (`secrets`); supersession and its chain (`supersession`, `chain`,
`supersession_log`) and the rules that judge whether one text replaces another (`updates`, `details`, `times`); decay
and archiving (`decay`, `lifecycle`); bookkeeping after the answer (`bookkeeping`); the one memory filter
(`selectors`); removing stored secrets (`scrub`); backup, restore and moving a store (`backup`, `transfer`); health
checks (`health`); the dashboard's change feed (`changes`); and the demo memories (`demo`)."""
