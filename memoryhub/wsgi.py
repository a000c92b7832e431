"""WSGI entry point (served by waitress, see README). A bad MEMORYHUB_* value stops the import with one line."""

import os

from django.core.wsgi import get_wsgi_application

from memoryhub.startup import load_settings_or_exit

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
load_settings_or_exit("memoryhub.wsgi")
application = get_wsgi_application()
