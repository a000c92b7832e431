"""People and their roles per project: the role table and a person's access (`roles`), making people and
granting roles (`persons`), agents' tokens as owners manage them (`tokens`), and who did what (`activity`)."""
