"""What a memory may become: writing and editing (`store`); the write gate (`gate`) with what it judges (`secrets`,
`noise`, `categories`) and its answer for outside items and dry runs (`gate_preview`); removing secrets already
stored (`scrub`); decay and archiving (`decay`, `lifecycle`); the one memory filter (`selectors`); backup and restore
(`backup`); health checks and index repair (`health`); what a memory looks like in an answer (`shape`); export
(`exports`); and moving in from other tools (`importers`, `markdown_notes`)."""
