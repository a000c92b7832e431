from django.apps import AppConfig


class MemoryhubConfig(AppConfig):
    name = "memoryhub"
    verbose_name = "MemoryHub"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The gate gets its second opinion on unsure updates from the LLM client, handed down, not imported up.
        from memoryhub.consolidation.update_judge import ask_llm_about_update
        from memoryhub.memories.update_gate import register_second_opinion

        register_second_opinion(ask_llm_about_update)
