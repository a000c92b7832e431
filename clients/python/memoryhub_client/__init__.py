"""The MemoryHub client, standard library only: the HTTP calls (`api`), which project a folder works in
(`projects`), the `memoryhub` command (`cli`) and the prompt hook (`hooks`)."""

__version__ = "0.1.0"
