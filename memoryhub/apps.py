from django.apps import AppConfig


class MemoryhubConfig(AppConfig):
    name = "memoryhub"
    verbose_name = "MemoryHub"
    default_auto_field = "django.db.models.BigAutoField"
