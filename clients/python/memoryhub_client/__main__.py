import sys

from memoryhub_client.cli import main

sys.exit(main())
