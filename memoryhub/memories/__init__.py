"""What a memory may become: writing and editing (`store`), the write gate and its dry run (`gate`, `gate_preview`),
decay and archiving (`decay`, `lifecycle`), the one memory filter (`selectors`), backup and restore (`backup`), health
checks and index repair (`health`), export (`exports`), and moving in from other tools (`importers`,
`markdown_notes`)."""
