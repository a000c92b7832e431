"""Re-judge the automatic supersessions a store holds with today's update rules; list (and with --restore undo)
the links the rules would not make now."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from memoryhub.writes.supersession_review import LinkReview, review_supersessions

SHOWN = 70  # characters of each text in a listed link


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SHOWN else flat[: SHOWN - 1] + "…"


class Command(BaseCommand):
    help = (
        "Re-judge every memory the write gate superseded automatically (not those a person decided) with the "
        "current update rules, and list the links the rules would not make now. Changes nothing unless --restore: "
        "then each such link is restored (both memories active, with a history event). A link the rules would "
        "now ask a person about stays, and with --restore is put to a person on the Proposals page."
    )

    def add_arguments(self, parser):
        parser.add_argument("--project", help="only this project's supersessions (default: every scope)")
        parser.add_argument("--restore", action="store_true", help="restore each link the current rules would not make")

    def handle(self, *args, project: str | None, restore: bool, **options):
        report = review_supersessions(projects=[project] if project else None, restore_wrong=restore)
        for review in report.not_made_now:
            self.stdout.write(self._line(review))
        if report.without_vectors:
            self.stdout.write(
                f"{report.without_vectors} links were judged without a stored vector (similarity 0.0); "
                "run `manage.py reembed` first for a fairer judgement."
            )
        if report.unsure:
            self.stdout.write(f"{len(report.unsure)} kept links the current rules would ask a person about")
        if report.queued:
            self.stdout.write(f"{len(report.queued)} conflicts put to a person (the Proposals page).")
        summary = (
            f"{len(report.reviews)} links reviewed, {len(report.kept)} kept, "
            f"{len(report.not_made_now)} would not be made now"
        )
        self.stdout.write(summary + (f", {len(report.restored)} restored" if restore else ""))

    @staticmethod
    def _line(review: LinkReview) -> str:
        link, verdict = review.link, review.verdict
        return (
            f"#{link.older.pk} superseded by #{link.newer.pk} [{link.project or 'global'}]\n"
            f"  older: {_short(link.older.content)}\n"
            f"  newer: {_short(link.newer.content)}\n"
            f"  now: {verdict.verdict} ({verdict.reason})"
        )
