"""People and roles: a person's role per project (Membership). Every login that exists before this migration becomes
a hub admin (`is_superuser`), so nobody loses what they could see and do when roles arrive. Dashboard changes were
signed `ui:<username>`; they are now signed with the username alone, so the old events are renamed to match."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models
from django.db.models.functions import Substr


def existing_logins_become_hub_admins(apps, schema_editor):
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    User.objects.filter(is_superuser=False).update(is_superuser=True, is_staff=True)


def dashboard_signatures_become_usernames(apps, schema_editor):
    prefix = "ui:"
    start = len(prefix) + 1  # SQL counts from 1
    MemoryEvent = apps.get_model("memoryhub", "MemoryEvent")
    MemoryEvent.objects.filter(actor__startswith=prefix).update(actor=Substr("actor", start))
    Proposal = apps.get_model("memoryhub", "Proposal")
    Proposal.objects.filter(decided_by__startswith=prefix).update(decided_by=Substr("decided_by", start))


class Migration(migrations.Migration):
    dependencies = [
        ("memoryhub", "0005_change_log"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Membership",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("project", models.CharField(max_length=200)),
                (
                    "role",
                    models.CharField(
                        choices=[("viewer", "Viewer"), ("curator", "Curator"), ("owner", "Owner")], max_length=20
                    ),
                ),
                ("granted_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("granted_by", models.CharField(blank=True, default="", max_length=200)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="memberships",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["project"], name="memoryhub_m_project_1cf7e5_idx")],
                "constraints": [models.UniqueConstraint(fields=("user", "project"), name="one_role_per_project")],
            },
        ),
        # Not reversed: turning admins back into plain logins would lock people out of a store they ran.
        migrations.RunPython(existing_logins_become_hub_admins, migrations.RunPython.noop),
        migrations.RunPython(dashboard_signatures_become_usernames, migrations.RunPython.noop),
    ]
