from django.apps import AppConfig
from django.core import checks


class MemoryhubConfig(AppConfig):
    name = "memoryhub"
    verbose_name = "MemoryHub"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        checks.register(check_store_extensions, checks.Tags.database)


def check_store_extensions(app_configs=None, databases=None, **kwargs) -> list[checks.CheckMessage]:
    """The store's extensions work (sqlite-vec answers; pgvector builds and searches an HNSW index): asked by
    `migrate` and `check --database default` before they touch the store, so a broken extension is one line here
    rather than a crash or a 500 later."""
    if not databases or "default" not in databases:
        return []
    from memoryhub.storage import sql  # chosen from the configured engine, which the app registry must know first

    problem = sql.extension_problem()
    return [checks.Error(problem, id="memoryhub.E001")] if problem else []
