"""The write gate and what only writes need: judging a write (noise, secrets, twins, updates), storing or folding
it, previews and imports from other tools, exports, and a memory in an answer."""
