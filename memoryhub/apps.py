from django.apps import AppConfig
from django.core import checks


class MemoryhubConfig(AppConfig):
    name = "memoryhub"
    verbose_name = "MemoryHub"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        checks.register(check_store_extensions, checks.Tags.database)
        # What the memories floor needs from the floors above it is handed down here, not imported up: the gate's
        # twin lookup (search's), and the LLM's second opinion on unsure updates and on unsure noise. Imported
        # here, not at the top: an app module must not import models before the app registry is ready.
        from memoryhub.consolidation.noise_judge import ask_llm_about_noise  # (see above)
        from memoryhub.consolidation.update_judge import ask_llm_about_update
        from memoryhub.memories.noise import register_noise_judge
        from memoryhub.memories.twins import register_twin_lookup
        from memoryhub.memories.update_gate import register_second_opinion
        from memoryhub.retrieval.search import similar_in_scope

        register_second_opinion(ask_llm_about_update)
        register_noise_judge(ask_llm_about_noise)
        register_twin_lookup(similar_in_scope)

        from memoryhub.operations.deliveries import deliver_due  # (see above)
        from memoryhub.operations.figures import store_figures
        from memoryhub.runtime import deliveries, metrics

        metrics.register_store_figures(store_figures)  # what GET /metrics reads from the store at a scrape
        deliveries.register(deliver_due)  # the webhook delivery thread's pass, started by `serve`


def check_store_extensions(app_configs=None, databases=None, **kwargs) -> list[checks.CheckMessage]:
    """The store's extensions work (sqlite-vec answers; pgvector builds and searches an HNSW index): asked by
    `migrate` and `check --database default` before they touch the store, so a broken extension is one line here
    rather than a crash or a 500 later."""
    if not databases or "default" not in databases:
        return []
    from memoryhub.storage import sql  # chosen from the configured engine, which the app registry must know first

    problem = sql.extension_problem()
    return [checks.Error(problem, id="memoryhub.E001")] if problem else []
