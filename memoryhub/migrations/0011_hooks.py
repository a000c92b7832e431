"""Webhooks: the receivers told of changes and the log of each try to deliver (memoryhub/operations/webhooks.py).
New tables only: the memory table and its triggers are untouched."""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memoryhub", "0010_trust"),
    ]

    operations = [
        migrations.CreateModel(
            name="Webhook",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("url", models.CharField(max_length=2000)),
                ("project", models.CharField(blank=True, db_index=True, max_length=200, null=True)),
                ("events", models.JSONField(default=list)),
                ("secret", models.CharField(max_length=100)),
                ("created_by", models.CharField(blank=True, default="", max_length=200)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("cursor", models.BigIntegerField(default=0)),
                ("failures", models.PositiveIntegerField(default=0)),
                ("next_attempt_at", models.DateTimeField(blank=True, null=True)),
            ],
            options={
                "ordering": ["pk"],
            },
        ),
        migrations.CreateModel(
            name="WebhookDelivery",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("event", models.CharField(max_length=40)),
                ("event_id", models.BigIntegerField()),
                ("memory_id", models.BigIntegerField(blank=True, null=True)),
                ("attempt", models.PositiveIntegerField(default=1)),
                ("ok", models.BooleanField(default=False)),
                ("status_code", models.PositiveIntegerField(blank=True, null=True)),
                ("error", models.CharField(blank=True, default="", max_length=500)),
                ("duration_ms", models.FloatField(default=0.0)),
                ("created_at", models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                (
                    "webhook",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="deliveries", to="memoryhub.webhook"
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at", "-id"],
            },
        ),
    ]
