"""What a memory is allowed to become: writing and editing (`store`), the write gate (`gate`), decay and archiving
(`decay`, `lifecycle`), backup and restore (`backup`), health checks and index repair (`health`), and export
(`exports`)."""
